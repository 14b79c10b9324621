// Package yamlx implements the strict YAML decoding every input file of
// evotune goes through: the tuner's configs, the weights files, and any
// file read later. It knows nothing of what the keys mean; it makes sure
// that what a file says is exactly what its reader gets, and that every
// problem names the file, the line and the key.
//
// Reading is two steps. File.Parse reads the text: exactly one document of
// valid UTF-8 without control characters, or none. It corrects the line
// numbers the YAML library reports (which counts some from 0 and names the
// start of a collection rather than the problem). Lines.Decode then walks
// the document's nodes into a Go value by reflection, the yaml struct tags
// naming the keys:
//
//   - every key of a mapping must be a field's (yaml:"name"), given once; a
//     field tagged ",required" must be there;
//   - a value must have its Go type's YAML tag ("3" is no number and 3 no
//     string); integers must fit; floats must be finite, and are read with
//     strconv so that every float written by strconv reads back bit for bit;
//   - aliases are refused; a mapping written as null (a section with
//     nothing under it) leaves its struct, map or pointer as it is;
//   - a type that implements encoding.TextUnmarshaler reads itself from a
//     scalar, whatever its YAML tag (a duration, a board), and its error is
//     the message: the value and what is allowed;
//   - a *yaml.Node field keeps its node undecoded, for a reader that must
//     know more before it can decode it (the feature maps of a weights file,
//     whose keys are the features of the set the file names): Decode that
//     node later with its path, into the same Lines.
//
// Decoding does not validate. It records in Lines the line of every key, by
// dotted path ("search.depth", "init.empty", "stages.2.games"), and which
// keys were written with their zero value, so that the checks made after
// decoding (a value out of range, a key one version of a format lacks) still
// name the line, and defaults can tell a key left out from a key written as
// 0. Every error is a *FileError, "file:line: field: what is allowed",
// wrapping the sentinel of the kind of file (File.Kind), so errors.Is tells
// which input was bad.
//
// One vocabulary for every file: "search.dept: unknown key (allowed in
// search: algorithm, depth, ...)", "seed: key given twice", "weights.empty:
// \"lots\" is not a number", "weights file: missing key \"format\"".
package yamlx
