package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/evotune/evotune/engine"
)

// A Checkpoint is the state of a run after Generation completed generations.
type Checkpoint struct {
	RulesVersion int    // engine.RulesVersion when written
	Generation   int    // completed generations
	Payload      []byte // opaque here: the tuner's resolved config and state
}

// Format constants; doc.go lays the format out byte for byte.
const (
	// FormatVersion is the format Encode writes and the newest Decode reads.
	FormatVersion = 1

	magic = "evotune checkpoint\n"

	// The envelope every format version keeps: magic, version, ..., hash.
	versionOff = len(magic)
	envelope   = versionOff + 4 + sha256.Size

	// Version 1: rules version, generation and payload length follow the
	// format version.
	v1Header = versionOff + 4 + 8 + 8 + 8
	v1Min    = v1Header + sha256.Size
)

// Encode returns the file bytes of c in the current format. It is
// deterministic: equal checkpoints give equal bytes.
func Encode(c *Checkpoint) []byte {
	b := make([]byte, 0, v1Min+len(c.Payload))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, FormatVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(c.RulesVersion)))
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(c.Generation)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(c.Payload)))
	b = append(b, c.Payload...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// Decode parses and verifies the bytes of a checkpoint file. Errors wrap
// ErrCorrupt (truncated, bit-flipped, not a checkpoint) or ErrVersion (a
// format version this build does not know, such as a newer evotune's). The
// returned Payload does not alias data.
func Decode(data []byte) (*Checkpoint, error) {
	c, bad := decode(data)
	if bad != nil {
		return nil, &kindError{bad.kind, "checkpoints: " + bad.detail}
	}
	return c, nil
}

// ReadFile reads and decodes one checkpoint file; errors name the file.
func ReadFile(path string) (*Checkpoint, error) { return readFile(OS{}, path) }

func readFile(fsys FS, path string) (*Checkpoint, error) {
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err // *PathError: names the file
	}
	c, bad := decode(data)
	if bad != nil {
		return nil, &kindError{bad.kind, path + ": " + bad.detail}
	}
	return c, nil
}

// A problem is what decode found wrong: the sentinel and a description
// that Decode and ReadFile prefix differently.
type problem struct {
	kind   error
	detail string
}

func corrupt(format string, args ...any) *problem {
	return &problem{ErrCorrupt, fmt.Sprintf(format, args...)}
}

// decode returns the checkpoint or what is wrong with data. The checksum is
// verified before the version is judged, so a flipped version field reads
// as corruption, not as a newer evotune.
func decode(data []byte) (*Checkpoint, *problem) {
	n := len(data)
	if n < len(magic) {
		if bytes.HasPrefix([]byte(magic), data) {
			return nil, corrupt("truncated: %d bytes", n)
		}
		return nil, corrupt("not an evotune checkpoint (bad magic)")
	}
	if string(data[:len(magic)]) != magic {
		return nil, corrupt("not an evotune checkpoint (bad magic)")
	}
	var version uint32
	if n >= versionOff+4 {
		version = binary.LittleEndian.Uint32(data[versionOff:])
	}
	if n < envelope || !checksumOK(data) {
		// Only a diagnosis: the header is as untrustworthy as the rest.
		if version == 1 && n >= v1Header {
			want := uint64(v1Min) + binary.LittleEndian.Uint64(data[v1Header-8:])
			if want > uint64(n) {
				return nil, corrupt("truncated: %d of %d bytes", n, want)
			}
		}
		if n < envelope {
			return nil, corrupt("truncated: %d bytes", n)
		}
		if version > FormatVersion {
			return nil, corrupt("checksum mismatch (the header claims format v%d; this build reads up to v%d)", version, FormatVersion)
		}
		return nil, corrupt("checksum mismatch")
	}
	body := data[:n-sha256.Size]
	switch {
	case version > FormatVersion:
		return nil, &problem{ErrVersion, fmt.Sprintf("written by a newer evotune (format v%d; this build reads up to v%d)", version, FormatVersion)}
	case version == 1:
		return decodeV1(body)
	default: // 0: never written
		return nil, &problem{ErrVersion, fmt.Sprintf("unknown format v%d (this build reads v1 to v%d)", version, FormatVersion)}
	}
}

// checksumOK reports whether the last 32 bytes of data are the SHA-256 of
// the rest.
func checksumOK(data []byte) bool {
	sum := sha256.Sum256(data[:len(data)-sha256.Size])
	return bytes.Equal(sum[:], data[len(data)-sha256.Size:])
}

// decodeV1 decodes a checksummed version 1 body (the file without its hash).
func decodeV1(body []byte) (*Checkpoint, *problem) {
	if len(body) < v1Header {
		return nil, corrupt("truncated: %d bytes, a v1 checkpoint has at least %d", len(body)+sha256.Size, v1Min)
	}
	le := binary.LittleEndian
	payload := body[v1Header:]
	if size := le.Uint64(body[v1Header-8:]); size != uint64(len(payload)) {
		return nil, corrupt("payload length %d in the header, %d bytes in the file", size, len(payload))
	}
	return &Checkpoint{
		RulesVersion: int(int64(le.Uint64(body[versionOff+4:]))),
		Generation:   int(int64(le.Uint64(body[versionOff+12:]))),
		Payload:      bytes.Clone(payload),
	}, nil
}

// CheckRules reports, wrapping ErrRules, a checkpoint written under other
// game rules than engine.RulesVersion: its games would not replay the same.
func (c *Checkpoint) CheckRules() error {
	if c.RulesVersion != engine.RulesVersion {
		return &kindError{ErrRules, fmt.Sprintf(
			"checkpoints: generation %d was played under rules v%d; this build plays rules v%d, so the run cannot be resumed exactly",
			c.Generation, c.RulesVersion, engine.RulesVersion)}
	}
	return nil
}
