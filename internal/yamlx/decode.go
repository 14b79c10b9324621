package yamlx

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Decode decodes the node n, at path field ("" for a document's root), into
// the value v points to, strictly (see the package doc), and records its
// keys in l. A nil n (an empty document) leaves v as it is.
func (l *Lines) Decode(n *yaml.Node, field string, v any) error {
	if n == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic(fmt.Sprintf("yamlx: Decode into %T, want a non-nil pointer", v))
	}
	if field == "" {
		l.line[""] = max(n.Line, 1)
	}
	return l.value(n, rv.Elem(), field)
}

var (
	nodeType = reflect.TypeFor[*yaml.Node]()
	textType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (l *Lines) value(n *yaml.Node, v reflect.Value, field string) error {
	if n.Kind == yaml.AliasNode {
		// An alias lets a few bytes stand for billions of nodes, and no
		// input of evotune needs one.
		return l.errorf(n, field, "YAML aliases are not allowed (write the value itself)")
	}
	switch {
	case v.Type() == nodeType:
		v.Set(reflect.ValueOf(n))
		return nil
	case reflect.PointerTo(v.Type()).Implements(textType):
		return l.text(n, v, field)
	}
	switch v.Kind() {
	case reflect.Pointer:
		return l.pointer(n, v, field)
	case reflect.Struct:
		return l.structure(n, v, field)
	case reflect.Map:
		return l.mapping(n, v, field)
	case reflect.Slice:
		return l.list(n, v, field)
	}
	return l.scalar(n, v, field)
}

// pointer decodes into a new value, so that nil tells a key left out; a
// section written with nothing under it (null) stays nil.
func (l *Lines) pointer(n *yaml.Node, v reflect.Value, field string) error {
	if k := v.Type().Elem().Kind(); isNull(n) && (k == reflect.Struct || k == reflect.Map) {
		return nil
	}
	p := reflect.New(v.Type().Elem())
	if err := l.value(n, p.Elem(), field); err != nil {
		return err
	}
	v.Set(p)
	return nil
}

// A structKey is a key a struct field takes: its yaml tag's name (the
// field's name in lower case without one), and whether the tag says
// ",required". Unexported fields and fields tagged "-" take none.
type structKey struct {
	name     string
	index    int
	required bool
}

func structKeys(t reflect.Type) []structKey {
	var keys []structKey
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, structKey{name, i, slices.Contains(strings.Split(opts, ","), "required")})
	}
	return keys
}

// structure decodes a mapping into a struct. Every key is checked (known,
// given once) before any value is decoded, so the first error of a mapping
// is about its keys; the values are then decoded in the file's order.
func (l *Lines) structure(n *yaml.Node, v reflect.Value, field string) error {
	if isNull(n) {
		return nil // a section with nothing under it
	}
	if n.Kind != yaml.MappingNode {
		return l.errorf(n, field, "want a mapping of keys to values")
	}
	keys := structKeys(v.Type())
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	where := l.name(field)
	given := make([]int, 0, len(n.Content)/2) // the index in keys of each key in n
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return l.errorf(k, field, "a key must be a plain name (allowed in %s: %s)", where, strings.Join(names, ", "))
		}
		j := slices.Index(names, k.Value)
		switch {
		case j < 0:
			return l.errorf(k, join(field, k.Value), "unknown key (allowed in %s: %s)", where, strings.Join(names, ", "))
		case slices.Contains(given, j):
			return l.errorf(k, join(field, k.Value), "key given twice")
		}
		given = append(given, j)
		l.record(field, k.Value, k.Line)
	}
	for j, k := range keys {
		if k.required && !slices.Contains(given, j) {
			return l.errorf(n, field, "missing key %q", k.name)
		}
	}
	for i, j := range given {
		sub, f := join(field, keys[j].name), v.Field(keys[j].index)
		if err := l.value(n.Content[2*i+1], f, sub); err != nil {
			return err
		}
		if isZero(f) {
			l.zero[sub] = true
		}
	}
	return nil
}

