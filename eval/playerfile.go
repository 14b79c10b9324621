package eval

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/yamlx"
)

// A PlayerFile is a params file: the tuned parameters of an external
// player (one that speaks the player protocol), in format FormatV2 with
// player and params where a weights file has features and weights, the
// provenance of a weights file, and checks that pin the player: boards and
// the move the player chose on each with these parameters, so that a user
// can check that their engine loaded them. It lives beside WeightsFile
// because it shares the format line, the provenance and the strict decoder
// (and the tuner, which writes it, cannot import the protocol's package);
// it is a type of its own because nothing of a feature set applies.
type PlayerFile struct {
	Player     PlayerInfo
	Params     []NamedValue // every declared parameter, in declaration order
	Provenance *Provenance  // optional
	// Checks pin the player's moves. Reading verifies their form only:
	// only the player can say whether it still chooses them.
	Checks []MoveCheck
	// Notes are written as comments (see Notes); nil when reading.
	Notes *Notes
}

// PlayerInfo names a player: its id line and the command that ran it.
type PlayerInfo struct {
	ID, Version string
	Command     []string // the program, then its arguments, as given
	// Dir is the absolute directory the command ran from, which a relative
	// command (./player, python3 player.py) needs; "" in files written
	// before it was recorded.
	Dir string
}

// NamedValue is one parameter's value.
type NamedValue struct {
	Name  string
	Value float64
}

// A MoveCheck is a board and the move a player chose on it.
type MoveCheck struct {
	Board engine.Board
	Move  engine.Dir
	Line  int // where the check starts in the file it was read from; 0 otherwise
}

// Values returns the parameters' values, in order.
func (pf *PlayerFile) Values() []float64 {
	v := make([]float64, len(pf.Params))
	for i, p := range pf.Params {
		v[i] = p.Value
	}
	return v
}

// playerID is the protocol's grammar of a player's name.
var playerID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

type playerDoc struct {
	Format     string         `yaml:"format,required"`
	Player     *playerInfoDoc `yaml:"player,required"`
	Params     *yaml.Node     `yaml:"params,required"`
	Provenance *provenanceDoc `yaml:"provenance"`
	Checks     []*yaml.Node   `yaml:"checks"`
}

type playerInfoDoc struct {
	ID      string   `yaml:"id,required"`
	Version string   `yaml:"version,required"`
	Command []string `yaml:"command,required"`
	Dir     string   `yaml:"dir"`
}

type moveCheckDoc struct {
	Board boardText `yaml:"board,required"`
	Move  dirText   `yaml:"move,required"`
}

// dirText reads a move by its protocol name.
type dirText engine.Dir

func (d *dirText) UnmarshalText(text []byte) error {
	for _, x := range engine.Dirs {
		if x.String() == string(text) {
			*d = dirText(x)
			return nil
		}
	}
	return fmt.Errorf("%q is not a move (want up, down, left or right)", text)
}

// IsPlayerFile reports whether data looks like a params file (a mapping
// with the key player) rather than a feature set's weights file; it says
// nothing of whether the file is valid.
func IsPlayerFile(data []byte) bool {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return false
	}
	return hasKey(root.Content[0], "player")
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// ReadPlayerFile reads the params file at path (see ParsePlayerFile).
func ReadPlayerFile(path string) (*PlayerFile, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePlayerFile(data, path)
}

