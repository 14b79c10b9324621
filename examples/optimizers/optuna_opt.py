#!/usr/bin/env python3
"""Optuna on evotune's objective (docs/objective.md): its CmaEsSampler
(--sampler cmaes, the default) or TPESampler (--sampler tpe), used the way
Optuna's documentation shows, with its ask-and-tell interface.

Each trial plays the problem's games per candidate on fresh games (a new
range of the stream each time: Optuna assumes nothing about common seeds).
Parameters are suggested in multiples of their scale (the start's
magnitude), each within [start - scale, start + 2 * scale] cut to its
bounds, so that CmaEsSampler's default step, a sixth of the narrowest range,
means the same for every parameter. CmaEsSampler starts at the start
(x0); TPE's first trial is the start (enqueue_trial). Everything else is
the library's default, seeded with the run seed. It recommends the best
trial (study.best_params), as Optuna's documentation does.

Defaults: --sampler cmaes, games per trial = the problem's games per
candidate; without a budget, --trials 500.
"""

import argparse
import sys
import warnings

import optuna

from objective import Objective, Stop


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sampler", choices=("cmaes", "tpe"), default="cmaes")
    ap.add_argument("--games", type=int, default=0, help="games per trial (0 = the problem's)")
    ap.add_argument("--trials", type=int, default=500, help="trials without a budget")
    args = ap.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    obj = Objective()
    games = args.games or obj.games
    names, scale = obj.names, obj.scale
    dists = {n: optuna.distributions.FloatDistribution(lo / s, hi / s)
             for n, lo, hi, s in zip(names, obj.lo, obj.hi, scale)}
    z0 = {n: x / s for n, x, s in zip(names, obj.start, scale)}
    if args.sampler == "cmaes":
        sampler = optuna.samplers.CmaEsSampler(x0=z0, seed=obj.seed)
    else:
        sampler = optuna.samplers.TPESampler(seed=obj.seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    if args.sampler == "tpe":
        study.enqueue_trial(z0)

    def point(z):
        return [z[n] * s for n, s in zip(names, scale)]

    def best():
        done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        return point(study.best_params) if done else obj.start

    obj.recommender = best
    first, n = 0, 0
    try:
        while obj.budget > 0 or n < args.trials:
            trial = study.ask(dists)
            ans = obj.evaluate(point(trial.params), games, first)
            first += games
            study.tell(trial, ans["mean"])
            n += 1
    except Stop:
        pass
    obj.finish(best())
    print("optuna %s: %d trials, %.1f CPU s of games" % (args.sampler, n, obj.cpu), file=sys.stderr)


if __name__ == "__main__":
    main()
