package objective

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Python's json.dumps writes a float nan or infinity as the bare words
// NaN, Infinity and -Infinity unless told allow_nan=False, and an
// optimizer's arithmetic makes them easily (a zero variance, a log of 0).
// They are not JSON, so Go's decoder stops at them with its own words
// ("invalid character 'N' looking for beginning of value") and the line's
// id unread, and a client that checks the id before the error then fails
// on the id and hides the message. So a line the decoder refuses is
// scanned for those words outside strings; when the first fault is one of
// them, the error names it, where it is (params.sum) and the fix, and the
// id is read from the line with the words put as null.

// nonFinites are the words, longest first where one begins another.
var nonFinites = []string{"-Infinity", "Infinity", "NaN"}

// A bareWord is a NaN or an infinity outside strings, at data[start:end].
type bareWord struct {
	start, end int
	word       string
}

// bareWords returns the NaN and infinity words of data that are outside
// strings, in order.
func bareWords(data []byte) []bareWord {
	var ws []bareWord
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case i == 0 || !wordByte(data[i-1]):
			for _, w := range nonFinites {
				end := i + len(w)
				if bytes.HasPrefix(data[i:], []byte(w)) && (end == len(data) || !wordByte(data[end])) {
					ws = append(ws, bareWord{i, end, w})
					i = end - 1
					break
				}
			}
		}
	}
	return ws
}

// wordByte reports whether c can continue a bare word or a number: NaN
// is a word of its own in [NaN] and {"a":NaN}, not in xNaN or 1NaN.
func wordByte(c byte) bool {
	return c == '_' || c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// A nonFinite is the first fault of a line when that is a NaN or an
// infinity: the word, where it is, and the line's id if it can be read.
type nonFinite struct {
	word string
	path string // "params.sum", "seeds[2]"; "" for the whole line
	id   json.RawMessage
}

// findNonFinite reports the NaN or infinity that is the first fault of
// data, a line the decoder refused: false if the line has none, or if a
// fault of another kind comes before it.
func findNonFinite(data []byte) (nonFinite, bool) {
	ws := bareWords(data)
	if len(ws) == 0 {
		return nonFinite{}, false
	}
	// The line with each word put as null, and where each null ends.
	var fixed []byte
	ends := make(map[int64]int, len(ws))
	last := 0
	for i, w := range ws {
		fixed = append(append(fixed, data[last:w.start]...), "null"...)
		ends[int64(len(fixed))] = i
		last = w.end
	}
	fixed = append(fixed, data[last:]...)

	// Walk the fixed line as far as it goes, keeping the path to each
	// value, and note where each null that stands for a word is.
	type frame struct {
		object  bool
		key     string
		index   int
		wantKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if !f.object {
				fmt.Fprintf(&b, "[%d]", f.index)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	done := func() { // a value of the frame on top has ended
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	var paths, words []string // of the words reached, in order
	dec := json.NewDecoder(bytes.NewReader(fixed))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{object: tok == json.Delim('{'), wantKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		case nil:
			if i, ok := ends[dec.InputOffset()]; ok {
				paths, words = append(paths, path()), append(words, ws[i].word)
			}
		}
		done()
	}
	if len(paths) == 0 {
		return nonFinite{}, false // a fault of another kind comes first
	}
	nf := nonFinite{word: words[0], path: paths[0]}
	// The id, unless a word is in it: the line's id as read with the words
	// put as null would be another id.
	inID := slices.ContainsFunc(paths, func(p string) bool {
		return p == "id" || strings.HasPrefix(p, "id.") || strings.HasPrefix(p, "id[")
	})
	ms, _ := readMembers(fixed)
	for _, m := range ms {
		if m.key == "id" && !inID {
			nf.id = m.raw
		}
	}
	return nf, true
}