// ParsePlayerFile decodes a params file strictly: format FormatV2, the
// player's id (the protocol's grammar), version and command (not empty),
// its parameters (at least one, each a finite number, in the order the file
// gives, which is the player's declaration order), the optional provenance
// and checks (a board with a legal move, and a move that is legal on it).
// Every error is a *FileError naming the file and line, wrapping
// ErrWeightsFile.
func ParsePlayerFile(data []byte, name string) (*PlayerFile, error) {
	f := yamlx.File{Name: name, Root: "params file", Kind: ErrWeightsFile}
	root, err := f.Parse(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, f.At(1, "", "empty file (want a mapping with format, player and params)")
	}
	p := &parser{lines: yamlx.NewLines(f), format: FormatV2}
	var doc playerDoc
	if err := p.lines.Decode(root, "", &doc); err != nil {
		return nil, err
	}
	l := p.lines
	if doc.Format != FormatV2 {
		return nil, l.Errorf("format", "%q: a params file is format %s", doc.Format, FormatV2)
	}
	pf := &PlayerFile{Player: PlayerInfo{ID: doc.Player.ID, Version: doc.Player.Version, Command: doc.Player.Command, Dir: doc.Player.Dir}}
	switch {
	case !playerID.MatchString(pf.Player.ID):
		return nil, l.Errorf("player.id", "%q: want a name of letters, digits, '.', '_' and '-'", pf.Player.ID)
	case strings.TrimSpace(pf.Player.Version) == "" || strings.ContainsAny(pf.Player.Version, "\n\r"):
		return nil, l.Errorf("player.version", "want the version the player's id line gives, not empty")
	case len(pf.Player.Command) == 0 || pf.Player.Command[0] == "":
		return nil, l.Errorf("player.command", "want the player's program and its arguments, a list such as [python3, player.py]")
	case strings.ContainsAny(pf.Player.Dir, "\n\r\x00"):
		return nil, l.Errorf("player.dir", "want the directory the command ran from, on one line")
	}
	if doc.Params.Kind != yaml.MappingNode || len(doc.Params.Content) == 0 {
		return nil, f.Errorf(doc.Params, "params", "want a mapping of the player's parameters to numbers, at least one")
	}
	var m map[string]float64
	if err := l.Decode(doc.Params, "params", &m); err != nil {
		return nil, err
	}
	for _, k := range l.Keys("params") {
		pf.Params = append(pf.Params, NamedValue{Name: k, Value: m[k]})
	}
	if pf.Provenance, err = p.provenance(doc.Provenance); err != nil {
		return nil, err
	}
	for i, item := range doc.Checks {
		what := fmt.Sprintf("checks[%d]", i)
		var d moveCheckDoc
		if err := l.Decode(item, what, &d); err != nil {
			return nil, err
		}
		c := MoveCheck{Board: engine.Board(d.Board), Move: engine.Dir(d.Move), Line: max(item.Line, 1)}
		if !c.Board.CanMove() {
			return nil, l.Errorf(what+".board", "%s has no legal move: nothing to ask a player", c.Board.Hex())
		}
		if _, _, ok := c.Board.Move(c.Move); !ok {
			return nil, l.Errorf(what+".move", "%v is not a legal move on %s (%s)", c.Move, c.Board.Hex(), c.Board)
		}
		pf.Checks = append(pf.Checks, c)
	}
	return pf, nil
}

// Marshal returns the YAML form of pf, in FormatV2, verified by reading
// it back (whatever Marshal returns, ParsePlayerFile accepts).
func (pf *PlayerFile) Marshal() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) { root.Content = append(root.Content, str(key), v) }
	add("format", str(FormatV2))
	player := &yaml.Node{Kind: yaml.MappingNode}
	cmd := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, w := range pf.Player.Command {
		cmd.Content = append(cmd.Content, str(w))
	}
	player.Content = append(player.Content, str("id"), str(pf.Player.ID), str("version"), str(pf.Player.Version), str("command"), cmd)
	if pf.Player.Dir != "" {
		player.Content = append(player.Content, str("dir"), str(pf.Player.Dir))
	}
	add("player", player)
	params := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range pf.Params {
		params.Content = append(params.Content, str(p.Name), pf.Notes.noted(p.Name, float(p.Value)))
	}
	add("params", params)
	if p := pf.Provenance; p != nil {
		n, err := provenanceNode(p)
		if err != nil {
			return nil, err
		}
		add("provenance", n)
	}
	if len(pf.Checks) > 0 {
		checks := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range pf.Checks {
			n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			n.Content = append(n.Content,
				str("board"), &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: c.Board.Hex()},
				str("move"), str(c.Move.String()))
			n.LineComment = c.Board.String()
			checks.Content = append(checks.Content, n)
		}
		add("checks", checks)
	}
	doc := &yaml.Node{
		Kind:        yaml.DocumentNode,
		HeadComment: pf.Notes.headComment("evotune params of an external player: the format is defined in docs/weights-file.md (github.com/evotune/evotune)"),
		Content:     []*yaml.Node{root},
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("eval: cannot write params: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("eval: cannot write params: %w", err)
	}
	if _, err := ParsePlayerFile(buf.Bytes(), "(written params)"); err != nil {
		return nil, fmt.Errorf("eval: cannot write params: %w", err)
	}
	return buf.Bytes(), nil
}
