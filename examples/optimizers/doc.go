// Package optimizers implements no Go API: it holds optimizers of one's own
// written as a user of evotune's objective protocol (evotune objective,
// docs/objective.md) would write them, the peers that tunebench --peer
// compares evotune's tuner with (docs/tunebench.md), and the tests that run
// them as real child processes.
//
//   - objective.py: the protocol's client, shared by the others (standard
//     library only).
//   - spsa.py: SPSA with fishtest's schedule, no library.
//   - optuna_opt.py: Optuna's CmaEsSampler (--sampler cmaes) or TPESampler
//     (--sampler tpe).
//   - pycma_opt.py: pycma's CMAEvolutionStrategy; pycma is not part of this
//     repository.
//
// Each file's header states what it does and its defaults; README.md says
// how to run them. The tests need Python 3 and, for Optuna and pycma, those
// libraries; they skip, saying which is missing, where one is absent. They
// look for a python3 that has the library: /usr/bin/python3 (where
// distributions install python3-optuna) first, then the one on PATH.
package optimizers
