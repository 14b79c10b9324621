package eval

import "testing"

// TestVersionPinned pins the built-in sets' versions: workers of other
// builds compare them with their own, so they change only when what a set
// computes changes.
func TestVersionPinned(t *testing.T) {
	for name, want := range map[string]string{
		"classic":  "982b8eb298a4",
		"standard": "a10d7e15a46e",
		"nneonneo": "2cf48890ea72",
	} {
		s, err := Set(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Version(); got != want || s.Version() != got {
			t.Errorf("%s: version %s, want %s", name, got, want)
		}
	}
}
