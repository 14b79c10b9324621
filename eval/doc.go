// Package eval implements the evaluation functions of evotune: feature sets,
// weight vectors compiled into row tables, and the YAML weights file through
// which tuned weights reach other engines.
//
// A FeatureSet is a name and an ordered list of features, each with a
// written definition (repeated in the README's "Feature definitions" so that
// another engine can implement it). Set, Names and Lookup read one registry;
// adding a set is a file in this package and a line in the registry, and
// nothing outside the package changes. The sets:
//
//   - standard: monotonicity, smoothness, empty, corner, merge (DESIGN.md).
//   - classic: the fixed reference evaluator of DESIGN.md, its three terms
//     empty, mono and smooth exposed as features, so its weights can be
//     tuned and exported too; with its default weights 27, 10, 3 it
//     evaluates every board exactly as DESIGN.md states.
//
// A set may declare shape parameters (FeatureSet.Params: name, default,
// bounds), numbers that change the features themselves; a candidate is then
// a weight vector and a parameter vector, compiled together by
// CompileParams, and a tuner tunes both. The nneonneo set (the heuristic of
// nneonneo/2048-ai, with its two exponents as parameters; nneonneo.go)
// compiles into a float32 line table built operation for operation as that
// program builds its own, so its values equal the program's bit for bit.
// It is not yet in the registry: it joins it with the weights file that
// records parameters.
//
// An evaluation is Σ w[i]·feature[i](board), and it runs at every leaf of
// every search, so FeatureSet.Compile folds a weight vector into tables once
// per candidate: for standard, every feature but corner is a sum over the 8
// lines (empty a sum over the 4 rows, which the table carries at half weight
// for rows and columns alike), so one 65536-entry float64 table indexed by a
// line's 16 bits serves both, and a board costs 8 look-ups (4 rows of the
// board, 4 of its transpose) plus a 32-entry corner table indexed by a key
// computed from two 64 KiB byte tables. A Compiled is immutable, shared
// between goroutines, and does not allocate.
//
// Scale: every built-in set is linear in its weights (ScaleInvariant), so
// when the search scores leaves by the evaluation alone, multiplying every
// weight by a positive constant changes no decision, and a tuner should not
// spend a dimension on scale: hold the weight at FeatureSet.Reference at its
// default, or map vectors through FeatureSet.Normalize. When the search adds
// move scores (the default play-time expectimax), the scale matters and every
// weight must be tuned.
//
// The weights file (format evotune.weights/v1, or v2 when it must say
// more: shape parameters, the nneonneo search, a probability cutoff) names
// the set, maps each feature to its weight and each parameter to its value,
// optionally records the search and the provenance of the weights, and
// carries golden checks: boards with their feature vectors and values under
// the file's parameters. ParseWeights decodes strictly and verifies the checks; every
// error names the file and line. It decodes with internal/yamlx, the strict
// decoder the tuner's configs are read with too, into the file's form (a
// struct per mapping), keeping the feature maps as nodes until the file has
// named its set; the format's rules (v2 keys, ranges, the checks) are
// checked after decoding, at the lines yamlx recorded. WeightsFile.Marshal encodes it (callers
// persist the bytes with their atomic writer) and always writes checks, so a port of the features to another
// engine can verify itself the way "evotune check" does.
//
// Every fast path has a slow twin in the tests, written from the definitions
// on a [4][4]int grid, and a differential test over random boards and
// weights.
package eval
