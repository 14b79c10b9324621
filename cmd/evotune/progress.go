package main

import (
	"io"
	"os"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal: progress bars go to terminals
// only, so logs and pipes stay plain.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar returns a progress bar on w counting to total, or nil when w is not
// a terminal. A nil bar is safe to use through barAdd and barDone.
func newBar(w io.Writer, total int, desc, unit string) *progressbar.ProgressBar {
	if !isTerminal(w) {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)
}

func barAdd(b *progressbar.ProgressBar, n int) {
	if b != nil {
		_ = b.Add(n)
	}
}

func barDone(b *progressbar.ProgressBar) {
	if b != nil {
		_ = b.Finish()
	}
}

// progressBar counts finished games; its methods are safe on nil and from
// several goroutines.
type progressBar struct {
	bar *progressbar.ProgressBar
}

func newGamesBar(w io.Writer, games int) *progressBar {
	b := newBar(w, games, "playing", "games")
	if b == nil {
		return nil
	}
	return &progressBar{bar: b}
}

func (p *progressBar) add(engine.Result) {
	if p != nil {
		barAdd(p.bar, 1)
	}
}

func (p *progressBar) done() {
	if p != nil {
		barDone(p.bar)
	}
}
