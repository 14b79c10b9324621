#!/usr/bin/env python3
"""Optuna on evotune's objective (docs/objective.md), with its ask-and-tell
interface. Two ways to run it:

--careful (the careful user's CmaEsSampler, as docs/objective.md's recipe
runs it):
  - every parameter searched in units of its scale (z = x / scale, a
    FloatDistribution over its box), an int parameter (a player's) as an
    IntDistribution in its own units (then CMA-ES with margin, for integer
    coordinates); sigma0 = 0.3, evotune's, in those units;
  - the start enqueued as the first trial (enqueue_trial): CMA-ES starts
    from it, the population 4 + floor(3 ln n) as CMA-ES's default, set
    explicitly so that each trial's generation is known;
  - every candidate of a CMA generation plays the same games (common
    random numbers: the differences it ranks are the candidates', not the
    games'), a new range of the stream for each generation;
  - at the end, a final race: the best trial of each generation (its
    generation's games chose it, so its mean flatters it) plays fresh
    common games, and the highest mean is recommended. A fifth of the
    budget is kept for the race; without a budget, --trials trials and
    twice the problem's games per candidate in the race.
  - standalone (no budget), the recommendation and the start are then
    played on the held-out block and the ratio printed: a figure no
    choice saw.

--sampler cmaes or --sampler tpe without --careful (the library's
defaults, as Optuna's documentation shows them): each trial plays fresh
games, CmaEsSampler starts at the start (x0) with its own sigma0 (a sixth
of the narrowest range), TPE's first trial is the start; the
recommendation is the best trial (study.best_params).

As a tunebench peer:
  evotune tunebench --problems nneonneo-cap1 --peer '/usr/bin/python3 examples/optimizers/optuna_opt.py --careful'
  evotune tunebench --problems nneonneo-cap1 --peer '/usr/bin/python3 examples/optimizers/optuna_opt.py --sampler tpe'
"""

import argparse
import math
import sys
import warnings

import optuna

from objective import Objective, Stop, held_out_ratio, race


def distributions(obj, careful):
    """The search space: z = x / scale for floats, an int in its own
    units (careful) or as z; each over its box."""
    dists = {}
    for name, lo, hi, s, is_int in zip(obj.names, obj.lo, obj.hi, obj.scale, obj.ints):
        if careful and is_int:
            dists[name] = optuna.distributions.IntDistribution(int(math.ceil(lo)), int(math.floor(hi)))
        else:
            dists[name] = optuna.distributions.FloatDistribution(lo / s, hi / s)
    return dists


def point(obj, params, careful):
    """The point in the problem's units of a trial's params."""
    return [params[n] if careful and i else params[n] * s for n, s, i in zip(obj.names, obj.scale, obj.ints)]


def start_params(obj, careful):
    return {n: (int(x) if careful and i else x / s) for n, x, s, i in zip(obj.names, obj.start, obj.scale, obj.ints)}


def careful(obj, args):
    dists = distributions(obj, True)
    n = len(dists)
    popsize = 4 + int(3 * math.log(n))
    sampler = optuna.samplers.CmaEsSampler(
        x0=start_params(obj, True), sigma0=0.3, popsize=popsize, seed=obj.seed32, with_margin=any(obj.ints))
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.enqueue_trial(start_params(obj, True))
    games = args.games or obj.games
    bests = []  # per generation: (mean, point) of its best trial
    current = []  # the trials of the generation under way: (mean, point)

    def recommendation():
        return max(bests)[1] if bests else obj.start

    obj.recommender = recommendation
    trials = 0
    try:
        while obj.used() < 0.8 if (obj.budget_games or obj.budget_cpu) else trials < args.trials:
            trial = study.ask(dists)
            # Trial 0 is the start; then popsize trials per generation.
            gen = -1 if trials == 0 else (trials - 1) // popsize
            x = point(obj, trial.params, True)
            mean = obj.evaluate(x, games, (gen + 1) * games)["mean"]
            study.tell(trial, mean)
            trials += 1
            if gen >= 0:
                current.append((mean, x))
                if len(current) == popsize:
                    bests.append(max(current))
                    current = []
        # The race: the generations' bests, most recent first if the budget
        # cannot race them all, on games after every generation's.
        first = (len(bests) + 2) * games
        cands = [x for _, x in bests[::-1][: args.race]] or [obj.start]
        left = obj.games_left()
        race_games = 2 * games if left is None else max(1, left // len(cands))
        win, means = race(obj, cands, race_games, first)
        best = cands[win]
        print("optuna careful: %d trials, %d generations, race of %d on %d games: %s"
              % (trials, len(bests), len(cands), race_games, ["%.0f" % m if m is not None else "-" for m in means]),
              file=sys.stderr)
    except Stop:
        best = recommendation()
    if not (obj.budget_games or obj.budget_cpu):
        r, lo, hi = held_out_ratio(obj, best, args.held_out)
        print("held-out: tuned/start mean score %.3f [%.3f, %.3f] on %d games" % (r, lo, hi, args.held_out), file=sys.stderr)
    obj.finish(best)


def library_default(obj, args):
    dists = distributions(obj, False)
    games = args.games or obj.games
    if args.sampler == "cmaes":
        sampler = optuna.samplers.CmaEsSampler(x0=start_params(obj, False), seed=obj.seed32)
    else:
        sampler = optuna.samplers.TPESampler(seed=obj.seed32)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    if args.sampler == "tpe":
        study.enqueue_trial(start_params(obj, False))

    def best():
        done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        return point(obj, study.best_params, False) if done else obj.start

    obj.recommender = best
    first, n = 0, 0
    try:
        while obj.budget_cpu > 0 or obj.budget_games > 0 or n < args.trials:
            trial = study.ask(dists)
            ans = obj.evaluate(point(obj, trial.params, False), games, first)
            first += games
            study.tell(trial, ans["mean"])
            n += 1
    except Stop:
        pass
    obj.finish(best())
    print("optuna %s: %d trials, %.1f CPU s of games" % (args.sampler, n, obj.cpu), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--careful", action="store_true", help="the careful user's CmaEsSampler (see above)")
    ap.add_argument("--sampler", choices=("cmaes", "tpe"), default="cmaes", help="without --careful: the library's sampler")
    ap.add_argument("--games", type=int, default=0, help="games per trial (0 = the problem's)")
    ap.add_argument("--trials", type=int, default=200, help="trials without a budget")
    ap.add_argument("--race", type=int, default=16, help="--careful: the most generation bests in the final race")
    ap.add_argument("--held-out", type=int, default=200, help="--careful without a budget: held-out games that judge the result")
    ap.add_argument("--run", default="", help="start this evotune objective command instead of speaking on stdin and stdout")
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    obj = Objective.run(args.run) if args.run else Objective()
    if args.careful:
        careful(obj, args)
    else:
        library_default(obj, args)
    obj.close()


if __name__ == "__main__":
    main()
