#!/usr/bin/env python3
"""pycma on evotune's objective (docs/objective.md): cma.CMAEvolutionStrategy
with its ask-and-tell interface, as pycma's documentation shows it.

pycma is not part of this repository; install it (pip install cma) or put
its source on PYTHONPATH.

Each generation's candidates play the same games (common seeds), a new range
of the stream for every generation. Coordinates are multiples of each
parameter's scale (the start's magnitude), starting at the start, with
pycma's bounds option set to [start - scale, start + 2 * scale] cut to the
parameter's bounds; sigma0 = 0.3, evotune's. Everything else is pycma's
default (population 4 + 3 ln n), seeded with the run seed. pycma minimises,
so it is told the negated mean score. It recommends its distribution mean
(es.mean), as pycma's documentation says to for noisy functions.

Defaults: --sigma0 0.3, games per candidate = the problem's; without a
budget, --generations 100.
"""

import argparse
import sys
import warnings

warnings.simplefilter("ignore")  # no matplotlib is fine
import cma  # noqa: E402

from objective import Objective, Stop  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sigma0", type=float, default=0.3)
    ap.add_argument("--games", type=int, default=0, help="games per candidate (0 = the problem's)")
    ap.add_argument("--generations", type=int, default=100, help="generations without a budget")
    args = ap.parse_args()

    obj = Objective()
    games = args.games or obj.games
    scale = obj.scale
    z0 = [x / s for x, s in zip(obj.start, scale)]
    lo = [l / s for l, s in zip(obj.lo, scale)]
    hi = [h / s for h, s in zip(obj.hi, scale)]
    # pycma takes seed 0 for "from the clock": shift it.
    es = cma.CMAEvolutionStrategy(z0, args.sigma0, {"bounds": [lo, hi], "seed": obj.seed + 1, "verbose": -9})

    def point(z):
        return [zi * s for zi, s in zip(z, scale)]

    obj.recommender = lambda: point(es.mean)
    first, g = 0, 0
    try:
        while obj.budget > 0 or g < args.generations:
            zs = es.ask()
            f = [-obj.evaluate(point(z), games, first)["mean"] for z in zs]
            first += games
            es.tell(zs, f)
            g += 1
    except Stop:
        pass
    obj.finish(point(es.mean))
    print("pycma: %d generations, %.1f CPU s of games" % (g, obj.cpu), file=sys.stderr)


if __name__ == "__main__":
    main()
