package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestNotesAreComments: a file's notes are comments, each on its line
// (the shape parameters' on theirs), and the file reads back to what it
// says without them, bit for bit: notes change nothing a reader loads,
// nor where its lines are but for the head's.
func TestNotesAreComments(t *testing.T) {
	for _, file := range []func() *WeightsFile{tunedFile, nnTunedFile} {
		plain, err := file().Marshal()
		if err != nil {
			t.Fatal(err)
		}
		wf := file()
		wf.Notes = &Notes{
			Head:   []string{"status: not yet validated", "a run name\nwith a line break # and a hash"},
			Values: map[string]string{},
		}
		s, _ := wf.Set()
		for _, name := range s.VectorNames() {
			wf.Notes.Values[name] = "start " + name
		}
		noted, err := wf.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		text := string(noted)
		for _, f := range s.Features {
			if !strings.Contains(text, " # start "+f.Name+"\n") {
				t.Errorf("%s: no note on %s's line:\n%s", s.Name, f.Name, text)
			}
		}
		if len(s.Params) > 0 && !strings.Contains(text, "} # monotonicity_power start monotonicity_power; sum_power start sum_power\n") {
			t.Errorf("%s: the parameters' line has not their notes:\n%s", s.Name, text)
		}
		if a, b := strings.Count(string(plain), "\n"), strings.Count(text, "\n"); b != a+3 {
			t.Errorf("%s: %d lines with two head notes, %d without: want the head's alone more", s.Name, b, a)
		}
		if !strings.Contains(text, "\n# status: not yet validated\n# a run name with a line break # and a hash\n") {
			t.Errorf("%s: head notes not written one comment line each:\n%s", s.Name, text)
		}
		a, err := ParseWeights(plain, "plain.yaml")
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseWeights(noted, "noted.yaml")
		if err != nil {
			t.Fatalf("%s: a file with notes does not load: %v", s.Name, err)
		}
		for _, f := range []*WeightsFile{a, b} {
			for i := range f.Checks {
				f.Checks[i].Line = 0 // where each check is: the notes move them
			}
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: with notes the file reads\n%+v\nwithout\n%+v", s.Name, b, a)
		}
		// Written again, what was read is the file without notes.
		again, _ := b.Marshal()
		if !bytes.Equal(again, plain) {
			t.Errorf("%s: read and written again:\n%s\nwant\n%s", s.Name, again, plain)
		}
	}
}
