package playerpool

import (
	"context"
	"strings"
	"testing"
)

// TestCompliance: the built-in player passes every point; each misbehaving
// player fails the point it breaks.
func TestCompliance(t *testing.T) {
	summary := func(pts []Point) string {
		var b strings.Builder
		for _, p := range pts {
			v := "ok"
			if !p.OK {
				v = "FAIL"
			}
			b.WriteString(v + " " + p.Name + "; ")
		}
		return b.String()
	}
	for _, tc := range []struct{ mode, want string }{
		{"serve", "ok handshake; ok legal moves; ok determinism; ok speed; ok parameter sets; ok unknown parameter; ok out-of-range value; ok quit; "},
		{"sets-ignored", "ok handshake; ok legal moves; ok determinism; ok speed; FAIL parameter sets; ok unknown parameter; "},
		{"illegal", "ok handshake; FAIL legal moves; "},
		{"nondeterministic", "ok handshake; ok legal moves; FAIL determinism; "},
		{"set-error", "ok handshake; FAIL set defaults; "},
		{"decl-dup", "FAIL handshake; "},
		{"crash-start", "FAIL handshake; "},
	} {
		pts := Compliance(context.Background(), playerCommand(tc.mode), Options{})
		if got := summary(pts); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %s\nwant it to begin %s", tc.mode, got, tc.want)
		}
		// Each failure says its likely cause and fix; an illegal move,
		// the first board it was answered on.
		for _, p := range pts {
			if !p.OK && p.Fix == "" || p.OK && p.Fix != "" {
				t.Errorf("%s: %s: ok %v, fix %q", tc.mode, p.Name, p.OK, p.Fix)
			}
			if p.Name == "parameter sets" && !p.OK && !strings.Contains(p.Figure, "the first: 0x") {
				t.Errorf("%s: %s: %s names no board", tc.mode, p.Name, p.Figure)
			}
			if p.Name == "legal moves" && !p.OK && !strings.Contains(p.Figure, "which moves no tile") {
				t.Errorf("%s: %s: %s names no board", tc.mode, p.Name, p.Figure)
			}
		}
	}
}

// TestComplianceBoards: the boards are distinct enough, all playable, and
// some carry 32768.
func TestComplianceBoards(t *testing.T) {
	boards := complianceBoards()
	if len(boards) != ComplianceBoards {
		t.Fatalf("%d boards", len(boards))
	}
	big := 0
	for _, b := range boards {
		if !b.CanMove() {
			t.Errorf("%s has no move", b.Hex())
		}
		if b.MaxTile() == 32768 {
			big++
		}
	}
	if big < 50 {
		t.Errorf("%d boards with 32768, want at least 50", big)
	}
}
