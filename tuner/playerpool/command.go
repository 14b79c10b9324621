package playerpool

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// ErrCommand is wrapped by errors about a player's command line.
var ErrCommand = errors.New("playerpool: bad player command")

// SplitCommand splits a command line (a --player value) into its words by
// the rules of the system evotune runs on, the rules its users type
// commands by: on Windows those of CommandLineToArgvW (SplitWindows), so
// that C:\tools\p.exe keeps its backslashes; elsewhere those of a POSIX
// shell's simple command (SplitPOSIX). Nothing is expanded, and no shell
// runs the player.
func SplitCommand(s string) ([]string, error) {
	if runtime.GOOS == "windows" {
		return SplitWindows(s)
	}
	return SplitPOSIX(s)
}

// CommandString writes a command as a command line that SplitCommand
// splits back into the same words (on Windows, a program name with a '"'
// aside, which Windows file names cannot hold): bare words where that is
// unambiguous, quoted otherwise.
func CommandString(cmd []string) string {
	if runtime.GOOS == "windows" {
		return CommandStringWindows(cmd)
	}
	return CommandStringPOSIX(cmd)
}

// posixSpecial are the characters a POSIX shell gives a meaning outside
// quotes, which SplitPOSIX refuses or lets a backslash escape.
const posixSpecial = " \t\n'\"\\|&;<>()$`*?[]{}~#"

// SplitPOSIX splits a command line the way a POSIX shell splits a simple
// command: words separated by blanks; '...' quotes literally; "..." quotes
// with \" \\ \$ and \` as escapes; a backslash outside quotes escapes a
// blank, a quote, a backslash or a character of shell syntax. Nothing is
// expanded: a variable, a glob, a pipe or a redirection is an error naming
// the character (write a script, or list the words in a config's
// player.command). A backslash before any other character is refused too,
// where a shell would drop it: C:\tools\p.exe would run C:toolsp.exe, and
// a Windows path typed on Unix is a mistake better named than run.
func SplitPOSIX(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		inW   bool // a word has begun (possibly empty: '')
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inW {
				words = append(words, cur.String())
				cur.Reset()
				inW = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%w: %q: unterminated '", ErrCommand, s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inW = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				} else if s[i] == '$' || s[i] == '`' {
					return nil, fmt.Errorf("%w: %q: %c inside \"...\" is not expanded here; write the word out, or quote it with '...'", ErrCommand, s, s[i])
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("%w: %q: unterminated \"", ErrCommand, s)
			}
			inW = true
		case c == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("%w: %q: a backslash ends the line", ErrCommand, s)
			}
			if strings.IndexByte(posixSpecial, s[i+1]) < 0 {
				return nil, fmt.Errorf("%w: %q: the backslash before %q would be dropped, as a shell drops it; a Windows path? write it with /; to keep the backslash, quote the word with '...'", ErrCommand, s, s[i+1])
			}
			i++
			cur.WriteByte(s[i])
			inW = true
		case strings.IndexByte("|&;<>()$`*?[]{}~#", c) >= 0 && !(c == '#' && inW) && !(c == '~' && inW):
			return nil, fmt.Errorf("%w: %q: %q is shell syntax, which is not interpreted here; quote it, or write a script or a config's player.command", ErrCommand, s, c)
		default:
			cur.WriteByte(c)
			inW = true
		}
	}
	if inW {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: empty command", ErrCommand)
	}
	return words, nil
}

