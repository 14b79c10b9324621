package checkpoints

import "errors"

// Sentinel errors. Every error this package returns about a file's content or
// a run directory's state wraps one of them, so callers test with errors.Is.
var (
	// ErrCorrupt reports a checkpoint file or journal line that is torn,
	// truncated, bit-flipped or not evotune's at all.
	ErrCorrupt = errors.New("checkpoints: corrupt")
	// ErrVersion reports a format version this build cannot read.
	ErrVersion = errors.New("checkpoints: unknown format version")
	// ErrNoCheckpoint reports a checkpoint directory without a usable file.
	ErrNoCheckpoint = errors.New("checkpoints: no usable checkpoint")
	// ErrLocked reports a run directory in use by another process (or by
	// another Lock in this one).
	ErrLocked = errors.New("checkpoints: run directory in use")
	// ErrRules reports a checkpoint written under other game rules than
	// this build plays: resuming it could not reproduce its games.
	ErrRules = errors.New("checkpoints: rules version mismatch")
)

// kindError is an error whose text is already complete ("gen-00000012.ckpt:
// checksum mismatch") but which still matches its sentinel: wrapping with
// %w would repeat the sentinel's text in every message.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }
