package doclinks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Problem is one link that points nowhere.
type Problem struct {
	File   string // the document holding the link, relative to the root
	Line   int    // from 1
	Target string // the link's target as written
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: link %q: %s", p.File, p.Line, p.Target, p.Reason)
}

// Documents lists the documents the check covers under root: README.md,
// CONTRIBUTING.md and every .md file under docs/, as slash paths relative to
// root. A missing README.md is an error; the others are optional.
func Documents(root string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		return nil, fmt.Errorf("doclinks: %w", err)
	}
	docs := []string{"README.md"}
	if _, err := os.Stat(filepath.Join(root, "CONTRIBUTING.md")); err == nil {
		docs = append(docs, "CONTRIBUTING.md")
	}
	dir := filepath.Join(root, "docs")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("doclinks: %w", err)
	}
	return docs, nil
}

// ModuleRoot returns the nearest directory at or above dir that holds a
// go.mod file: where the documents are, wherever a test runs from.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("doclinks: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("doclinks: no go.mod at or above %s", dir)
		}
		dir = parent
	}
}

// Check reads each document (a slash path relative to root) and returns
// every relative link or anchor in them that points nowhere. An error is
// returned only when a document itself cannot be read.
func Check(root string, docs []string) ([]Problem, error) {
	c := checker{root: root, anchors: map[string]map[string]bool{}}
	var problems []Problem
	for _, doc := range docs {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			return nil, fmt.Errorf("doclinks: %w", err)
		}
		for _, l := range links(src) {
			if reason := c.resolve(doc, l.target); reason != "" {
				problems = append(problems, Problem{File: doc, Line: l.line, Target: l.target, Reason: reason})
			}
		}
	}
	return problems, nil
}

type checker struct {
	root    string
	anchors map[string]map[string]bool // by document, read once
}

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// resolve says why target, a link in doc, points nowhere, or "" when it
// resolves.
func (c *checker) resolve(doc, target string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	p, frag, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(p)
	if err != nil {
		return fmt.Sprintf("bad escape in path: %v", err)
	}
	file := doc
	if p != "" {
		if strings.HasPrefix(p, "/") {
			// GitHub resolves a rooted link against the repository root.
			file = path.Clean(strings.TrimPrefix(p, "/"))
		} else {
			file = path.Join(path.Dir(doc), p)
		}
		if file == ".." || strings.HasPrefix(file, "../") {
			return "points outside the repository"
		}
		if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(file))); err != nil {
			return fmt.Sprintf("no file %s", file)
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	anchors, err := c.anchorsOf(file)
	if err != nil {
		return err.Error()
	}
	if !anchors[frag] {
		return fmt.Sprintf("no heading in %s has the anchor #%s", file, frag)
	}
	return ""
}

func (c *checker) anchorsOf(file string) (map[string]bool, error) {
	if a, ok := c.anchors[file]; ok {
		return a, nil
	}
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(file)))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", file, err)
	}
	a := Anchors(src)
	c.anchors[file] = a
	return a, nil
}

type link struct {
	line   int
	target string
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*$`)
	closingSeq = regexp.MustCompile(`[ \t]+#+$`)
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^()\s<>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	refDef     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	htmlAnchor = regexp.MustCompile(`<a\s[^>]*\b(?:id|name)\s*=\s*"([^"]+)"`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// Anchors returns the anchors a Markdown document defines: the GitHub slug
// of each ATX heading outside code blocks, repeats suffixed -1, -2, ..., and
// the id or name of each <a> tag.
func Anchors(src []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	eachLine(src, func(_ int, line string, inCode bool) {
		if inCode {
			return
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		text := closingSeq.ReplaceAllString(m[1], "")
		if strings.Trim(text, "#") == "" {
			text = ""
		}
		// The slug is of the rendered text: a link shows its text only.
		text = linkText.ReplaceAllString(text, "$1")
		s := Slug(text)
		// github-slugger: a repeat takes the first free suffix.
		unique := s
		for anchors[unique] {
			seen[s]++
			unique = s + "-" + strconv.Itoa(seen[s])
		}
		anchors[unique] = true
	})
	return anchors
}

// Slug is GitHub's anchor for a heading's text: lowercased, characters other
// than letters, marks, numbers, spaces, hyphens and connector punctuation
// (the underscore) removed, spaces turned into hyphens.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r), unicode.IsNumber(r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// links returns the link targets of a Markdown document, outside code
// blocks and code spans, with their lines.
func links(src []byte) []link {
	var out []link
	eachLine(src, func(n int, line string, inCode bool) {
		if inCode {
			return
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{n, m[1]})
			return
		}
		for _, m := range inlineLink.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			out = append(out, link{n, m[1]})
		}
	})
	return out
}

// eachLine calls f for every line with its number and whether it is inside
// a fenced code block (the fence lines themselves count as inside).
func eachLine(src []byte, f func(n int, line string, inCode bool)) {
	var fence string // the opening fence while inside a block
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if fence == "" {
			if indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
				fence = leadingRun(trimmed)
				f(n, line, true)
				continue
			}
			f(n, line, false)
			continue
		}
		f(n, line, true)
		if indent <= 3 && strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
			fence = ""
		}
	}
}

// leadingRun is the run of the first character that s starts with.
func leadingRun(s string) string {
	i := 0
	for i < len(s) && s[i] == s[0] {
		i++
	}
	return s[:i]
}

// stripCodeSpans removes inline code spans: a run of n backticks up to the
// next run of exactly n. An unmatched run is kept as text, as CommonMark
// does.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		open := leadingRun(line[i:])
		end := closingRun(line, i+len(open), len(open))
		if end < 0 {
			b.WriteString(open)
			i += len(open)
			continue
		}
		i = end
	}
	return b.String()
}

// closingRun returns the index just past the first run of exactly n
// backticks at or after from, or -1.
func closingRun(line string, from, n int) int {
	for j := from; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		run := leadingRun(line[j:])
		if len(run) == n {
			return j + n
		}
		j += len(run)
	}
	return -1
}
