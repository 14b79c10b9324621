package yamlx

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

var errTest = errors.New("test: bad file")

var testFile = File{Name: "t.yaml", Root: "test file", Kind: errTest}

// wait reads a duration the way a config does: its error is the message.
type wait time.Duration

func (w *wait) UnmarshalText(text []byte) error {
	d, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("%q: want a duration such as 90m", text)
	}
	*w = wait(d)
	return nil
}

type inner struct {
	Depth int     `yaml:"depth,required"`
	Cut   float64 `yaml:"cut"`
}

type doc struct {
	Name   string             `yaml:"name"`
	Seed   uint64             `yaml:"seed"`
	On     bool               `yaml:"on"`
	Small  int8               `yaml:"small"`
	Wait   wait               `yaml:"wait"`
	Inner  inner              `yaml:"inner"`
	Opt    *inner             `yaml:"opt"`
	Width  *int               `yaml:"width"`
	Map    map[string]float64 `yaml:"map"`
	Range  []int              `yaml:"range"`
	Items  []inner            `yaml:"items"`
	Raw    *yaml.Node         `yaml:"raw"`
	Plain  int                // no tag: its name in lower case
	Skip   int                `yaml:"-"`
	hidden int
}

func decode(t *testing.T, text string) (*doc, *Lines, error) {
	t.Helper()
	root, err := testFile.Parse([]byte(text))
	if err != nil {
		return nil, nil, err
	}
	var d doc
	l := NewLines(testFile)
	err = l.Decode(root, "", &d)
	return &d, l, err
}

func TestDecode(t *testing.T) {
	d, l, err := decode(t, `name: x
seed: 0x10
on: true
small: -128
wait: 90m
inner: {depth: 3, cut: -0}
opt:
map:
  b: 2
  a: 1_000
range: [1, 2]
items:
  - {depth: 1}
  - depth: 2
    cut: 0.5
raw: [anything, {at: all}]
plain: 7
`)
	if err != nil {
		t.Fatal(err)
	}
	want := doc{Name: "x", Seed: 16, On: true, Small: -128, Wait: wait(90 * time.Minute), Inner: inner{Depth: 3},
		Map: map[string]float64{"a": 1000, "b": 2}, Range: []int{1, 2}, Items: []inner{{Depth: 1}, {Depth: 2, Cut: 0.5}}, Plain: 7}
	raw := d.Raw
	d.Raw = nil
	if !reflect.DeepEqual(*d, want) {
		t.Errorf("decoded %+v\nwant    %+v", *d, want)
	}
	if raw == nil || raw.Kind != yaml.SequenceNode || raw.Line != 16 {
		t.Errorf("raw node %+v, want the list at line 16", raw)
	}
	if !math.Signbit(d.Inner.Cut) {
		t.Errorf("inner.cut: -0 read as %v", d.Inner.Cut)
	}
	for field, line := range map[string]int{"": 1, "seed": 2, "inner": 6, "inner.cut": 6, "opt": 7, "map.a": 10, "items.2": 14, "items.2.cut": 15, "plain": 17} {
		if got, ok := l.Line(field); !ok || got != line {
			t.Errorf("Line(%q) = %d, %v; want %d", field, got, ok, line)
		}
	}
	if _, ok := l.Line("width"); ok {
		t.Error("Line(width): a key left out has a line")
	}
	for field, zero := range map[string]bool{"seed": false, "inner.cut": true, "opt": true, "items.1.cut": false, "width": false} {
		if l.Zero(field) != zero {
			t.Errorf("Zero(%q) = %v, want %v", field, !zero, zero)
		}
	}
	if got := l.Keys("map"); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("Keys(map) = %v, want the file's order [b a]", got)
	}
	l.Mark("later", 0)
	if line, ok := l.Line("later"); !ok || line != 0 {
		t.Errorf("a marked key: line %d, %v", line, ok)
	}
	// A kept node decodes later, with its path, into the same record.
	var rest []string
	if err := l.Decode(raw, "raw", &rest); err == nil || err.Error() != "t.yaml:16: raw: want a string" {
		t.Errorf("raw decoded later: %v", err)
	}
	var nodes []*yaml.Node
	if err := l.Decode(raw, "raw", &nodes); err != nil || len(nodes) != 2 || nodes[1].Kind != yaml.MappingNode {
		t.Errorf("raw decoded later into nodes: %v, %v", nodes, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"not a mapping", "- 1\n", "t.yaml:1: test file: want a mapping of keys to values"},
		{"unknown key", "name: x\nsede: 1\n", "t.yaml:2: sede: unknown key (allowed in test file: name, seed, on, small, wait, inner, opt, width, map, range, items, raw, plain)"},
		{"unknown nested key", "inner:\n  depth: 1\n  dept: 2\n", "t.yaml:3: inner.dept: unknown key (allowed in inner: depth, cut)"},
		{"unexported field", "hidden: 1\n", "t.yaml:1: hidden: unknown key (allowed in test file: name, seed, on, small, wait, inner, opt, width, map, range, items, raw, plain)"},
		{"key given twice", "seed: 1\nseed: 2\n", "t.yaml:2: seed: key given twice"},
		{"map key given twice", "map: {a: 1, a: 2}\n", "t.yaml:1: map.a: key given twice"},
		{"key not a name", "[a]: 1\n", "t.yaml:1: test file: a key must be a plain name (allowed in test file: name, seed, on, small, wait, inner, opt, width, map, range, items, raw, plain)"},
		{"missing key", "inner: {cut: 1}\n", `t.yaml:1: inner: missing key "depth"`},
		{"missing key in a list", "items:\n  - depth: 1\n  - cut: 2\n", `t.yaml:3: items.2: missing key "depth"`},
		{"string", "name: 3\n", `t.yaml:1: name: "3" is not a string`},
		{"string list", "name: [a]\n", "t.yaml:1: name: want a string"},
		{"bool", "on: yes\n", `t.yaml:1: on: "yes" is not true or false`},
		{"integer", "small: 1.5\n", `t.yaml:1: small: "1.5" is not an integer`},
		{"integer range", "small: 128\n", "t.yaml:1: small: 128 is out of range (want -128 to 127)"},
		{"unsigned", "seed: -1\n", "t.yaml:1: seed: -1 is out of range (want 0 to 18446744073709551615)"},
		{"number", "inner: {depth: 1, cut: \"0.5\"}\n", `t.yaml:1: inner.cut: "0.5" is not a number`},
		{"null number", "map: {a: ~}\n", `t.yaml:1: map.a: "~" is not a number`},
		{"not finite", "map: {a: .inf}\n", "t.yaml:1: map.a: .inf is not finite (want a finite number)"},
		{"number list", "map: {a: [1]}\n", "t.yaml:1: map.a: want a number"},
		{"pointer", "width: x\n", `t.yaml:1: width: "x" is not an integer`},
		{"text", "wait: soon\n", `t.yaml:1: wait: "soon": want a duration such as 90m`},
		{"text list", "wait: [1]\n", "t.yaml:1: wait: want a single value, not a list"},
		{"section", "inner: deep\n", "t.yaml:1: inner: want a mapping of keys to values"},
		{"map", "map: 3\n", "t.yaml:1: map: want a mapping of names to values"},
		{"list", "range: 3\n", "t.yaml:1: range: want a list"},
		{"list of mappings", "items: {depth: 1}\n", "t.yaml:1: items: want a list of mappings"},
		{"element not a mapping", "items:\n  - 3\n", "t.yaml:2: items.1: want a mapping of keys to values"},
		{"null element", "items:\n  - {depth: 1}\n  -\n", "t.yaml:3: items.2: want a mapping of keys to values"},
		{"list element", "range: [1, x]\n", `t.yaml:1: range: "x" is not an integer`},
		{"alias", "name: &n x\nplain: *n\n", "t.yaml:2: plain: YAML aliases are not allowed (write the value itself)"},
		{"merge key", "inner: &i {depth: 1}\nopt:\n  <<: *i\n", "t.yaml:3: opt.<<: unknown key (allowed in opt: depth, cut)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decode(t, tt.yaml)
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, errTest) || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s (a *FileError wrapping the file's Kind)", err, tt.want)
			}
		})
	}
}

