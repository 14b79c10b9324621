package playerpool

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Param is a parameter a player declares: a number with a type, a
// default and inclusive bounds.
type Param struct {
	Name string
	// Int says the parameter takes integers: evotune rounds a value to the
	// nearest one before set, and its default and bounds are integers.
	Int               bool
	Default, Min, Max float64
}

// Check reports the first thing wrong with p, naming it: a name of other
// characters, a bound or default that is not finite, Min > Max, a default
// outside [Min, Max], or an int parameter with a value that is not an
// integer.
func (p Param) Check() error {
	if !nameRE.MatchString(p.Name) {
		return broke(ruleParamName, fmt.Errorf("%w: parameter name %q: want letters, digits, '.', '_' or '-'", ErrProtocol, p.Name))
	}
	for _, v := range []struct {
		what string
		x    float64
	}{{"default", p.Default}, {"min", p.Min}, {"max", p.Max}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return broke(ruleParamNumber, fmt.Errorf("%w: parameter %s: %s %v is not finite", ErrProtocol, p.Name, v.what, v.x))
		}
		if p.Int && v.x != math.Trunc(v.x) {
			return broke(ruleParamNumber, fmt.Errorf("%w: parameter %s: %s %v of an int parameter is not an integer", ErrProtocol, p.Name, v.what, v.x))
		}
	}
	if p.Min > p.Max {
		return broke(ruleParamBounds, fmt.Errorf("%w: parameter %s: min %v > max %v", ErrProtocol, p.Name, p.Min, p.Max))
	}
	if p.Default < p.Min || p.Default > p.Max {
		return broke(ruleParamBounds, fmt.Errorf("%w: parameter %s: default %v outside [%v, %v]", ErrProtocol, p.Name, p.Default, p.Min, p.Max))
	}
	return nil
}

// typeName is the parameter's type as the protocol writes it.
func (p Param) typeName() string {
	if p.Int {
		return "int"
	}
	return "float"
}

// checkParams checks every parameter and that no name repeats.
func checkParams(ps []Param) error {
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if err := p.Check(); err != nil {
			return err
		}
		if seen[p.Name] {
			return broke(ruleParamOnce, fmt.Errorf("%w: parameter %s declared twice", ErrProtocol, p.Name))
		}
		seen[p.Name] = true
	}
	return nil
}

// FormatID returns the id line of a player.
func FormatID(name, version string) string { return "id " + name + " " + version }

// ParseID reads an id line: "id NAME VERSION", VERSION the rest of the
// line and not empty.
func ParseID(line string) (name, version string, err error) {
	rest, ok := strings.CutPrefix(line, "id ")
	if !ok {
		return "", "", broke(ruleID, fmt.Errorf("%w: want \"id NAME VERSION\", got %q", ErrProtocol, line))
	}
	name, version, ok = strings.Cut(rest, " ")
	if !ok || version == "" || !nameRE.MatchString(name) {
		return "", "", broke(ruleID, fmt.Errorf("%w: %q: want \"id NAME VERSION\", NAME of letters, digits, '.', '_' or '-' and a VERSION", ErrProtocol, line))
	}
	return name, version, nil
}

// FormatParam returns the param line declaring p.
func FormatParam(p Param) string {
	return "param " + p.Name + " " + p.typeName() + " " + formatNumber(p.Default) + " " + formatNumber(p.Min) + " " + formatNumber(p.Max)
}

// ParseParam reads a param line, "param NAME float|int DEFAULT MIN MAX",
// and checks the declaration (Param.Check).
func ParseParam(line string) (Param, error) {
	f := strings.Split(line, " ")
	if len(f) != 6 || f[0] != "param" {
		r := ruleParamForm
		if f[0] != "param" {
			r = ruleProtocolLine // not meant as a declaration: a debug line, say
		}
		return Param{}, broke(r, fmt.Errorf("%w: want \"param NAME float|int DEFAULT MIN MAX\", got %q", ErrProtocol, line))
	}
	p := Param{Name: f[1]}
	switch f[2] {
	case "float":
	case "int":
		p.Int = true
	default:
		return Param{}, broke(ruleParamType, fmt.Errorf("%w: %q: type %q: want float or int", ErrProtocol, line, f[2]))
	}
	for i, dst := range []*float64{&p.Default, &p.Min, &p.Max} {
		v, err := parseNumber(f[3+i])
		if err != nil {
			return Param{}, broke(ruleParamNumber, fmt.Errorf("%w: %q: %s: %v", ErrProtocol, line, [...]string{"default", "min", "max"}[i], err))
		}
		*dst = v
	}
	if err := p.Check(); err != nil {
		return Param{}, fmt.Errorf("%q: %w", line, err)
	}
	return p, nil
}

