#!/usr/bin/env python3
"""pycma on evotune's objective (docs/objective.md): cma.CMAEvolutionStrategy
with its ask-and-tell interface. pycma is not part of this repository;
install it (pip install cma) or put its source on PYTHONPATH.

Both ways to run it search in units of each parameter's scale
(z = x / scale) from the start, sigma0 = 0.3 (evotune's), within pycma's
bounds option set to each parameter's box from evotune's first line, with
every candidate of a generation on the same games (common seeds) and a new
range of the stream for each generation; pycma minimises, so it is told
the negated mean score; its seed is the run seed cut to what numpy takes.
Its recommendation is result.xfavorite, the distribution mean that
pycma's documentation recommends for a noisy function.

--careful adds a final race: pycma's xfavorite at the end of each of the
last generations (at most --race) plays fresh common games, and the
highest mean is recommended; a fifth of the budget is kept for it. Without
a budget, --generations generations, twice the problem's games per
candidate in the race, then the recommendation and the start on the
held-out block, and the ratio printed.

Without --careful: pycma's defaults otherwise (population 4 + 3 ln n), the
final xfavorite recommended.

As a tunebench peer:
  PYTHONPATH=/path/to/pycma evotune tunebench --problems nneonneo-cap1 --peer '/usr/bin/python3 examples/optimizers/pycma_opt.py --careful'
"""

import argparse
import sys
import warnings

warnings.simplefilter("ignore")  # no matplotlib is fine
import cma  # noqa: E402

from objective import Objective, Stop, held_out_ratio, race  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--careful", action="store_true", help="a final race among the generations' xfavorite (see above)")
    ap.add_argument("--sigma0", type=float, default=0.3)
    ap.add_argument("--games", type=int, default=0, help="games per candidate (0 = the problem's)")
    ap.add_argument("--generations", type=int, default=100, help="generations without a budget")
    ap.add_argument("--race", type=int, default=16, help="--careful: the most generations' xfavorite in the final race")
    ap.add_argument("--held-out", type=int, default=200, help="--careful without a budget: held-out games that judge the result")
    ap.add_argument("--run", default="", help="start this evotune objective command instead of speaking on stdin and stdout")
    args = ap.parse_args()

    obj = Objective.run(args.run) if args.run else Objective()
    budget = obj.budget_games or obj.budget_cpu
    games = args.games or obj.games
    es = cma.CMAEvolutionStrategy(obj.to_z(obj.start), args.sigma0,
                                  {"bounds": [obj.to_z(obj.lo), obj.to_z(obj.hi)], "seed": obj.seed32, "verbose": -9})

    def favorite():
        return obj.from_z(es.result.xfavorite)

    obj.recommender = favorite
    favorites = []  # xfavorite after each generation
    first, g = 0, 0
    try:
        while (obj.used() < (0.8 if args.careful else 1)) if budget else g < args.generations:
            zs = es.ask()
            f = [-obj.evaluate(obj.from_z(z), games, first)["mean"] for z in zs]
            first += games
            es.tell(zs, f)
            favorites.append(favorite())
            g += 1
        best = favorite()
        if args.careful:
            cands = favorites[::-1][: args.race] or [obj.start]
            left = obj.games_left()
            race_games = 2 * games if left is None else max(1, left // len(cands))
            win, means = race(obj, cands, race_games, first)
            best = cands[win]
            print("pycma careful: race of %d on %d games: %s" % (len(cands), race_games, ["%.0f" % m if m is not None else "-" for m in means]), file=sys.stderr)
    except Stop:
        best = favorite()
    if args.careful and not budget:
        r, lo, hi = held_out_ratio(obj, best, args.held_out)
        print("held-out: tuned/start mean score %.3f [%.3f, %.3f] on %d games" % (r, lo, hi, args.held_out), file=sys.stderr)
    obj.finish(best)
    print("pycma: %d generations, %.1f CPU s of games" % (g, obj.cpu), file=sys.stderr)
    obj.close()


if __name__ == "__main__":
    main()