// TestLinesErrorf checks the errors of checks made after decoding: at the
// key's line when the file wrote it, the document's line for the document.
func TestLinesErrorf(t *testing.T) {
	_, l, err := decode(t, "\nname: x\ninner:\n  depth: 0\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ field, want string }{
		{"inner.depth", "t.yaml:4: inner.depth: 0: want 1 or more"},
		{"seed", "t.yaml: seed: 0: want 1 or more"},
		{"", "t.yaml:2: test file: 0: want 1 or more"},
	} {
		if err := l.Errorf(tt.field, "%d: want 1 or more", 0); err.Error() != tt.want || !errors.Is(err, errTest) {
			t.Errorf("Errorf(%q) = %v, want %s", tt.field, err, tt.want)
		}
	}
}

// TestDecodeNothing: an empty document decodes to nothing, and null
// sections leave their values alone.
func TestDecodeNothing(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n", "~\n", "inner:\nopt: ~\nmap:\n"} {
		d, _, err := decode(t, text)
		if err != nil || !reflect.DeepEqual(*d, doc{}) {
			t.Errorf("%q: %+v, %v; want nothing decoded", text, *d, err)
		}
	}
}

// FuzzStrictDecode checks that no input makes the decoder panic and that
// every error names the file and a line within it.
func FuzzStrictDecode(f *testing.F) {
	f.Add([]byte("name: x\nseed: 1\ninner: {depth: 3}\nitems: [{depth: 1}]\nmap: {a: 1}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("opt:\n  <<: {depth: 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := decode(t, string(data))
		if err == nil {
			return
		}
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, errTest) || fe.File != "t.yaml" || fe.Line < 1 {
			t.Fatalf("error without the file and a line: %v", err)
		}
		if lines := 1 + strings.Count(string(data), "\n") + strings.Count(string(data), "\r"); fe.Line > lines+2 {
			t.Fatalf("error at line %d of a %d-line file: %v", fe.Line, lines, err)
		}
	})
}
