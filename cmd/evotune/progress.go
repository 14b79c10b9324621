package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal: progress bars go to terminals
// only, so logs and pipes stay plain.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// bar is a progress bar on a terminal. Its methods are safe on a nil bar
// (no terminal) and from several goroutines.
type bar struct {
	w  io.Writer
	pb *progressbar.ProgressBar
}

// newBar returns a bar on w counting to total (-1: unknown), or nil when w
// is not a terminal.
func newBar(w io.Writer, total int, desc, unit string) *bar {
	if !isTerminal(w) {
		return nil
	}
	return &bar{w: w, pb: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)}
}

// newPhaseBar returns a bar on w for one part of a run at a time (reset),
// or nil when w is not a terminal. It shows the count, not a rate or a
// time left: the description carries the pace of the games played (not
// those the journal gives back) and the run's end.
func newPhaseBar(w io.Writer) *bar {
	if !isTerminal(w) {
		return nil
	}
	return &bar{w: w, pb: progressbar.NewOptions(1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(20),
	)}
}

// reset starts the bar again at 0 of total.
func (b *bar) reset(total int) {
	if b != nil {
		b.pb.Reset()
		b.pb.ChangeMax(total)
	}
}

// set shows n done.
func (b *bar) set(n int) {
	if b != nil {
		_ = b.pb.Set(n)
	}
}

func (b *bar) add(n int) {
	if b != nil {
		_ = b.pb.Add(n)
	}
}

func (b *bar) describe(s string) {
	if b != nil {
		b.pb.Describe(s)
	}
}

// println prints a line above the bar.
func (b *bar) println(s string) {
	if b != nil {
		_ = b.pb.Clear()
		fmt.Fprintln(b.w, s)
		_ = b.pb.RenderBlank()
	}
}

func (b *bar) done() {
	if b != nil {
		_ = b.pb.Finish()
	}
}
