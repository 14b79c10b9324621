package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigPreset checks that --config selects an embedded preset by name
// when no file has that name, and that a file of that name wins.
func TestConfigPreset(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, arg := range []string{"overnight", "overnight.yaml", "cem"} {
		cfg, err := loadConfig(arg)
		if err != nil {
			t.Fatalf("--config %s: %v", arg, err)
		}
		cfg.Resolve()
		if err := cfg.Validate(); err != nil {
			t.Fatalf("--config %s: %v", arg, err)
		}
		if want := strings.TrimSuffix(arg, ".yaml"); cfg.Name != want {
			t.Errorf("--config %s: run name %q, want the preset's %q", arg, cfg.Name, want)
		}
	}
	if cfg, err := loadConfig(""); err != nil || cfg.Name != "quick" {
		t.Errorf("no --config: %v, want the quick preset", err)
	}
	if err := os.WriteFile("overnight", []byte("name: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := loadConfig("overnight"); err != nil || cfg.Name != "mine" {
		t.Errorf("--config overnight with a file of that name: %v, want the file", err)
	}
	// A directory of a preset's name (a run directory, say) is not a
	// config: the preset is.
	if err := os.Mkdir("quick", 0o755); err != nil {
		t.Fatal(err)
	}
	if cfg, err := loadConfig("quick"); err != nil || cfg.Name != "quick" {
		t.Errorf("--config quick with a directory quick/: %v, want the preset", err)
	}
}

// TestConfigUnknownPreset checks that a --config value that is neither a
// file nor a preset gets one line listing the presets, exit 2.
func TestConfigUnknownPreset(t *testing.T) {
	for _, arg := range []string{"nosuch", filepath.Join(t.TempDir(), "missing.yaml")} {
		code, out, errs := runCLI(t, "tune", "--config", arg)
		want := `flag --config: no file or preset "` + arg + `" (presets: beam, cem, ladder, nneonneo, nneonneo-deep, nneonneo-refine, overnight, quick)`
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
			t.Errorf("--config %s: exit %d, stderr %q; want exit 2 and one line %q", arg, code, errs, want)
		}
	}
	// A file that exists but cannot be read is reported as it is.
	dir := t.TempDir()
	code, _, errs := runCLI(t, "tune", "--config", dir)
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, dir) {
		t.Errorf("--config DIR: exit %d, stderr %q", code, errs)
	}
}

// TestConfigExplicitZeroCLI checks that tune refuses a config whose explicit
// 0 means nothing with one line naming the file, line, field and range.
func TestConfigExplicitZeroCLI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("name: x\nsearch: {depth: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "tune", "--config", path, "--out", filepath.Join(t.TempDir(), "r"))
	want := path + ":2: search.depth: 0: want 1 to 20 plies (leave the key out for the default)"
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line %q", code, errs, want)
	}
}
