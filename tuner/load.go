package tuner

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/yamlx"
)

// LoadConfig reads the config file at path, fills in its defaults and
// validates it; see ReadConfig.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ReadConfig(data, path)
}

// ReadConfig decodes a config (ParseConfig), fills in its defaults
// (Resolve) and validates it (Validate): the config it returns is ready for
// New. A caller that changes a config before it is resolved (flags that
// override a file's values) makes the three calls itself, and the errors
// Validate returns still name the file's lines.
func ReadConfig(data []byte, file string) (*Config, error) {
	c, err := ParseConfig(data, file)
	if err != nil {
		return nil, err
	}
	c.Resolve()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseConfig decodes a config strictly (internal/yamlx: one document of
// plain UTF-8 text; unknown keys, duplicate keys and values of the wrong
// type are errors that name the file, line and field), and remembers where
// each key was, for Resolve and Validate. It does not fill defaults or
// validate. init may name a weights file instead of listing weights: its
// weights become Init (see Config.InitFrom).
func ParseConfig(data []byte, file string) (*Config, error) {
	f := yamlx.File{Name: file, Root: "config", Kind: ErrConfig}
	root, err := f.Parse(data)
	if err != nil {
		return nil, err
	}
	c := &Config{lines: yamlx.NewLines(f)}
	root, initFile, err := cutInitFile(root, c.lines)
	if err != nil {
		return nil, err
	}
	if err := c.lines.Decode(root, "", c); err != nil {
		return nil, err
	}
	if initFile != nil {
		if c.InitFrom != "" {
			return nil, f.Errorf(initFile, "init", "a weights file here and init_from %q too: give one", c.InitFrom)
		}
		if err := c.initFromFile(initFile.Value); err != nil {
			return nil, f.Errorf(initFile, "init", "%v", err)
		}
	}
	return c, nil
}

// cutInitFile returns the document without its init key if that names a
// weights file (a string, where the decoder wants a mapping of weights),
// and the node of the file's name.
func cutInitFile(root *yaml.Node, lines *yamlx.Lines) (*yaml.Node, *yaml.Node, error) {
	if root == nil || root.Kind != yaml.MappingNode {
		return root, nil, nil
	}
	var inits []int
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "init" {
			inits = append(inits, i)
		}
	}
	for _, i := range inits {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			continue
		}
		if len(inits) > 1 {
			return nil, nil, lines.File().Errorf(root.Content[inits[1]], "init", "key given twice")
		}
		lines.Mark("init", k.Line)
		return &yaml.Node{Kind: root.Kind, Tag: root.Tag, Line: root.Line, Column: root.Column,
			Content: append(slices.Clone(root.Content[:i]), root.Content[i+2:]...)}, v, nil
	}
	return root, nil, nil
}

// initFromFile reads the starting weights (and parameters) from a weights
// file. The config's feature set, if it names one, must be the file's.
func (c *Config) initFromFile(path string) error {
	if path == "" {
		return fmt.Errorf("empty: want a mapping of weights or the path of a weights file")
	}
	wf, err := eval.ReadWeightsFile(path)
	if err != nil {
		return fmt.Errorf("want a weights file: %w", err)
	}
	if c.SetName == "" {
		c.SetName = wf.SetName
	}
	if c.SetName != wf.SetName {
		return fmt.Errorf("%s holds %s weights, the config tunes %s", path, wf.SetName, c.SetName)
	}
	set, err := wf.Set()
	if err != nil {
		return err
	}
	c.Init = map[string]float64{}
	for i, f := range set.Features {
		c.Init[f.Name] = wf.Weights[i]
	}
	params := wf.Params
	if params == nil {
		params = set.DefaultParams()
	}
	for i, q := range set.Params {
		c.Init[q.Name] = params[i]
	}
	c.InitFrom = path
	return nil
}

// Errorf is errorf for the config's users: a check of their own (say,
// that a key the caller decides must be absent) named at its line.
func (c *Config) Errorf(field, format string, args ...any) error {
	return c.errorf(field, format, args...)
}

// errorf returns the error about the config's key at path field, at its
// line if the config's file wrote it (a default or a value set in Go has
// none). Every config error is a *yamlx.FileError wrapping ErrConfig.
func (c *Config) errorf(field, format string, args ...any) error {
	l := c.lines
	if l == nil {
		return &yamlx.FileError{Field: field, Msg: fmt.Sprintf(format, args...), Kind: ErrConfig}
	}
	if l.Zero(field) && zeroIsNoValue[stageKey(field)] {
		// The file wrote 0 where 0 is no value: say how to get the default.
		format += " (leave the key out for the default)"
	}
	line, _ := l.Line(field)
	if rest, ok := strings.CutPrefix(field, "stages."); ok && line == 0 {
		// A stage's key left out (its default is wrong): the stage's line.
		n, _, _ := strings.Cut(rest, ".")
		line, _ = l.Line("stages." + n)
	}
	return l.File().At(line, field, format, args...)
}
