#!/usr/bin/env python3
"""SPSA as chess engines tune with it (fishtest, OpenBench), on evotune's
objective (docs/objective.md). No library.

Each iteration k draws a direction delta of +-1 per parameter, plays
theta + c_k*delta and theta - c_k*delta on the same games (common seeds),
and steps theta along the difference:

    theta += a_k * (f+ - f-) / mean(f+, f-) / (2 * c_k * delta)

with fishtest's schedule a_k = a / (A + k + 1)^0.602, c_k = c / (k + 1)^0.101
and A = 10% of the iterations expected. Coordinates are multiples of each
parameter's scale (its start's magnitude), theta starting at the start; the
score difference is relative to the pair's mean, as fishtest's is a game
result in [-1, 1]. It recommends its last point, as fishtest does.

Defaults: a = 0.3, c = 0.2, games per side = the problem's games per
candidate; the iterations expected are the budget (tunebench's first line)
over the first iteration's CPU, else --iterations (200).

    evotune objective --problem standard-3 | ... (a pipe both ways; see
    docs/objective.md) or: evotune tunebench --peer 'python3 spsa.py'
"""

import argparse
import random
import sys

from objective import Objective, Stop, clip


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", type=float, default=0.3)
    ap.add_argument("--c", type=float, default=0.2)
    ap.add_argument("--games", type=int, default=0, help="games per side (0 = the problem's)")
    ap.add_argument("--iterations", type=int, default=200, help="iterations without a budget")
    args = ap.parse_args()

    obj = Objective()
    rng = random.Random(obj.seed)
    games = args.games or obj.games
    n = len(obj.names)
    # theta in units of scale, so that a and c mean the same for every
    # parameter whatever its magnitude.
    lo = [l / s for l, s in zip(obj.lo, obj.scale)]
    hi = [h / s for h, s in zip(obj.hi, obj.scale)]
    theta = [x / s for x, s in zip(obj.start, obj.scale)]
    point = lambda t: [ti * s for ti, s in zip(t, obj.scale)]
    obj.recommender = lambda: point(theta)

    iterations, A = args.iterations, 0.1 * args.iterations
    first, k = 0, 0
    try:
        while obj.budget > 0 or k < args.iterations:
            ck = args.c / (k + 1) ** 0.101
            delta = [rng.choice((-1.0, 1.0)) for _ in range(n)]
            plus = clip([t + ck * d for t, d in zip(theta, delta)], lo, hi)
            minus = clip([t - ck * d for t, d in zip(theta, delta)], lo, hi)
            fp = obj.evaluate(point(plus), games, first)
            fm = obj.evaluate(point(minus), games, first)
            first += games
            if k == 0 and obj.budget > 0:
                # fishtest knows its games in advance; here the budget and
                # the first pair's CPU say how many iterations to expect.
                iterations = max(1, int(obj.budget / max(fp["cpu_s"] + fm["cpu_s"], 1e-3)))
                A = 0.1 * iterations
            ak = args.a / (A + k + 1) ** 0.602
            mean = (fp["mean"] + fm["mean"]) / 2
            r = (fp["mean"] - fm["mean"]) / mean if mean > 0 else 0.0
            theta = clip([t + ak * r / (2 * ck * d) for t, d in zip(theta, delta)], lo, hi)
            k += 1
    except Stop:
        pass
    obj.finish(point(theta))
    print("spsa: %d iterations (%d expected), %.1f CPU s of games" % (k, iterations, obj.cpu), file=sys.stderr)


if __name__ == "__main__":
    main()