// parseNumber reads a finite decimal number. strconv would take "NaN",
// "Inf", hex floats and underscores too; the protocol has none of them.
func parseNumber(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "xXpP_") {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite decimal number", s)
	}
	return v, nil
}

// formatNumber writes x as the shortest decimal that reads back as x, so a
// player that parses it with any correct strtod sets exactly the value the
// tuner meant.
func formatNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// setValue is the value sent for p: x itself, or for an int parameter x
// rounded to the nearest integer (halves away from zero).
func setValue(p Param, x float64) float64 {
	if p.Int {
		return math.Round(x)
	}
	return x
}

// FormatSet returns the set line giving ps the values xs, in declaration
// order, int parameters rounded. It refuses a value that is not finite or
// that lies outside its parameter's bounds, after rounding: the player
// would refuse it too, with a vaguer message.
func FormatSet(ps []Param, xs []float64) (string, error) {
	if len(xs) != len(ps) {
		return "", fmt.Errorf("playerpool: %d values for %d parameters", len(xs), len(ps))
	}
	var sb strings.Builder
	sb.WriteString("set")
	for i, p := range ps {
		x := setValue(p, xs[i])
		if math.IsNaN(x) || math.IsInf(x, 0) || x < p.Min || x > p.Max {
			return "", fmt.Errorf("playerpool: parameter %s = %v, want a number in [%v, %v]", p.Name, xs[i], p.Min, p.Max)
		}
		sb.WriteByte(' ')
		sb.WriteString(p.Name)
		sb.WriteByte('=')
		sb.WriteString(formatNumber(x))
	}
	return sb.String(), nil
}

// ParseSet reads a set line against the declared parameters: every one,
// in declaration order, each within its bounds and, if int, an integer.
// It returns the values in order.
func ParseSet(line string, ps []Param) ([]float64, error) {
	rest, ok := strings.CutPrefix(line, "set")
	if !ok || (rest != "" && rest[0] != ' ') {
		return nil, fmt.Errorf("%w: want \"set NAME=VALUE ...\", got %q", ErrProtocol, line)
	}
	var f []string
	if rest != "" {
		f = strings.Split(rest[1:], " ")
	}
	xs := make([]float64, len(ps))
	for i, tok := range f {
		name, val, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("%w: set: %q is not NAME=VALUE", ErrProtocol, tok)
		}
		if i >= len(ps) {
			return nil, fmt.Errorf("%w: set: unknown parameter %q (%d declared)", ErrProtocol, name, len(ps))
		}
		p := ps[i]
		if name != p.Name {
			if paramIndex(ps, name) < 0 {
				return nil, fmt.Errorf("%w: set: unknown parameter %q", ErrProtocol, name)
			}
			return nil, fmt.Errorf("%w: set: parameter %d is %s, got %s: want every parameter in declaration order", ErrProtocol, i+1, p.Name, name)
		}
		x, err := parseNumber(val)
		if err != nil {
			return nil, fmt.Errorf("%w: set: %s: %v", ErrProtocol, name, err)
		}
		if p.Int && x != math.Trunc(x) {
			return nil, fmt.Errorf("%w: set: %s = %s: an int parameter takes integers", ErrProtocol, name, val)
		}
		if x < p.Min || x > p.Max {
			return nil, fmt.Errorf("%w: set: %s = %s outside [%v, %v]", ErrProtocol, name, val, p.Min, p.Max)
		}
		xs[i] = x
	}
	if len(f) < len(ps) {
		return nil, fmt.Errorf("%w: set: parameter %s missing", ErrProtocol, ps[len(f)].Name)
	}
	return xs, nil
}

func paramIndex(ps []Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}
