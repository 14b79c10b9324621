package objective

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A decimal is a JSON number read exactly: digits × 10^exp, with digits
// free of leading and trailing zeros ("" for zero), so that 8, 8.0, 80e-1
// and 0.8e1 are the same decimal. Counts and seeds are read this way, not
// through a float64: an optimizer's 24.0 (what Python's json.dumps writes
// for a float, whatever its value) is the whole number 24, and a seed
// near 2^64 keeps every digit.
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// maxExp bounds the exponents decimal keeps: a larger one only says "far
// out of range" (or "between 0 and 1" when negative), and must not cost
// memory or time.
const maxExp = 1 << 20

// readDecimal reads raw, a JSON value; false if it is not a JSON number.
func readDecimal(raw []byte) (decimal, bool) {
	s := string(raw)
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if !digitsOnly(intPart) || len(intPart) > 1 && intPart[0] == '0' || hasFrac && !digitsOnly(frac) {
		return decimal{}, false
	}
	if hasExp {
		sign := 1
		if e != "" && (e[0] == '+' || e[0] == '-') {
			sign = 1 - 2*btoi(e[0] == '-')
			e = e[1:]
		}
		if !digitsOnly(e) {
			return decimal{}, false
		}
		for _, c := range e {
			d.exp = min(d.exp*10+int(c-'0'), maxExp)
		}
		d.exp *= sign
	}
	d.digits = strings.TrimLeft(intPart+frac, "0")
	d.exp -= len(frac)
	trimmed := strings.TrimRight(d.digits, "0")
	d.exp += len(d.digits) - len(trimmed)
	d.digits = trimmed
	if d.digits == "" {
		d.neg, d.exp = false, 0 // -0.0 is 0
	}
	return d, true
}

func digitsOnly(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// whole reports whether d is a whole number.
func (d decimal) whole() bool { return d.exp >= 0 }

// uint64 returns d if it is a whole number in [0, 2^64).
func (d decimal) uint64() (uint64, bool) {
	if d.neg || !d.whole() || len(d.digits)+d.exp > 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(d.digits+strings.Repeat("0", d.exp), 10, 64)
	if d.digits == "" {
		n, err = 0, nil
	}
	return n, err == nil
}

// around returns the whole numbers next to d, a number that is not whole:
// its floor and its ceiling, as far as they are uint64s.
func (d decimal) around() (floor, ceil uint64, ok bool) {
	if d.neg || d.whole() {
		return 0, 0, false
	}
	n := len(d.digits) + d.exp // the digits before the point
	if n <= 0 {
		return 0, 1, true
	}
	floor, err := strconv.ParseUint(d.digits[:n], 10, 64)
	if err != nil || floor == math.MaxUint64 {
		return 0, 0, false
	}
	return floor, floor + 1, true
}

// wholeIn reads raw as a whole number in [lo, hi] for key: nil or a
// *badRequest saying what is wrong and, for a number with a fraction, the
// whole numbers next to it that would do.
func wholeIn(key string, raw []byte, lo, hi uint64) (uint64, error) {
	want := fmt.Sprintf("a whole number from %d to %d", lo, hi)
	d, ok := readDecimal(raw)
	if !ok {
		return 0, bad("%s: %s: want %s, as a JSON number, not %s", key, clip(raw), want, kindOf(raw))
	}
	if !d.whole() {
		return 0, bad("%s: %s: not a whole number: want %s%s", key, clip(raw), want, write(d, lo, hi))
	}
	if n, ok := d.uint64(); ok && n >= lo && n <= hi {
		return n, nil
	}
	return 0, bad("%s: %s: out of range: want %s", key, clip(raw), want)
}

// write names the whole numbers in [lo, hi] next to d, a number with a
// fraction: " (write 8 or 9)", " (write 1)", or "" where none is.
func write(d decimal, lo, hi uint64) string {
	floor, ceil, ok := d.around()
	if !ok {
		return ""
	}
	var ns []string
	for _, n := range []uint64{floor, ceil} {
		if n >= lo && n <= hi {
			ns = append(ns, strconv.FormatUint(n, 10))
		}
	}
	if len(ns) == 0 {
		return ""
	}
	return " (write " + strings.Join(ns, " or ") + ")"
}
