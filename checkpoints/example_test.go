package checkpoints_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evotune/evotune/checkpoints"
)

// A run saves a checkpoint after each generation; a resumed run continues
// from the newest one that verifies, and learns why newer ones were passed
// over.
func ExampleStore() {
	run, err := os.MkdirTemp("", "evotune-run-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(run)

	release, err := checkpoints.Lock(run)
	if err != nil {
		log.Fatal(err) // runs/quick is in use by process 1234 (lock file runs/quick/lock)
	}
	defer release()

	store, err := checkpoints.OpenStore(filepath.Join(run, "checkpoints"), 2)
	if err != nil {
		log.Fatal(err)
	}
	for g := 1; g <= 3; g++ {
		c := &checkpoints.Checkpoint{RulesVersion: 1, Generation: g, Payload: fmt.Appendf(nil, `{"mean":[%d]}`, g)}
		if _, err := store.Save(c); err != nil {
			log.Fatal(err)
		}
	}
	// A power cut tears the newest file.
	newest := filepath.Join(store.Dir(), checkpoints.FileName(3))
	if err := os.Truncate(newest, 40); err != nil {
		log.Fatal(err)
	}

	c, path, skipped, err := store.Latest()
	if err != nil {
		log.Fatal(err)
	}
	for _, err := range skipped {
		msg := strings.TrimPrefix(err.Error(), run+"/") // run-relative, for this output
		fmt.Printf("%s; using %s\n", msg, filepath.Base(path))
	}
	fmt.Printf("resuming after generation %d from %s: %s\n", c.Generation, filepath.Base(path), c.Payload)
	// Output:
	// checkpoints/gen-00000003.ckpt: truncated: 40 bytes; using gen-00000002.ckpt
	// resuming after generation 2 from gen-00000002.ckpt: {"mean":[2]}
}

// Workers append finished games; a resumed run keeps the games of the
// generation it resumes and replays only the others.
func ExampleJournal() {
	run, err := os.MkdirTemp("", "evotune-run-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(run)
	path := filepath.Join(run, checkpoints.JournalName)

	j, err := checkpoints.OpenJournal(path, time.Second)
	if err != nil {
		log.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		e := checkpoints.Entry{Generation: 7, Fingerprint: 0xfeed, Seed: seed, Score: 1000 * int(seed), MaxTile: 128, Moves: 90, Final: 0x1234}
		if err := j.Append(e); err != nil {
			log.Fatal(err)
		}
	}
	if err := j.Close(); err != nil { // a crash would lose at most the last second
		log.Fatal(err)
	}

	entries, skipped, err := checkpoints.ReadJournal(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(entries), "games,", len(skipped), "bad lines")
	for _, e := range entries {
		if e.Generation == 7 {
			fmt.Println("seed", e.Seed, "score", e.Score)
		}
	}
	// Output:
	// 3 games, 0 bad lines
	// seed 1 score 1000
	// seed 2 score 2000
	// seed 3 score 3000
}
