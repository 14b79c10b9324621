#!/usr/bin/env python3
"""SPSA as chess engines tune with it, on evotune's objective
(docs/objective.md). No library. Two ways to run it:

--careful (parametrised as fishtest does): each parameter has c_end, the
perturbation at the end, and r_end, the learning rate at the end, in units
of its scale (theta = x / scale, so one pair of values means as much for
every parameter); by default c_end is a twentieth of its box, fishtest's
rule of thumb, and r_end 0.002, fishtest's usual value. An iteration draws a
direction delta of +-1 per parameter, plays theta + c_k*delta and
theta - c_k*delta on the same games (common seeds), and counts each game
as a game pair of fishtest: result = wins - losses of the plus side. With
N game pairs expected in all (from the budget, else --iterations times the
games), fishtest's schedule:

    c = c_end * N^0.101        a = r_end * c_end^2 * (A + N)^0.602,  A = N / 10
    c_k = c / (k + 1)^0.101    R_k = a / (A + k + 1)^0.602 / c_k^2
    theta += R_k * c_k * result * delta

k counting game pairs, as fishtest counts them. It recommends its last
point, as fishtest does.

Without --careful (the schedule in its own terms, this folder's first
version): theta += a_k * (f+ - f-) / mean(f+, f-) / (2 * c_k * delta),
a_k = a / (A + k + 1)^0.602, c_k = c / (k + 1)^0.101, k counting iterations,
a = 0.3, c = 0.2.

As a tunebench peer:
  evotune tunebench --problems nneonneo-cap1 --peer '/usr/bin/python3 examples/optimizers/spsa.py --careful'
"""

import argparse
import random
import sys

from objective import Objective, Stop, clip


def careful(obj, args, rng):
    n = len(obj.names)
    games = args.games or obj.games
    lo, hi = obj.to_z(obj.lo), obj.to_z(obj.hi)
    c_end = [args.c_end or (h - l) / 20 for l, h in zip(lo, hi)]
    r_end = args.r_end
    theta = obj.to_z(obj.start)
    obj.recommender = lambda: obj.from_z(theta)
    # Game pairs expected in all: from a budget in games, else a guess from
    # the first iteration's CPU, else --iterations.
    pairs = obj.budget_games // 2 if obj.budget_games else args.iterations * games
    first, k, it = 0, 0, 0
    try:
        while True:
            big_a = pairs / 10
            c = [ce * pairs ** 0.101 for ce in c_end]
            a = [r_end * ce ** 2 * (big_a + pairs) ** 0.602 for ce in c_end]
            ck = [ci / (k + 1) ** 0.101 for ci in c]
            rk = [ai / (big_a + k + 1) ** 0.602 / cki ** 2 for ai, cki in zip(a, ck)]
            delta = [rng.choice((-1.0, 1.0)) for _ in range(n)]
            plus = clip([t + s * d for t, s, d in zip(theta, ck, delta)], lo, hi)
            minus = clip([t - s * d for t, s, d in zip(theta, ck, delta)], lo, hi)
            fp = obj.evaluate(obj.from_z(plus), games, first)
            fm = obj.evaluate(obj.from_z(minus), games, first)
            first += games
            if it == 0 and obj.budget_cpu > 0 and not obj.budget_games:
                pairs = max(games, games * int(obj.budget_cpu / max(fp["cpu_s"] + fm["cpu_s"], 1e-3)))
            result = sum((p > m) - (p < m) for p, m in zip(fp["scores"], fm["scores"]))
            theta = clip([t + r * s * result * d for t, r, s, d in zip(theta, rk, ck, delta)], lo, hi)
            k += games
            it += 1
            if not (obj.budget_cpu or obj.budget_games) and it >= args.iterations:
                break
    except Stop:
        pass
    obj.finish(obj.from_z(theta))
    print("spsa careful: %d iterations, %d game pairs (%d expected)" % (it, k, pairs), file=sys.stderr)


def own_terms(obj, args, rng):
    games = args.games or obj.games
    n = len(obj.names)
    lo, hi = obj.to_z(obj.lo), obj.to_z(obj.hi)
    theta = obj.to_z(obj.start)
    obj.recommender = lambda: obj.from_z(theta)
    iterations, big_a = args.iterations, 0.1 * args.iterations
    if obj.budget_games:
        iterations = max(1, obj.budget_games // (2 * games))
        big_a = 0.1 * iterations
    first, k = 0, 0
    try:
        while obj.budget_cpu > 0 or obj.budget_games > 0 or k < args.iterations:
            ck = args.c / (k + 1) ** 0.101
            delta = [rng.choice((-1.0, 1.0)) for _ in range(n)]
            plus = clip([t + ck * d for t, d in zip(theta, delta)], lo, hi)
            minus = clip([t - ck * d for t, d in zip(theta, delta)], lo, hi)
            fp = obj.evaluate(obj.from_z(plus), games, first)
            fm = obj.evaluate(obj.from_z(minus), games, first)
            first += games
            if k == 0 and obj.budget_cpu > 0 and not obj.budget_games:
                # The budget and the first pair's CPU say how many
                # iterations to expect.
                iterations = max(1, int(obj.budget_cpu / max(fp["cpu_s"] + fm["cpu_s"], 1e-3)))
                big_a = 0.1 * iterations
            ak = args.a / (big_a + k + 1) ** 0.602
            mean = (fp["mean"] + fm["mean"]) / 2
            r = (fp["mean"] - fm["mean"]) / mean if mean > 0 else 0.0
            theta = clip([t + ak * r / (2 * ck * d) for t, d in zip(theta, delta)], lo, hi)
            k += 1
    except Stop:
        pass
    obj.finish(obj.from_z(theta))
    print("spsa: %d iterations (%d expected), %.1f CPU s of games" % (k, iterations, obj.cpu), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--careful", action="store_true", help="fishtest's parametrisation (see above)")
    ap.add_argument("--c-end", type=float, default=0, help="--careful: c_end in units of scale (0 = a twentieth of each box)")
    ap.add_argument("--r-end", type=float, default=0.002, help="--careful: r_end")
    ap.add_argument("--a", type=float, default=0.3, help="without --careful: a")
    ap.add_argument("--c", type=float, default=0.2, help="without --careful: c")
    ap.add_argument("--games", type=int, default=0, help="games per side (0 = the problem's)")
    ap.add_argument("--iterations", type=int, default=200, help="iterations without a budget")
    ap.add_argument("--run", default="", help="start this evotune objective command instead of speaking on stdin and stdout")
    args = ap.parse_args()
    obj = Objective.run(args.run) if args.run else Objective()
    rng = random.Random(obj.seed)
    if args.careful:
        careful(obj, args, rng)
    else:
        own_terms(obj, args, rng)
    obj.close()


if __name__ == "__main__":
    main()
