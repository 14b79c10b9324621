package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/golden"
)

// fixed is the checkpoint of the golden file; never change it.
func fixed() *Checkpoint {
	return &Checkpoint{
		RulesVersion: 1,
		Generation:   12,
		Payload:      []byte(`{"optimizer":"cmaes","sigma":0.25,"weights":[47,11,270,100,70]}`),
	}
}

func sameCheckpoint(a, b *Checkpoint) bool {
	return a.RulesVersion == b.RulesVersion && a.Generation == b.Generation && bytes.Equal(a.Payload, b.Payload)
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []*Checkpoint{
		fixed(),
		{},
		{RulesVersion: -3, Generation: 1 << 40, Payload: bytes.Repeat([]byte{0, 0xff, '\n'}, 7000)},
	} {
		data := Encode(c)
		if len(data) != v1Min+len(c.Payload) {
			t.Errorf("Encode: %d bytes, want %d", len(data), v1Min+len(c.Payload))
		}
		got, err := Decode(data)
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)): %v", c, err)
		}
		if !sameCheckpoint(got, c) {
			t.Errorf("round trip: got %+v, want %+v", got, c)
		}
		if !bytes.Equal(Encode(got), data) {
			t.Error("Encode(Decode(data)) != data")
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	t.Parallel()
	a, b := Encode(fixed()), Encode(fixed())
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of the same checkpoint differ")
	}
}

func TestDecodeCopiesPayload(t *testing.T) {
	t.Parallel()
	data := Encode(fixed())
	c, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	clear(data)
	if !sameCheckpoint(c, fixed()) {
		t.Fatal("the payload aliases the input")
	}
}

// TestGolden pins format v1: old checkpoint files must stay readable, and an
// accidental change of the encoding must not pass unnoticed.
func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "checkpoint-v1.golden")
	if !golden.Check(t, path, []byte(hex.Dump(Encode(fixed())))) {
		t.Error("the checkpoint format changed. A new format needs a new FormatVersion, a decoder for it and a new golden file next to this one (which must keep decoding).")
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Decode(undump(t, string(want)))
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	if !sameCheckpoint(c, fixed()) {
		t.Errorf("%s decodes to %+v, want %+v", path, c, fixed())
	}
}

// undump parses the output of hex.Dump.
func undump(t *testing.T, dump string) []byte {
	var b []byte
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		fields := strings.Fields(line)
		for _, f := range fields[1:min(17, len(fields))] {
			if strings.HasPrefix(f, "|") {
				break
			}
			v, err := hex.DecodeString(f)
			if err != nil || len(v) != 1 {
				t.Fatalf("bad hex dump line %q", line)
			}
			b = append(b, v...)
		}
	}
	return b
}

func wantErr(t *testing.T, err, kind error, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v (%q)", kind, text)
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q does not wrap %v", err, kind)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not say %q", err, text)
	}
}

func TestDecodeTornAtEveryLength(t *testing.T) {
	t.Parallel()
	data := Encode(fixed())
	for n := range len(data) {
		c, err := Decode(data[:n])
		if c != nil {
			t.Fatalf("%d of %d bytes decoded", n, len(data))
		}
		switch {
		case n < v1Header:
			wantErr(t, err, ErrCorrupt, "checkpoints: truncated: ")
		default:
			wantErr(t, err, ErrCorrupt, fmt.Sprintf("truncated: %d of %d bytes", n, len(data)))
		}
	}
}

func TestDecodeEveryBitFlip(t *testing.T) {
	t.Parallel()
	data := Encode(&Checkpoint{RulesVersion: 1, Generation: 3, Payload: []byte(`{"x":1}`)})
	for i := range len(data) * 8 {
		bad := bytes.Clone(data)
		bad[i/8] ^= 1 << (i % 8)
		c, err := Decode(bad)
		if c != nil || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit %d flipped: got %v, %v; want ErrCorrupt", i, c, err)
		}
	}
}

// resign replaces the checksum of data after an edit of its body.
func resign(data []byte) []byte {
	body := data[:len(data)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(bytes.Clone(body), sum[:]...)
}

func TestDecodeVersions(t *testing.T) {
	t.Parallel()
	withVersion := func(v uint32) []byte {
		data := Encode(fixed())
		binary.LittleEndian.PutUint32(data[versionOff:], v)
		return resign(data)
	}
	_, err := Decode(withVersion(3))
	wantErr(t, err, ErrVersion, "checkpoints: written by a newer evotune (format v3; this build reads up to v1)")
	_, err = Decode(withVersion(0))
	wantErr(t, err, ErrVersion, "unknown format v0")

	// A flipped version field is corruption, not a newer evotune.
	data := Encode(fixed())
	data[versionOff] = 3
	_, err = Decode(data)
	wantErr(t, err, ErrCorrupt, "checksum mismatch (the header claims format v3")
}

func TestDecodeGarbage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated: 0 bytes"},
		{"magic prefix", []byte("evotune ch"), "truncated: 10 bytes"},
		{"text", []byte("hello, world\n"), "not an evotune checkpoint"},
		{"json", bytes.Repeat([]byte(`{"generation": 12}`), 10), "not an evotune checkpoint"},
		{"zeros", make([]byte, 4096), "not an evotune checkpoint"},
		{"magic and zeros", append([]byte(magic), make([]byte, 100)...), "checksum mismatch"},
		{"trailing bytes", append(Encode(fixed()), 0), "checksum mismatch"},
		{"length mismatch, signed", func() []byte {
			d := Encode(fixed())
			binary.LittleEndian.PutUint64(d[v1Header-8:], 5)
			return resign(d)
		}(), "payload length 5 in the header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode(tc.data)
			if c != nil {
				t.Fatal("decoded")
			}
			wantErr(t, err, ErrCorrupt, tc.want)
		})
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName(12))
	data := Encode(fixed())
	data[50] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	wantErr(t, err, ErrCorrupt, path+": checksum mismatch")
	if _, err := ReadFile(path + ".missing"); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckRules(t *testing.T) {
	t.Parallel()
	c := &Checkpoint{RulesVersion: engine.RulesVersion, Generation: 4}
	if err := c.CheckRules(); err != nil {
		t.Fatal(err)
	}
	c.RulesVersion++
	wantErr(t, c.CheckRules(), ErrRules, "cannot be resumed exactly")
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(fixed()))
	f.Add(Encode(&Checkpoint{}))
	f.Add(Encode(fixed())[:60])
	f.Add([]byte(magic))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data)
		if (c == nil) == (err == nil) {
			t.Fatalf("Decode: %v, %v", c, err)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", err)
			}
			return
		}
		// v1 is canonical: whatever decodes re-encodes to the same bytes.
		if !bytes.Equal(Encode(c), data) {
			t.Fatal("Encode(Decode(data)) != data")
		}
	})
}

// BenchmarkEncode is the CPU part of BenchmarkSave; the rest is two fsyncs.
func BenchmarkEncode(b *testing.B) {
	c := &Checkpoint{RulesVersion: 1, Payload: bytes.Repeat([]byte(`{"w":[47.0,11.0,270.0]},`), 20000/24)}
	b.SetBytes(int64(len(Encode(c))))
	b.ReportAllocs()
	for b.Loop() {
		Encode(c)
	}
}
