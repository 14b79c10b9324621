package tuner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evotune/evotune/checkpoints"
)

// TestDiskFull runs on a real full disk: a small tmpfs mounted for the test
// (it needs root; skipped where mounting is not allowed). A run that fills
// the disk stops with a clear error, its last checkpoint stays intact, and
// once space is freed it resumes to the same end as an uninterrupted run.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a file system")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })

	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(smallConfig(t), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)

	// Fill the disk to the last byte as soon as generation 2 is saved.
	filler := filepath.Join(mnt, "filler")
	fill := func(rec Record) {
		if rec.Generation != 2 {
			return
		}
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, size := range []int{4096, 1} {
			for {
				if _, err := f.Write(make([]byte, size)); err != nil {
					if !errors.Is(err, syscall.ENOSPC) {
						t.Fatal(err)
					}
					break
				}
			}
		}
	}
	dir := filepath.Join(mnt, "run")
	r, err = Create(smallConfig(t), dir, Options{Events: Events{Generation: fill}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background())
	r.Close()
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("run on a full disk: err = %v, want one saying the disk is full", err)
	}
	t.Logf("the error: %v", err)
	store, _ := checkpoints.OpenStore(filepath.Join(dir, CheckpointsDir), 2)
	c, _, skipped, err := store.Latest()
	if err != nil || len(skipped) != 0 || c.Generation != 2 {
		t.Fatalf("after the failure: newest checkpoint %v, skipped %v, err %v; want generation 2 intact", c, skipped, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, CheckpointsDir))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}

	os.Remove(filler)
	r, err = Resume(dir, ResumeOverrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	got := readRun(t, dir)
	if diff := got.equal(want); diff != "" {
		t.Errorf("the run resumed after the disk filled up differs from an uninterrupted one in %s", diff)
	}
}
