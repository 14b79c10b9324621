package proctree

import (
	"bytes"
	"strings"
	"testing"
)

// TestLogBudget: a Log passes its budget on, then its marker once; lines
// its owner adds share the budget, and a line is cut by it like the rest.
func TestLogBudget(t *testing.T) {
	var dst bytes.Buffer
	l := NewLog(&dst, 10, "|M")
	l.Write([]byte("abcd"))
	l.WriteLine([]byte("ef"))
	if got := dst.String(); got != "abcdef\n" {
		t.Fatalf("within the budget: %q", got)
	}
	l.WriteLine([]byte("ghijk"))
	l.Write([]byte("more"))
	l.WriteLine(nil)
	if got := dst.String(); got != "abcdef\nghi|M" {
		t.Errorf("past the budget: %q, want %q", got, "abcdef\nghi|M")
	}
	if got := l.Tail(); got != "abcdef | ghi|M" {
		t.Errorf("tail %q", got)
	}
}

// TestLogTail: the tail is the last three non-empty lines, each cut to
// 160 characters, with a line cut at the start of the 4 KiB it looks at
// dropped, or shown by its end when it is all there is.
func TestLogTail(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"blank", []string{"\n \r\n\n"}, ""},
		{"lines", []string{"one\r\ntwo\n\n", "three\nfour"}, "two | three | four"},
		{"long line", []string{"a\n" + long + "\n"}, "a | " + long[:160] + "..."},
		{"cut line dropped", []string{strings.Repeat("y", 5000) + "\nlast\n"}, "last"},
		{"cut line alone", []string{strings.Repeat("z", 3000), strings.Repeat("w", 3000)}, "..." + strings.Repeat("w", 160)},
		{"cut short line", []string{strings.Repeat("\n", 4100) + "end"}, "...end"},
		{"many writes", func() []string {
			var ws []string
			for i := range 5000 {
				ws = append(ws, string(rune('a'+i%26))+"\n")
			}
			return ws
		}(), "f | g | h"},
	} {
		l := NewLog(&bytes.Buffer{}, 1<<20, "")
		for _, w := range tc.writes {
			l.Write([]byte(w))
		}
		if got := l.Tail(); got != tc.want {
			t.Errorf("%s: tail %q, want %q", tc.name, got, tc.want)
		}
	}
}
