package proctree

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestRawPipe sends more than a pipe holds through a rawPipe, so that the
// writer waits for room and the reader for data, in writes and reads of
// uneven sizes, and checks that every byte arrives in order.
func TestRawPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	done := make(chan error, 1)
	go func() {
		pw := newPipeWriter(w)
		for rest := want; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(200<<10))
			if k, err := pw.Write(rest[:n]); err != nil || k != n {
				done <- errors.Join(err, io.ErrShortWrite)
				return
			}
			rest = rest[n:]
		}
		done <- w.Close()
	}()
	var got bytes.Buffer
	pr := newPipeReader(r)
	buf := make([]byte, 3000)
	for {
		n, err := pr.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("got %d bytes, not the %d sent", got.Len(), len(want))
	}
}

// TestRawPipeCloseEndsRead checks that closing the file ends a read that
// waits for a writer who never writes: how Kill ends an exchange whose
// player hangs while a process it started holds the pipe open.
func TestRawPipeCloseEndsRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	done := make(chan error, 1)
	go func() {
		_, err := newPipeReader(r).Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	r.Close()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("read after close: %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read still waiting 5s after the file was closed")
	}
}
