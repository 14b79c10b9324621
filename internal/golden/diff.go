package golden

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	// context is how many equal lines a hunk shows around a change.
	context = 3
	// maxTable bounds the line-LCS table; past it the differing middle
	// shows as removed then added, which is still correct, only coarser.
	maxTable = 1 << 22
)

// Diff describes how got differs from want, for a test failure: for text a
// line diff with a few lines of context ("-" golden, "+" got); for binary
// data the lengths and a hex dump of both around the first differing byte.
// It returns "" when they are equal.
func Diff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	if binary(want) || binary(got) {
		return binaryDiff(want, got)
	}
	return "--- golden\n+++ got\n" + render(lineOps(lines(want), lines(got)))
}

func binary(b []byte) bool {
	return !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0
}

func binaryDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := i &^ 15 // rows of 16 from an aligned offset read like hexdump's
	window := func(b []byte) string {
		var sb strings.Builder
		for off := from; off < min(len(b), from+48); off += 16 {
			fmt.Fprintf(&sb, "%08x  % x\n", off, b[off:min(len(b), off+16)])
		}
		if sb.Len() == 0 {
			return "(ends before)\n"
		}
		return sb.String()
	}
	return fmt.Sprintf("binary: golden %d bytes, got %d; first difference at byte %d\ngolden:\n%sgot:\n%s",
		len(want), len(got), i, window(want), window(got))
}

// lines splits s after each newline, so that a missing final newline is a
// difference too.
func lines(b []byte) []string {
	l := strings.SplitAfter(string(b), "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// op is one line of a diff: kind ' ' (in both), '-' (golden only) or '+'
// (got only), with its 1-based line numbers in each.
type op struct {
	kind     byte
	text     string
	wantLine int
	gotLine  int
}

// lineOps is a shortest edit script from a to b by longest common
// subsequence, after trimming the common head and tail that golden files
// mostly are.
func lineOps(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []op
	i, j := 0, 0
	emit := func(kind byte, text string) {
		ops = append(ops, op{kind, text, i + 1, j + 1})
		if kind != '+' {
			i++
		}
		if kind != '-' {
			j++
		}
	}
	for range head {
		emit(' ', a[i])
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	n, m := len(ma), len(mb)
	if (n+1)*(m+1) > maxTable {
		for _, s := range ma {
			emit('-', s)
		}
		for _, s := range mb {
			emit('+', s)
		}
	} else {
		// lcs[x*(m+1)+y] is the LCS length of ma[x:] and mb[y:].
		lcs := make([]int, (n+1)*(m+1))
		for x := n - 1; x >= 0; x-- {
			for y := m - 1; y >= 0; y-- {
				if ma[x] == mb[y] {
					lcs[x*(m+1)+y] = lcs[(x+1)*(m+1)+y+1] + 1
				} else {
					lcs[x*(m+1)+y] = max(lcs[(x+1)*(m+1)+y], lcs[x*(m+1)+y+1])
				}
			}
		}
		x, y := 0, 0
		for x < n || y < m {
			switch {
			case x < n && y < m && ma[x] == mb[y]:
				emit(' ', ma[x])
				x, y = x+1, y+1
			case y == m || x < n && lcs[(x+1)*(m+1)+y] >= lcs[x*(m+1)+y+1]:
				emit('-', ma[x])
				x++
			default:
				emit('+', mb[y])
				y++
			}
		}
	}
	for range tail {
		emit(' ', a[i])
	}
	return ops
}

// render prints the changed lines of ops in hunks with context lines
// around them, each headed by where it starts in both files.
func render(ops []op) string {
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind != ' ' {
			for c := max(0, k-context); c <= min(len(ops)-1, k+context); c++ {
				show[c] = true
			}
		}
	}
	var sb strings.Builder
	for k, o := range ops {
		if !show[k] {
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&sb, "@@ golden line %d, got line %d @@\n", o.wantLine, o.gotLine)
		}
		sb.WriteByte(o.kind)
		sb.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			sb.WriteString("\n\\ no newline at end of file\n")
		}
	}
	return sb.String()
}
