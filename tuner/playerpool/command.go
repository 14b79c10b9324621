package playerpool

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrCommand is wrapped by errors about a player's command line.
var ErrCommand = errors.New("playerpool: bad player command")

// SplitCommand splits a command line into its words the way a POSIX shell
// does for simple commands: words separated by blanks; '...' quotes
// literally; "..." quotes with \" \\ \$ and \` as escapes; a backslash
// outside quotes escapes the next character. Nothing is expanded: a
// variable, a glob, a pipe or a redirection is an error naming the
// character (write a script, or list the words in a config's
// player.command).
func SplitCommand(s string) ([]string, error) {
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
					return nil, fmt.Errorf("%w: %q: %c inside \"...\" is not expanded here; write the word out", ErrCommand, s, s[i])
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

// CommandString writes a command for messages: its words, quoted where a
// word would otherwise not read back as one.
func CommandString(cmd []string) string {
	q := make([]string, len(cmd))
	for i, w := range cmd {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\|&;<>()$`*?[]{}~#") {
			q[i] = strconv.Quote(w)
		} else {
			q[i] = w
		}
	}
	return strings.Join(q, " ")
}
