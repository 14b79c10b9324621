// Package checkpoints implements the on-disk primitives of a run directory:
// atomic, versioned, checksummed checkpoint files, the journal of finished
// games, and the lock that keeps one process per run.
//
// Files: checkpoint.go is the file format (Encode, Decode, ReadFile);
// store.go the checkpoint directory (Store) and the atomic writer
// (WriteFile); fs.go the file-system seam both write through; journal.go
// the journal; lock.go the lock, with its system call in lock_unix.go
// (flock), lock_windows.go (LockFileEx) and lock_other.go (none: Lock
// fails); errors.go the sentinel errors.
//
// A run directory runs/NAME holds, among the tuner's own files:
//
//	lock                     Lock: an OS file lock + the holder's pid
//	journal.jsonl            Journal: games finished in the current generation, the clock
//	checkpoints/             Store: the newest keep checkpoints
//	    gen-00000012.ckpt    after 12 completed generations
//	    .gen-*.tmp           a save in progress (or one cut short by a crash)
//
// # Checkpoint files
//
// Format version 1, integers little endian, n the payload length:
//
//	offset  size  field
//	0       19    magic "evotune checkpoint\n"
//	19      4     format version, uint32 (1)
//	23      8     rules version, int64 (engine.RulesVersion of the writer)
//	31      8     generation, int64 (completed generations)
//	39      8     payload length n, uint64
//	47      n     payload (the tuner's resolved config and state, JSON)
//	47+n    32    SHA-256 of bytes [0, 47+n)
//
// Encode is deterministic, so a resumed run can be compared with an
// uninterrupted one file by file. testdata/checkpoint-v1.golden pins the
// format: changing it fails a test.
//
// Every future version keeps the envelope (the magic, the uint32 version at
// offset 19, the SHA-256 of everything before the last 32 bytes), so Decode
// verifies the checksum before judging the version: a torn or bit-flipped
// file is ErrCorrupt whatever its header says, and an intact file of an
// unknown version is ErrVersion ("written by a newer evotune (format v3;
// this build reads up to v1)"). A reader reads its own version and every
// older one it knows; bump FormatVersion, add a decoder for the new version
// and keep the old one (with its golden file) when the layout changes.
//
// # Saving
//
// Store.Save writes like google/renameio: a temp file .gen-*.tmp in the
// checkpoint directory (the same file system, so the rename is atomic),
// write, fsync, close, rename over gen-%08d.ckpt, fsync the directory. A
// crash or a failure at any step leaves either the old state or the new
// file, never a half-written checkpoint under a checkpoint name; on failure
// Save removes its temp file and leaves the previous checkpoints alone.
// After a successful save it deletes all but the newest keep checkpoints up
// to the one saved, and temp files left by crashes.
//
// WriteFile is the same atomic write for the other files of a run (the
// resolved config, for one): the project's one atomic writer.
//
// The steps whose failure must be survived (create and write the temp
// file, rename, sync the directory, read a checkpoint back, open the
// journal and then write and sync it) go through the small FS interface;
// OS{} is the real file system and the default of OpenStore, OpenJournal,
// ReadFile and WriteFile. OpenStoreFS, OpenJournalFS and WriteFileFS take
// another, which is how the tests (this package's and the tuner's) play a
// full disk, a failing sync or rename and an unreadable file without
// root-proof chmod tricks, a mounted file system or package state, so they
// run anywhere and in parallel.
//
// Store.Latest walks the checkpoints from the newest down and returns the
// first that verifies, reporting each newer file it passed over (torn,
// corrupt, unknown version) so the tuner can say why it resumes from an
// older generation. The package records the rules version but does not
// judge it; Checkpoint.CheckRules does, for the resume path.
//
// # Journal
//
// Games take seconds, so finished games are journalled and a resumed run
// replays only the games that were in flight. The journal is one file,
// runs/NAME/journal.jsonl, one line per game, each line valid JSON that
// checks itself:
//
//	{"v":1,"gen":12,"fp":"0x…","seed":…,"score":…,"max_tile":…,"moves":…,"final":"0x…","crc":"1a2b3c4d"}
//
// fp and final are 16 hex digits (final is a board in engine's hex form),
// seed is decimal, and crc is the CRC-32C of the line's bytes before
// `,"crc"`. A reader accepts only the exact bytes the writer produces, so a
// torn, bit-flipped or hand-edited line is skipped and reported, never
// misread. gen is the generation the game belongs to (completed
// generations before it).
//
// Between the games, a running run journals its clock twice a second
// (Journal.AppendClock, format v2 of the line; a game's line is still v1):
//
//	{"v":2,"gen":12,"elapsed_ms":…,"cpu_ms":…,"crc":"1a2b3c4d"}
//
// the wall-clock and CPU time the run had spent, every earlier process
// counted: the history records them only when a generation ends, so a
// process stopped before that (by Ctrl-C, kill -9 or a power cut) would
// otherwise take its time with it. ReadJournalContents returns these lines
// with the games; ReadJournal the games alone.
//
// Journal.Append writes its line at once with one write call (many workers
// append at once; a mutex keeps lines whole) but does not fsync: a killed
// process loses no finished game, since the kernel holds what was written.
// A background goroutine fsyncs every flush interval (one second by
// default), so a power cut loses at most the games of the last interval.
// Flush and Close fsync at once.
//
// The tuner's protocol: on resume, ReadJournal and keep the entries whose
// Generation is the checkpoint's; OpenJournal; Append each finished game;
// after Store.Save of the next generation, Journal.Reset truncates the
// file. Correctness rests on the gen field, not on Reset: a crash between
// the save and the reset leaves entries of an older generation, which the
// filter drops. A torn last line is ended with a newline by OpenJournal, so
// the next entry is not glued to the fragment.
//
// # Lock
//
// Lock(runDir) takes an exclusive lock on runDir/lock without waiting and
// writes the pid there for the error message of the next process. The lock
// is the operating system's and belongs to the open file, not the process:
// flock(LOCK_EX|LOCK_NB) on Unix; on Windows LockFileEx on one byte far
// past the pid, since Windows range locks are mandatory and would hide the
// pid from the process that fails to lock. The kernel drops it when the
// process dies, however it dies, so there is no stale lock to clean up; the
// file itself stays. Where neither exists (aix, plan9, js, wasip1) Lock
// fails with errors.ErrUnsupported rather than take a lock that a crash
// could leave behind. Store and Journal assume that the caller holds the
// lock: they delete temp files and truncate without coordinating with
// other processes.
package checkpoints
