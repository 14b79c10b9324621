// Package optimizers implements no Go API: it holds optimizers of one's own
// written as a user of evotune's objective protocol (evotune objective,
// docs/objective.md) would write them, the peers that tunebench --peer
// compares evotune's tuner with (docs/tunebench.md), and the tests that run
// them as real child processes.
//
//   - objective.py: the protocol's client, shared by the others (standard
//     library only): it speaks on stdin and stdout (a tunebench peer) or
//     starts evotune objective itself (--run).
//   - spsa.py: SPSA; --careful parametrised as fishtest does (c_end, r_end,
//     wins minus losses of game pairs), else its schedule in its own terms.
//   - optuna_opt.py: --careful, Optuna's CmaEsSampler as docs/objective.md's
//     recipe runs it; else the library's defaults, CmaEsSampler (--sampler
//     cmaes) or TPESampler (--sampler tpe).
//   - pycma_opt.py: pycma's CMAEvolutionStrategy, recommending
//     result.xfavorite; --careful adds the final race. pycma is not part of
//     this repository.
//
// Each file's header says which mode is the careful one and how to run it
// as a tunebench peer; README.md says more. The tests run every script,
// each way, against a real evotune objective (built from this module) and
// as a short tunebench peer, and docs/objective.md's recipes as printed.
// They need Python 3 and, for Optuna and pycma, those libraries; they skip,
// saying which is missing, where one is absent. They look for a python3
// that has the library: /usr/bin/python3 (where distributions install
// python3-optuna) first, then the one on PATH.
package optimizers