// CommandStringPOSIX writes cmd as a command line SplitPOSIX splits back
// into cmd: a word of only letters, digits and -_./:=,+@% bare, any other
// in '...' (a ' inside as '\”).
func CommandStringPOSIX(cmd []string) string {
	q := make([]string, len(cmd))
	for i, w := range cmd {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%") == "" {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// SplitWindows splits a command line by the rules of Windows'
// CommandLineToArgvW, the rules a Windows program's C runtime reads its own
// command line by: words separated by spaces and tabs; "..." groups a
// word's blanks; backslashes are literal (C:\tools\p.exe, .\player.exe)
// except before a '"': 2n backslashes and a quote are n backslashes and
// the quote's meaning, 2n+1 are n backslashes and a literal quote; "" in a
// quoted part is a literal quote that ends the part. The first word, the program, has no
// escapes at all (a Windows file name holds no '"'): up to the next blank,
// or when it starts with a quote up to the next quote. |, &, < and > outside
// quotes are refused, as no cmd.exe runs the player to interpret them.
func SplitWindows(s string) ([]string, error) {
	s = strings.TrimLeft(s, " \t\r\n")
	if s == "" {
		return nil, fmt.Errorf("%w: empty command", ErrCommand)
	}
	var words []string
	// The program name.
	if s[0] == '"' {
		j := strings.IndexByte(s[1:], '"')
		if j < 0 {
			return nil, fmt.Errorf("%w: %q: unterminated \"", ErrCommand, s)
		}
		words = append(words, s[1:1+j])
		s = s[j+2:]
	} else {
		j := strings.IndexAny(s, " \t\r\n")
		if j < 0 {
			j = len(s)
		}
		if k := strings.IndexAny(s[:j], "|&<>"); k >= 0 {
			return nil, fmt.Errorf("%w: %q: %q is cmd.exe syntax, which is not interpreted here; quote it, or write a script", ErrCommand, s, s[k])
		}
		words = append(words, s[:j])
		s = s[j:]
	}
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return words, nil
		}
		var (
			b       strings.Builder
			quoted  bool
			slashes int
		)
	word:
		for ; s != ""; s = s[1:] {
			c := s[0]
			switch {
			case c == '\\':
				slashes++
				continue
			case c == '"':
				b.WriteString(strings.Repeat(`\`, slashes/2))
				if slashes%2 == 1 {
					b.WriteByte('"')
				} else if quoted && len(s) > 1 && s[1] == '"' {
					// "" in a quoted part: a quote, and the part ends
					// there, as CommandLineToArgvW reads it (the C
					// runtimes since 2008 stay in the quoted part).
					b.WriteByte('"')
					s = s[1:]
					quoted = false
				} else {
					quoted = !quoted
				}
				slashes = 0
				continue
			case !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
				break word
			case !quoted && strings.IndexByte("|&<>", c) >= 0:
				return nil, fmt.Errorf("%w: %q: %q is cmd.exe syntax, which is not interpreted here; quote it, or write a script", ErrCommand, s, c)
			}
			b.WriteString(strings.Repeat(`\`, slashes))
			slashes = 0
			b.WriteByte(c)
		}
		if quoted {
			return nil, fmt.Errorf("%w: unterminated \" in the command", ErrCommand)
		}
		b.WriteString(strings.Repeat(`\`, slashes))
		words = append(words, b.String())
	}
}

// CommandStringWindows writes cmd as a command line SplitWindows splits
// back into cmd, where the program name holds no '"': each word bare when
// it has no blank, quote or cmd.exe syntax, else in "..." with the
// backslashes before a quote (or before the closing one) doubled.
func CommandStringWindows(cmd []string) string {
	q := make([]string, len(cmd))
	for i, w := range cmd {
		switch {
		case w != "" && !strings.ContainsAny(w, " \t\r\n\"|&<>"):
			q[i] = w
		case i == 0:
			q[i] = `"` + w + `"` // the program name has no escapes
		default:
			var b strings.Builder
			b.WriteByte('"')
			slashes := 0
			for j := 0; j < len(w); j++ {
				switch w[j] {
				case '\\':
					slashes++
				case '"':
					// The slashes written already, as many again and one:
					// 2n+1 backslashes before a quote read as n and a quote.
					b.WriteString(strings.Repeat(`\`, slashes+1))
					slashes = 0
				default:
					slashes = 0
				}
				b.WriteByte(w[j])
			}
			b.WriteString(strings.Repeat(`\`, slashes))
			b.WriteByte('"')
			q[i] = b.String()
		}
	}
	return strings.Join(q, " ")
}
