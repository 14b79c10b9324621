package main

import (
	"flag"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The flag package's parse errors, which say what went wrong but not what
// a flag takes: "invalid value "-1" for flag -seed: parse error".
var (
	invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value "((?:[^"\\]|\\.)*)" for (?:flag )?-([^:]+): `)
	needsValue   = regexp.MustCompile(`^flag needs an argument: -(.+)$`)
	notDefined   = regexp.MustCompile(`^flag provided but not defined: -(.+)$`)
)

// flagParseError rewrites a parse error of fs into one line that names the
// flag as the usage does (--name), the value given, and what the flag
// allows; an error it does not know is returned as it is.
func flagParseError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			return fmt.Errorf("flag --%s: %q: want %s", f.Name, unquote(m[1]), allowed(f))
		}
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[1]); f != nil {
			return fmt.Errorf("flag --%s needs a value: %s", f.Name, allowed(f))
		}
	}
	if m := notDefined.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		sort.Strings(names)
		return fmt.Errorf("unknown flag --%s (flags: %s)", m[1], strings.Join(names, ", "))
	}
	return err
}

// unquote undoes the flag package's %q of a value; the value itself if
// that fails.
func unquote(s string) string {
	var v string
	if _, err := fmt.Sscanf(`"`+s+`"`, "%q", &v); err != nil {
		return s
	}
	return v
}

// allowed says what values f takes, by the type of its value (every flag
// of evotune is a flag.Getter).
func allowed(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a value as the flag's usage describes it"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false (the flag alone means true)"
	case uint64:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxUint64))
	case int:
		return "a whole number"
	case float64:
		return "a number, such as 2 or 0.5"
	case time.Duration:
		return "a duration: a number and a unit, such as 90s, 10m or 8h (units ns, us, ms, s, m, h)"
	}
	return "a value as the flag's usage describes it"
}
