package proctree

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Config says how to start a tree. The zero value starts the command in
// this process's working directory with its standard error dropped.
type Config struct {
	// Dir is the working directory; "" means this process's.
	Dir string
	// Log takes the standard error; nil drops it.
	Log *Log
	// Started, if set, is called with the process's id once it runs and
	// before anything of its standard error is copied: where a log shared
	// by several processes in turn marks the start of this one's part.
	Started func(pid int)
}

// A Proc is a running tree: the process Start started and those it
// starts. Its Stdin and Stdout are for one goroutine each; Kill, Killed,
// CPU and Exited are safe from any goroutine.
type Proc struct {
	cmd     *exec.Cmd
	tree    tree
	in, out *os.File // our ends of its standard input and output
	stdin   io.Writer
	stdout  io.Reader
	errR    *os.File      // our end of its standard error, read into log
	log     *Log          // where its standard error goes
	copied  chan struct{} // closed when the copy of its standard error ended
	exited  chan struct{} // closed once the process has exited and is reaped
	waitErr error         // Wait's, once exited is closed
	most    atomic.Int64  // the most CPU read live, in ns

	mu     sync.Mutex
	killed bool
	self   bool // it exited before Kill
}

// live holds every tree started and not yet killed, for KillAll.
var live = struct {
	sync.Mutex
	m map[*Proc]struct{}
}{m: map[*Proc]struct{}{}}

// Start starts the command words (the program, then its arguments) in a
// tree of its own, with pipes to its standard input and output and its
// standard error copied into cfg.Log. The error is exec's when the
// program cannot be started, which names it.
func Start(words []string, cfg Config) (*Proc, error) {
	if len(words) == 0 {
		return nil, errors.New("proctree: no command")
	}
	var ends [6]*os.File // in r/w, out r/w, err r/w
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i]...)
			return nil, err
		}
		ends[i], ends[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p := &Proc{cmd: cmd, in: inW, out: outR, errR: errR, log: cfg.Log, copied: make(chan struct{}), exited: make(chan struct{})}
	if p.log == nil {
		p.log = NewLog(io.Discard, 1, "")
	}
	p.tree.prepare(cmd)
	err := cmd.Start()
	closeAll(inR, outW, errW) // the child holds its own copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	if err := p.tree.started(cmd); err != nil {
		p.tree.kill(cmd)
		cmd.Wait()
		p.tree.release()
		closeAll(inW, outR, errR)
		return nil, err
	}
	p.stdin, p.stdout = newPipeWriter(inW), newPipeReader(outR)
	live.Lock()
	live.m[p] = struct{}{}
	live.Unlock()
	if cfg.Started != nil {
		cfg.Started(cmd.Process.Pid)
	}
	go p.copyStderr()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.self, p.waitErr = !p.killed, err
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// copyStderr copies the standard error into the log until the pipe
// closes: when every process holding it ended, or Kill closed it.
func (p *Proc) copyStderr() {
	defer close(p.copied)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.errR.Read(buf)
		if n > 0 {
			p.log.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// Pid is the process's id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stdin writes to the process's standard input, Stdout reads its standard
// output; after Kill both fail.
func (p *Proc) Stdin() io.Writer { return p.stdin }

func (p *Proc) Stdout() io.Reader { return p.stdout }

// CloseStdin closes our end of its standard input: the process reads its
// end.
func (p *Proc) CloseStdin() { p.in.Close() }

// Kill kills the tree at once and closes our ends of its standard input
// and output, which ends a read or a write of them under way; the pipe of
// its standard error is closed once its copy ended, or after a second (a
// process outside the tree may hold it). Safe from any goroutine, and
// more than once.
func (p *Proc) Kill() {
	p.mu.Lock()
	if p.killed {
		p.mu.Unlock()
		return
	}
	p.killed = true
	p.mu.Unlock()
	p.tree.kill(p.cmd)
	p.in.Close()
	p.out.Close()
	go func() {
		p.Drained(time.Second)
		p.errR.Close()
	}()
	live.Lock()
	delete(live.m, p)
	live.Unlock()
}

// Killed reports whether Kill was called.
func (p *Proc) Killed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// KillAll kills every tree of this program not yet killed.
func KillAll() {
	live.Lock()
	ps := make([]*Proc, 0, len(live.m))
	for p := range live.m {
		ps = append(ps, p)
	}
	live.Unlock()
	for _, p := range ps {
		p.Kill()
	}
}

// Drained waits, at most wait, for the copy of the standard error to end:
// after the process exited, so that an error quotes its last words. A
// process it started may hold the pipe open longer.
func (p *Proc) Drained(wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.copied:
	case <-t.C:
	}
}

// Exited is closed once the process has exited and is reaped.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Err is Wait's error, once Exited is closed: nil for exit status 0, an
// *exec.ExitError otherwise.
func (p *Proc) Err() error { return p.waitErr }

// State is the exited process's state, once Exited is closed.
func (p *Proc) State() *os.ProcessState { return p.cmd.ProcessState }

// SelfExited reports, once Exited is closed, whether the process exited
// before Kill was called: its exit status is then its own, not the kill's.
func (p *Proc) SelfExited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self
}

// Release kills what is left of the tree, waits for the process to exit
// and frees what the tree holds (its Job object on Windows). Read ExitCPU
// before.
func (p *Proc) Release() {
	p.Kill()
	<-p.exited
	p.tree.release()
}

// CPU returns the tree's CPU time while it runs (see the package doc):
// the most read so far, and false where it cannot be read live.
func (p *Proc) CPU() (time.Duration, bool) {
	c, ok := p.tree.liveCPU(p.cmd)
	if !ok {
		return time.Duration(p.most.Load()), false
	}
	for {
		old := p.most.Load()
		if int64(c) <= old {
			return time.Duration(old), true
		}
		if p.most.CompareAndSwap(old, int64(c)) {
			return c, true
		}
	}
}

// ExitCPU is the tree's CPU once the process has exited, before Release:
// its exit figure or the most read live, whichever is more.
func (p *Proc) ExitCPU() time.Duration {
	live, _ := p.CPU()
	return max(p.tree.exitCPU(p.cmd), live)
}

// CPUReadable reports whether a tree's CPU can be read here, live or at
// its exit: on Unix and Windows.
func CPUReadable() bool { return cpuReadable }

// LiveCPU reports whether a running tree's CPU can be read here (CPU).
func LiveCPU() bool { return liveCPU() }
