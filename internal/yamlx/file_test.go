package yamlx

import (
	"errors"
	"testing"
)

// TestParseErrors checks the lines Parse gives the YAML library's problems:
// the line the problem is on, whatever line the library names.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"open list", "name: x\nmap:\n  a: [0, 1\nseed: 2\n", "t.yaml:3: invalid YAML: did not find expected ',' or ']'"},
		{"open mapping", "name: x\ninner: {depth: 3\n", "t.yaml:2: invalid YAML: did not find expected ',' or '}'"},
		{"open quote", "seed: 1\nname: 'x\n", "t.yaml:2: invalid YAML: found unexpected end of stream"},
		{"first line", "\tname: x\n", "t.yaml:1: invalid YAML: found character that cannot start any token"},
		{"unknown anchor", "name: x\n\nseed: *nope\n", "t.yaml:3: invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", "name: x\nseed: 1\n---\nseed: 2\n", "t.yaml:3: a second YAML document (want exactly one)"},
		{"control character", "name: x\nseed: \x01\n", "t.yaml:2: control character U+0001 (not allowed in YAML)"},
		{"control character after CR LF", "name: x\r\nseed: \x7f\r\n", "t.yaml:2: control character U+007F (not allowed in YAML)"},
		{"invalid UTF-8", "name: x\n\nseed: \xff\n", "t.yaml:3: invalid UTF-8 (YAML is UTF-8 text)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testFile.Parse([]byte(tt.yaml))
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, errTest) || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s (a *FileError wrapping the file's Kind)", err, tt.want)
			}
		})
	}
}

func TestFileErrorText(t *testing.T) {
	for _, tt := range []struct {
		e    FileError
		want string
	}{
		{FileError{File: "c.yaml", Line: 3, Field: "search.depth", Msg: "0: want 1 to 20"}, "c.yaml:3: search.depth: 0: want 1 to 20"},
		{FileError{File: "c.yaml", Field: "fitness.games", Msg: "0: want at least 1"}, "c.yaml: fitness.games: 0: want at least 1"},
		{FileError{Field: "workers", Msg: "-1: want 0 or more"}, "workers: -1: want 0 or more"},
		{FileError{File: "c.yaml", Line: 2, Msg: "a second YAML document"}, "c.yaml:2: a second YAML document"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.e, got, tt.want)
		}
	}
}
