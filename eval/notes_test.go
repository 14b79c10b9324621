package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestNotesAreComments: a file's notes are comments, each on its line
// (a shape parameter's too), and the file reads back to what it says
// without them, bit for bit: notes change nothing a reader loads.
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
		for _, name := range s.VectorNames() {
			if !strings.Contains(text, " # start "+name+"\n") {
				t.Errorf("%s: no note on %s's line:\n%s", s.Name, name, text)
			}
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
