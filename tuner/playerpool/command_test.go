package playerpool

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSplitPOSIX: a shell's simple command, nothing expanded, and a
// backslash that a shell would drop refused with a hint.
func TestSplitPOSIX(t *testing.T) {
	good := []struct {
		in   string
		want []string
	}{
		{"evotune player --eval standard", []string{"evotune", "player", "--eval", "standard"}},
		{`python3 "my player.py"  --cap 2`, []string{"python3", "my player.py", "--cap", "2"}},
		{`a 'b c' d\ e "f\"g" ''`, []string{"a", "b c", "d e", `f"g`, ""}},
		{"  x\ty  ", []string{"x", "y"}},
		{`./p --name=a#b x~y`, []string{"./p", "--name=a#b", "x~y"}},
		{`sh -c 'exec ./p | tee log'`, []string{"sh", "-c", "exec ./p | tee log"}},
		{`/opt/My\ Player/p --x \$1 \\ \'`, []string{"/opt/My Player/p", "--x", "$1", `\`, "'"}},
		{`'C:\tools\p.exe' "a\b"`, []string{`C:\tools\p.exe`, `a\b`}},
	}
	for _, tt := range good {
		got, err := SplitPOSIX(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitPOSIX(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, says string }{
		{"", "empty"}, {"  ", "empty"}, {"a 'b", "unterminated"}, {`a "b`, "unterminated"}, {`a\`, "ends the line"},
		{"a | b", "shell syntax"}, {"a > log", "shell syntax"}, {"a $HOME", "shell syntax"}, {`a "$HOME"`, "not expanded"},
		{"a *", "shell syntax"}, {"a; b", "shell syntax"}, {"a && b", "shell syntax"}, {"~/p", "shell syntax"},
		{`C:\tools\p.exe`, `the backslash before 't' would be dropped`},
		{`.\player.exe --x`, "a Windows path? write it with /"},
	}
	for _, tt := range bad {
		if _, err := SplitPOSIX(tt.in); !errors.Is(err, ErrCommand) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("SplitPOSIX(%q): %v; want ErrCommand saying %q", tt.in, err, tt.says)
		}
	}
}

// TestSplitWindows: CommandLineToArgvW's rules, on every system: paths
// keep their backslashes, and only backslashes before a quote escape.
func TestSplitWindows(t *testing.T) {
	good := []struct {
		in   string
		want []string
	}{
		{`C:\tools\p.exe --cap 2`, []string{`C:\tools\p.exe`, "--cap", "2"}},
		{`.\player.exe`, []string{`.\player.exe`}},
		{`"C:\Program Files\p\p.exe" "C:\my dir\w.txt"`, []string{`C:\Program Files\p\p.exe`, `C:\my dir\w.txt`}},
		{`py.exe "C:\dir with space\\" x`, []string{"py.exe", `C:\dir with space\`, "x"}},
		{`p a\\\"b a\\"b c" a\"b`, []string{"p", `a\"b`, `a\b c`, `a"b`}},
		{`p "a""b x`, []string{"p", `a"b`, "x"}},
		{`p "" x`, []string{"p", "", "x"}},
		{`p "a""b c`, []string{"p", `a"b`, "c"}}, // "" ended the quoted part
		{`p "a""b" "" x`, []string{"p", `a"b "`, "x"}},
		{`p a\\b\ c`, []string{"p", `a\\b\`, "c"}},
		{"  p\tx  ", []string{"p", "x"}},
		{`p "a | b" "x>y"`, []string{"p", "a | b", "x>y"}},
		{`"C:\p.exe"x`, []string{`C:\p.exe`, "x"}},
		{`p $HOME %PATH% *.txt`, []string{"p", "$HOME", "%PATH%", "*.txt"}},
	}
	for _, tt := range good {
		got, err := SplitWindows(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitWindows(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "  ", `"C:\p.exe`, `p "a`, `p "a""b c"`, "p | tee log", "p > log", "p && q", "p|q"} {
		if _, err := SplitWindows(in); !errors.Is(err, ErrCommand) {
			t.Errorf("SplitWindows(%q): %v, want ErrCommand", in, err)
		}
	}
}

// TestCommandString: what CommandString writes reads back as the same
// words, and plain words stay plain.
func TestCommandString(t *testing.T) {
	for _, tt := range []struct {
		words          []string
		posix, windows string
	}{
		{[]string{"evotune", "player", "--depth", "2"}, "evotune player --depth 2", "evotune player --depth 2"},
		{[]string{"/opt/My Player/p", "it's", ""}, `'/opt/My Player/p' 'it'\''s' ''`, `"/opt/My Player/p" it's ""`},
		{[]string{`C:\Program Files\p.exe`, `a\"b`, `d\`}, `'C:\Program Files\p.exe' 'a\"b' 'd\'`, `"C:\Program Files\p.exe" "a\\\"b" d\`},
		{[]string{"p", `x y\`}, `p 'x y\'`, `p "x y\\"`},
	} {
		if got := CommandStringPOSIX(tt.words); got != tt.posix {
			t.Errorf("CommandStringPOSIX(%q) = %s, want %s", tt.words, got, tt.posix)
		}
		if got := CommandStringWindows(tt.words); got != tt.windows {
			t.Errorf("CommandStringWindows(%q) = %s, want %s", tt.words, got, tt.windows)
		}
		if back, err := SplitPOSIX(tt.posix); err != nil || !slices.Equal(back, tt.words) {
			t.Errorf("SplitPOSIX(%s) = %q, %v", tt.posix, back, err)
		}
		if back, err := SplitWindows(tt.windows); err != nil || !slices.Equal(back, tt.words) {
			t.Errorf("SplitWindows(%s) = %q, %v", tt.windows, back, err)
		}
	}
}

// FuzzCommandString: any words (NUL-separated in the input: no argument
// holds a NUL) written by CommandStringPOSIX split back by SplitPOSIX, and
// by CommandStringWindows split back by SplitWindows where the program name
// holds no '"'.
func FuzzCommandString(f *testing.F) {
	for _, s := range []string{"evotune\x00player", `C:\Program Files\p.exe` + "\x00" + `a\"b`, "it's\x00\x00$x *", "p\x00x y\\\\", "\"\x00\"\"", " \t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Split(s, "\x00")
		if back, err := SplitPOSIX(CommandStringPOSIX(words)); err != nil || !slices.Equal(back, words) {
			t.Fatalf("%q written %s splits to %q, %v", words, CommandStringPOSIX(words), back, err)
		}
		if strings.Contains(words[0], `"`) {
			return
		}
		if back, err := SplitWindows(CommandStringWindows(words)); err != nil || !slices.Equal(back, words) {
			t.Fatalf("%q written %s splits to %q, %v (Windows)", words, CommandStringWindows(words), back, err)
		}
	})
}
