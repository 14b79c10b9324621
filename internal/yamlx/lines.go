package yamlx

// Lines is what decoding a file leaves behind: the line of every key it
// decoded, by dotted path ("search.depth", "init.empty", "stages.2.games",
// "" for the document), the keys under each path in the file's order, and
// the keys whose values were their type's zero. Checks made after decoding
// (a value out of range, a key one version of a format does not have) use
// it to name the line; defaults use it to tell a key left out from one
// written as 0.
type Lines struct {
	file File
	line map[string]int
	zero map[string]bool
	keys map[string][]string
}

// NewLines returns an empty record of the file f, to decode into.
func NewLines(f File) *Lines {
	return &Lines{file: f, line: map[string]int{}, zero: map[string]bool{}, keys: map[string][]string{}}
}

// File returns the file the lines are of.
func (l *Lines) File() *File { return &l.file }

// Line returns the line of the key at path field, and whether the file
// wrote that key.
func (l *Lines) Line(field string) (line int, ok bool) {
	line, ok = l.line[field]
	return line, ok
}

// Zero reports whether the file wrote the key at path field with its
// type's zero value (0, "", false, an empty mapping).
func (l *Lines) Zero(field string) bool { return l.zero[field] }

// Keys returns the keys the file wrote under the mapping at path field, in
// the file's order.
func (l *Lines) Keys(field string) []string { return l.keys[field] }

// Mark records the key at path field as written at line (0: somewhere the
// file does not say), for a key its caller read by other means.
func (l *Lines) Mark(field string, line int) { l.line[field] = line }

// Errorf returns the error about the key at path field, at its line if the
// file wrote it (else without a line: a default, say).
func (l *Lines) Errorf(field, format string, args ...any) error {
	return l.file.At(l.line[field], l.name(field), format, args...)
}

// record remembers the key key of the mapping at path parent, at line.
func (l *Lines) record(parent, key string, line int) string {
	field := join(parent, key)
	l.line[field] = line
	l.keys[parent] = append(l.keys[parent], key)
	return field
}

// name is field as errors show it: the file's Root for the document.
func (l *Lines) name(field string) string {
	if field == "" {
		return l.file.Root
	}
	return field
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}
