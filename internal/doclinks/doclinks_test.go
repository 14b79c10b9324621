package doclinks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinks fails when a relative link or anchor in the module's documents
// points nowhere.
func TestLinks(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(root, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestReadmeCommands keeps the two commands a newcomer starts with in the
// README, literally: the CI script and the issues refer to them.
func TestReadmeCommands(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"go run ./cmd/evotune tune", "go test ./..."} {
		if !strings.Contains(string(readme), cmd) {
			t.Errorf("README.md does not show %q", cmd)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"The two commands", "the-two-commands"},
		{"What `evotune tune` does", "what-evotune-tune-does"},
		{"Pasting into 2048.cpp", "pasting-into-2048cpp"},
		{"`standard` (the default for tuning)", "standard-the-default-for-tuning"},
		{"The nneonneo-compatible search (`--search nneonneo`)", "the-nneonneo-compatible-search---search-nneonneo"},
		{"history.jsonl", "historyjsonl"},
		{"Step size σ, ×2 & more!", "step-size-σ-2--more"},
		{"snake_case stays", "snake_case-stays"},
		{"Ça marche", "ça-marche"},
	} {
		if got := Slug(tc.heading); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestCheck shows that the check can fail: each case is a small document
// tree in a temporary directory and the problems it must report.
func TestCheck(t *testing.T) {
	other := "# Other\n\n## Part\n\n## Part\n\n<a id=\"raw\"></a>\n"
	for _, tc := range []struct {
		name  string
		doc   string
		files map[string]string
		want  []string // one substring per problem, in order
	}{
		{name: "good links", doc: strings.Join([]string{
			"# Title",
			"## A section",
			"[same](#a-section) [other](docs/other.md) [part](docs/other.md#part)",
			"[again](docs/other.md#part-1) [raw](docs/other.md#raw) [top](#title)",
			"[web](https://example.com/x#y) [mail](mailto:a@b.c) [src](main.go#L3)",
			"[dir](docs) [rooted](/docs/other.md#other) ![img](docs/other.md)",
			"[ref]: docs/other.md#part",
		}, "\n"), files: map[string]string{"docs/other.md": other, "main.go": "package main\n"}},
		{name: "broken anchor", doc: "# Title\n\n[x](#no-such-section)\n",
			want: []string{`README.md:3: link "#no-such-section": no heading in README.md has the anchor #no-such-section`}},
		{name: "missing file", doc: "# T\n[x](docs/gone.md)\n",
			want: []string{`README.md:2: link "docs/gone.md": no file docs/gone.md`}},
		{name: "anchor in another file", doc: "[x](docs/other.md#part-2)\n",
			files: map[string]string{"docs/other.md": other},
			want:  []string{"no heading in docs/other.md has the anchor #part-2"}},
		{name: "reference definition", doc: "[x][r]\n\n[r]: docs/nothing.md\n",
			want: []string{"README.md:3:", "no file docs/nothing.md"}},
		{name: "outside the repository", doc: "[x](../elsewhere.md)\n",
			want: []string{"points outside the repository"}},
		{name: "code is not checked", doc: strings.Join([]string{
			"# Title",
			"`[x](#nowhere)` and ``[y](gone.md)``",
			"```sh",
			"# not a heading",
			"[z](#also-nowhere)",
			"```",
			"[w](#not-a-heading)",
		}, "\n"), want: []string{`README.md:7: link "#not-a-heading"`}},
		{name: "relative to the linking file", doc: "[x](docs/a.md)\n",
			files: map[string]string{"docs/a.md": "[up](../README.md) [side](b.md#b)\n", "docs/b.md": "# C\n"},
			want:  []string{`docs/a.md:1: link "b.md#b": no heading in docs/b.md has the anchor #b`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(name, text string) {
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("README.md", tc.doc)
			for name, text := range tc.files {
				write(name, text)
			}
			docs, err := Documents(root)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := Check(root, docs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if len(tc.want) == 0 && len(got) != 0 {
				t.Fatalf("problems in a good tree:\n%s", strings.Join(got, "\n"))
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("no problem says %q; got:\n%s", w, all)
				}
			}
			if len(tc.want) > 0 && len(got) == 0 {
				t.Error("the check passed a broken tree")
			}
		})
	}
}

func TestDocumentsNeedsReadme(t *testing.T) {
	if _, err := Documents(t.TempDir()); err == nil {
		t.Error("Documents found documents in an empty directory")
	}
}
