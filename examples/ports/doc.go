// Package ports implements no Go API: it holds ports of evotune's weights
// files to other languages, the model for a port in any language
// (docs/weights-file.md), and the tests that run them as real child
// processes.
//
//   - python/evotune_weights.py: Python 3, standard library only. It reads a
//     weights file with a small reader of the YAML evotune writes, computes
//     the features of the standard and nneonneo sets, evaluates boards (for
//     nneonneo also in the program's float32 arithmetic), and reproduces the
//     file's golden checks as evotune check does: features exactly, values
//     within eval.CheckTolerance. Its exit status is 0 when every check
//     passed, 1 when one failed, 2 when the file cannot be read.
//
// The tests tune both sets for a few seconds with package tuner and export
// the result the way evotune export does, then run the port on the exported
// files, on a run stopped mid-way, on the weights files in configs/ and
// eval/testdata/, and on files with random weights and shape parameters;
// every one must pass. The same files altered (a check's value, a feature, a
// weight) must fail, with the verdict evotune's own reader gives at the
// tolerance's edge; unreadable files must exit 2 with one line naming the
// file and line. On random boards the port's features, values and float32
// values must equal package eval's bit for bit. They are skipped where
// python3 is missing.
package ports
