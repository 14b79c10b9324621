package players_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPython runs python/player.py as a child process through the protocol.
func TestPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the Python example player is not tested")
	}
	p := start(t, py, filepath.Join("python", "player.py"))
	if len(p.params) == 0 {
		t.Fatal("the Python player declares no parameter")
	}
	boards := testBoards(t, 200)
	checkProtocol(t, p, boards)

	// Another parameter vector changes some moves, and setting the
	// defaults back restores the first answers: set rebuilds the table.
	first := p.moves(boards, 50)
	values := map[string]string{}
	for _, q := range p.params {
		if q.kind == "float" {
			values[q.name] = "0"
		}
	}
	values[p.params[0].name] = p.params[0].defText
	if r := p.set(values); r != "ok" {
		t.Fatalf("set %v: %q", values, r)
	}
	changed := 0
	for i, d := range p.moves(boards, 50) {
		if d != first[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("setting every weight but %s to 0 changed no move on %d boards", p.params[0].name, len(boards))
	}
	if r := p.set(nil); r != "ok" {
		t.Fatalf("set with the defaults: %q", r)
	}
	for i, d := range p.moves(boards, 50) {
		if d != first[i] {
			t.Fatalf("board %s: %v with the defaults, then %v after another set and the defaults again", boards[i].Hex(), first[i], d)
		}
	}
	p.quit()
}
