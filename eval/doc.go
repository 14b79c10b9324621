// Package eval implements the evaluation functions of evotune: feature sets,
// the registry that names them, weight vectors compiled into fast
// evaluators, and the YAML weights file through which tuned weights reach
// other engines.
//
// A FeatureSet is a description and a Model. The description is a name, an
// ordered list of features, each with a written definition (for the built-in
// sets repeated in docs/weights-file.md, "Feature definitions", so that
// another engine can implement it), default weights, optional shape
// parameters with defaults and bounds, and, for a set whose evaluation is
// linear in its weights, the reference feature a tuner holds fixed when
// scale does not matter. The Model is the code: it
// computes a board's feature vector under given parameters (what golden
// checks, versions and tests need) and compiles a weight and parameter
// vector into an engine.Evaluator (what a search needs). A set of one's own
// is the same: a FeatureSet literal with a Model written in one's own
// package, checked by Check; Register makes it known by name to Set, Lookup,
// Names, configs, weights files and workers on other machines. The built-in
// sets are made and registered that way:
//
//   - classic: the fixed reference evaluator of DESIGN.md, its three terms
//     empty, mono and smooth exposed as features, so its weights can be
//     tuned and exported too; with its default weights 27, 10, 3 it
//     evaluates every board exactly as DESIGN.md states.
//   - standard: monotonicity, smoothness, empty, corner, merge (DESIGN.md).
//   - nneonneo: the heuristic of nneonneo/2048-ai, with its two exponents as
//     shape parameters (nneonneo.go); it compiles into a float32 line table
//     built operation for operation as that program builds its own, so its
//     values equal the program's bit for bit. The compiled evaluator is an
//     engine.LineTable32, so the compatible search reads that table at its
//     leaves itself.
//
// A set may declare shape parameters (FeatureSet.Params), numbers that
// change the features themselves; a candidate is then a weight vector and a
// parameter vector, compiled together by CompileParams, and a tuner tunes
// both as one vector (VectorNames, SplitVector, CompileVector).
//
// An evaluation is Σ w[i]·feature[i](board), and it runs at every leaf of
// every search, so a Model compiles a vector into tables once per candidate
// and its evaluator must not allocate. For standard, every feature but
// corner is a sum over the 8 lines (empty a sum over the 4 rows, which the
// table carries at half weight for rows and columns alike), so one
// 65536-entry float64 table indexed by a line's 16 bits serves both, and a
// board costs 8 look-ups (4 rows of the board, 4 of its transpose) plus a
// corner term indexed by the largest of row keys from two 64 KiB byte
// tables: the form engine.Lines describes, whose tables the searchers read
// themselves at their leaves (the leaf layer, engine's doc). A set of one's
// own whose features are each a row's or a column's compiles to that form
// too (tuner/tunebench's snake16 does). The other built-in forms (classic,
// nneonneo's float32 table) are one unexported type with a switch on the
// set's kind, which keeps Evaluate a leaf function that the searchers'
// interface call reaches directly. An evaluator is immutable, shared
// between goroutines, and reached by the searchers through
// engine.Evaluator, whatever set it came from.
//
// FeatureSet.Version digests what a set computes in this build (its names,
// and its features and default values on fixed boards), so that a worker on
// another machine refuses jobs of a set that computes differently there.
//
// Scale: every built-in set is linear in its weights (ScaleInvariant), so
// when the search scores leaves by the evaluation alone, multiplying every
// weight by a positive constant changes no decision, and a tuner should not
// spend a dimension on scale: hold the Reference weight at its default, or
// map vectors through FeatureSet.Normalize. When the search adds move
// scores (the default play-time expectimax), the scale matters and every
// weight must be tuned.
//
// The weights file (format evotune.weights/v1, or v2 when it must say
// more: shape parameters, the nneonneo search, a probability cutoff) names
// the set, maps each feature to its weight and each parameter to its value,
// optionally records the search and the provenance of the weights, and
// carries golden checks: boards with their feature vectors and values under
// the file's parameters. NewWeightsFile makes one; ParseWeights decodes
// strictly and verifies the checks, every error naming the file and line;
// both find the set by the name the file gives, so a set of one's own must
// be registered to write or read its files. ParseWeights decodes with
// internal/yamlx, the strict decoder the tuner's configs are read with too,
// into the file's form (a struct per mapping), keeping the feature maps as
// nodes until the file has named its set; the format's rules (v2 keys,
// ranges, the checks) are checked after decoding, at the lines yamlx
// recorded. WeightsFile.Marshal encodes it (callers persist the bytes with
// their atomic writer) and always writes checks, so a port of the features
// to another engine can verify itself the way "evotune check" does.
//
// Every fast path of the built-in sets has a slow twin in the tests,
// written from the definitions on a [4][4]int grid, and a differential test
// over random boards and weights.
package eval
