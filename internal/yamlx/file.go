package yamlx

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// A FileError is a problem in an input file (a weights file, a config) or in
// a value that overrides one: "file:line: field: what is allowed". It wraps
// Kind, the sentinel of the kind of file (eval.ErrWeightsFile,
// tuner.ErrConfig), so errors.Is tells which input was bad.
type FileError struct {
	File  string
	Line  int    // 1-based; 0 when the value did not come from the file (a default, a flag)
	Field string // dotted path such as "search.depth"; "" for the file as a whole
	Msg   string // what is wrong and what is allowed
	Kind  error
}

func (e *FileError) Error() string {
	var parts []string
	switch {
	case e.File != "" && e.Line > 0:
		parts = append(parts, fmt.Sprintf("%s:%d", e.File, e.Line))
	case e.File != "":
		parts = append(parts, e.File)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	return strings.Join(append(parts, e.Msg), ": ")
}

func (e *FileError) Unwrap() error { return e.Kind }

// A File is one input file of a kind: every error about it is a *FileError
// wrapping Kind.
type File struct {
	Name string // the name errors start with
	// Root is what errors call the document as a whole ("config",
	// "weights file"): the field of a problem with its top-level mapping.
	Root string
	Kind error
}

// At returns the error at a line about a field ("" for none).
func (f *File) At(line int, field, format string, args ...any) error {
	return &FileError{File: f.Name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...), Kind: f.Kind}
}

// Errorf returns the error at node n about a field.
func (f *File) Errorf(n *yaml.Node, field, format string, args ...any) error {
	return f.At(max(n.Line, 1), field, format, args...)
}

// Parse decodes data, which must hold at most one YAML document of valid
// UTF-8 text without control characters, and returns the document's root
// node, or nil for an empty document (nothing but comments and blanks).
func (f *File) Parse(data []byte) (*yaml.Node, error) {
	if err := f.scanText(data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, f.yamlError(err, data)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, f.At(max(extra.Line, 1), "", "a second YAML document (want exactly one)")
	case err != io.EOF:
		return nil, f.yamlError(err, data)
	}
	if len(doc.Content) != 1 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// scanText rejects what YAML cannot carry (invalid UTF-8, control
// characters) with the line it is on; the YAML decoder's own message would
// not say where.
func (f *File) scanText(data []byte) error {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return f.At(line, "", "invalid UTF-8 (YAML is UTF-8 text)")
		case isBreak(r):
			if r == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				size++
			}
			line++
		case r == '\t' || r == 0xFEFF:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) && r != 0x85 || r == 0xFFFE || r == 0xFFFF:
			return f.At(line, "", "control character %U (not allowed in YAML)", r)
		}
		i += size
	}
	return nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
var yamlAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// yamlParserProblems are the problems the YAML parser (as opposed to its
// scanner) reports. For them the decoder's "line N" counts from 0 and names
// the line where the enclosing collection starts.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlError turns a decoder error into a FileError. The decoder says
// "line N" (from 1 for scanner problems, from 0 for parser problems) except
// for problems on the first line, at the end of the input, and for unknown
// aliases, whose lines are found here.
func (f *File) yamlError(err error, data []byte) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if slices.Contains(yamlParserProblems, m[2]) {
			line++
		}
		// A problem at the end of the input is on the line after the
		// last.
		line = min(line, lineCount(data))
		return f.At(max(line, 1), "", "invalid YAML: %s", m[2])
	}
	line := 1
	switch {
	case strings.Contains(msg, "end of stream"):
		line = lineCount(data)
	case yamlAnchor.MatchString(msg):
		if i := bytes.Index(data, []byte("*"+yamlAnchor.FindStringSubmatch(msg)[1])); i >= 0 {
			line = 1 + bytes.Count(data[:i], []byte("\n"))
		}
	}
	return f.At(line, "", "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// lineCount returns the number of the last line of data, at least 1,
// counting line breaks as YAML does (see isBreak).
func lineCount(data []byte) int {
	n, last := 1, true
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		last = false
		if isBreak(r) {
			if r == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				size++
			}
			n++
			last = true
		}
		i += size
	}
	if last && n > 1 {
		n-- // a final line break does not start a line
	}
	return n
}

// isBreak reports whether YAML reads r as a line break: LF, CR (CR LF
// counts once), NEL, LS and PS.
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}