// mapping decodes a mapping into a map from names to values; each entry
// is a key of its own ("init.empty").
func (l *Lines) mapping(n *yaml.Node, v reflect.Value, field string) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return l.errorf(n, field, "want a mapping of names to values")
	}
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		panic(fmt.Sprintf("yamlx: %s: cannot decode into %v: map keys must be strings", field, t))
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return l.errorf(k, field, "a key must be a plain name")
		}
		sub, key := join(field, k.Value), reflect.ValueOf(k.Value).Convert(t.Key())
		if m.MapIndex(key).IsValid() {
			return l.errorf(k, sub, "key given twice")
		}
		l.record(field, k.Value, k.Line)
		e := reflect.New(t.Elem()).Elem()
		if err := l.value(n.Content[i+1], e, sub); err != nil {
			return err
		}
		if isZero(e) {
			l.zero[sub] = true
		}
		m.SetMapIndex(key, e)
	}
	v.Set(m)
	return nil
}

// list decodes a sequence into a slice. A list of mappings numbers its
// elements as people count, from 1 ("stages.2.games"), and records each
// element's line; the elements of a list of values are named by the list.
func (l *Lines) list(n *yaml.Node, v reflect.Value, field string) error {
	e := v.Type().Elem()
	mappings := e != nodeType && (e.Kind() == reflect.Struct || e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.Struct)
	if n.Kind != yaml.SequenceNode {
		if mappings {
			return l.errorf(n, field, "want a list of mappings")
		}
		return l.errorf(n, field, "want a list")
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		sub := field
		if mappings {
			sub = l.record(field, strconv.Itoa(i+1), c.Line)
			if c.Kind != yaml.MappingNode {
				return l.errorf(c, sub, "want a mapping of keys to values")
			}
		}
		if err := l.value(c, s.Index(i), sub); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// text decodes a scalar with the type's own UnmarshalText, whose error
// is the message: it says what is wrong and what is allowed.
func (l *Lines) text(n *yaml.Node, v reflect.Value, field string) error {
	if n.Kind != yaml.ScalarNode {
		return l.errorf(n, field, "want a single value, not %s", kindName(n.Kind))
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
		return l.errorf(n, field, "%v", err)
	}
	return nil
}

func kindName(k yaml.Kind) string {
	if k == yaml.SequenceNode {
		return "a list"
	}
	return "a mapping"
}

// scalar decodes a string, a boolean, an integer or a float. A value must
// have its type's YAML tag: "3" (quoted) is no number and 3 no string.
func (l *Lines) scalar(n *yaml.Node, v reflect.Value, field string) error {
	want := map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false", reflect.Float64: "a number"}[v.Kind()]
	if want == "" {
		want = "an integer"
	}
	if n.Kind != yaml.ScalarNode {
		return l.errorf(n, field, "want %s", want)
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if tag != "!!str" {
			return l.errorf(n, field, "%q is not a string", n.Value)
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return l.errorf(n, field, "%q is not true or false", n.Value)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var i int64
		if tag != "!!int" {
			return l.errorf(n, field, "%q is not an integer", n.Value)
		}
		if n.Decode(&i) != nil || v.OverflowInt(i) {
			bits := v.Type().Bits()
			return l.errorf(n, field, "%s is out of range (want %d to %d)", n.Value, int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var u uint64
		if tag != "!!int" {
			return l.errorf(n, field, "%q is not an integer", n.Value)
		}
		if n.Decode(&u) != nil || v.OverflowUint(u) {
			return l.errorf(n, field, "%s is out of range (want 0 to %d)", n.Value, uint64(math.MaxUint64)>>(64-v.Type().Bits()))
		}
		v.SetUint(u)
	case reflect.Float64:
		x, err := number(n)
		if err != nil {
			return l.errorf(n, field, "%v", err)
		}
		v.SetFloat(x)
	default:
		panic(fmt.Sprintf("yamlx: %s: cannot decode into %v", field, v.Type()))
	}
	return nil
}

// number reads a finite float64. It parses the text with strconv, which
// reads every float strconv writes back to the same bits ("-0" included,
// which YAML would read as the integer 0); other YAML number forms (0x1f,
// 1_000) go through the YAML decoder.
func number(n *yaml.Node) (float64, error) {
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
		return 0, fmt.Errorf("%q is not a number", n.Value)
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil && n.Decode(&x) != nil {
		return 0, fmt.Errorf("%q is not a number", n.Value)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s is not finite (want a finite number)", n.Value)
	}
	return x, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// isZero reports whether a decoded value is its type's zero, -0 included
// (a file that writes "loss: -0" means 0).
func isZero(v reflect.Value) bool {
	if v.Kind() == reflect.Float64 {
		return v.Float() == 0
	}
	return v.IsZero()
}

func (l *Lines) errorf(n *yaml.Node, field, format string, args ...any) error {
	return l.file.Errorf(n, l.name(field), format, args...)
}
