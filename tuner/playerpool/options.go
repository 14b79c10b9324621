package playerpool

import "time"

// The defaults of Options' limits, as DESIGN.md gives them.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultMoveTimeout      = 10 * time.Second
	DefaultQuitTimeout      = 5 * time.Second
)

// Limits on what a player may send, so that a broken or hostile one costs
// evotune bounded memory and time.
const (
	// MaxParams is the most parameters a player may declare; the handshake
	// fails at the first param line past it.
	MaxParams = 64
	// MaxLine is the longest line a player may send, in bytes, its end of
	// line not counted. A longer line fails the exchange once MaxLine bytes
	// are read, whatever the player goes on writing.
	MaxLine = 64 << 10
	// MaxSets is the most parameter sets a version-2 player may hold at
	// once (its protocol line's SETS): a set number is one or two digits,
	// and a slot never has more candidates in flight than boards.
	MaxSets = 64
)

// Options configure player processes and the pool; every zero value is the
// documented default.
type Options struct {
	// HandshakeTimeout bounds the whole handshake, from the hello to ready,
	// and each set; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MoveTimeout bounds a move exchange (writing the request and reading
	// the answer), per board; 0 means DefaultMoveTimeout.
	MoveTimeout time.Duration
	// QuitTimeout is how long a player has to exit after quit before it is
	// killed; 0 means DefaultQuitTimeout.
	QuitTimeout time.Duration
	// Batch is k, the games a slot plays at once in lockstep (boards per
	// move request); 0 means DefaultBatch.
	Batch int
	// LogDir holds the pool's logs, slot-N.log for slot N: each player's
	// standard error and comments, at most MaxProcessLog bytes a process,
	// started afresh by each pool (see logFile). "" means temporary files,
	// removed by Close.
	LogDir string
	// Dir is the players' working directory; "" means this process's.
	Dir string
	// FirstSlot is the number of the pool's first slot, so of its log
	// slot-N.log; 0 means 1. Pools that share LogDir (a NATS worker runs
	// one pool of one slot for each job it plays at once) number their
	// slots apart.
	FirstSlot int
}

func (o Options) handshake() time.Duration {
	if o.HandshakeTimeout > 0 {
		return o.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

func (o Options) move() time.Duration {
	if o.MoveTimeout > 0 {
		return o.MoveTimeout
	}
	return DefaultMoveTimeout
}

func (o Options) quit() time.Duration {
	if o.QuitTimeout > 0 {
		return o.QuitTimeout
	}
	return DefaultQuitTimeout
}
