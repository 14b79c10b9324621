package proctree

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// rawPipe reads and writes our end of a pipe to a child with system calls
// the runtime is not told of, and waits in the runtime's network poller
// when the pipe is empty (or full), as os.File does.
//
// os.File enters each read and write as a system call that may block, and
// entering one wakes the runtime's monitor thread if it sleeps, which it
// does whenever every goroutine waits, as a player pool's does while its
// player thinks: a wakeup of that thread, its sleep and two switches of
// threads in every request. With a player that answers in tens of microseconds
// that was a tenth of the CPU of evotune and the player together
// (nneonneo/2048-ai at cap 1, 60 games: 236 ms of CPU before, 212 after;
// docs/players.md). The pipe is non-blocking (os.Pipe makes it so), so
// neither call can block, which is what makes it safe to hide them from
// the runtime; closing the file (Kill) ends a wait as it does os.File's.
type rawPipe struct {
	f  *os.File
	rc syscall.RawConn
	// The call under way, for try, which RawConn calls: a method value
	// made once, so that a request allocates nothing (a closure per call
	// would escape to the heap).
	b     []byte
	n     int
	errno syscall.Errno
	try   func(fd uintptr) bool
}

// newPipeReader and newPipeWriter wrap f, for one goroutine at a time;
// they fall back on f itself if it has no raw connection.
func newPipeReader(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	p := &rawPipe{f: f, rc: rc}
	p.try = p.tryRead
	return p
}

func newPipeWriter(f *os.File) io.Writer {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	p := &rawPipe{f: f, rc: rc}
	p.try = p.tryWrite
	return p
}

// closed is the error of a read or write the file's closing ended, as
// os.File gives it. No deadline is ever set on these files, so closing is
// the one way RawConn's Read and Write fail.
func (p *rawPipe) closed(op string) error {
	return &os.PathError{Op: op, Path: p.f.Name(), Err: os.ErrClosed}
}

func (p *rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.b, p.n, p.errno = b, 0, 0
	err := p.rc.Read(p.try)
	p.b = nil
	switch {
	case err != nil:
		return 0, p.closed("read")
	case p.errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: p.errno}
	case p.n == 0:
		return 0, io.EOF
	}
	return p.n, nil
}

// tryRead reads once into p.b; false when the pipe is empty.
func (p *rawPipe) tryRead(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p.b[0])), uintptr(len(p.b)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait until the pipe has something
		}
		p.n, p.errno = int(r), e
		return true
	}
}

func (p *rawPipe) Write(b []byte) (int, error) {
	p.b, p.n, p.errno = b, 0, 0
	err := p.rc.Write(p.try)
	n := p.n
	p.b = nil
	switch {
	case err != nil:
		return n, p.closed("write")
	case p.errno != 0:
		return n, &os.PathError{Op: "write", Path: p.f.Name(), Err: p.errno}
	}
	return n, nil
}

// tryWrite writes what is left of p.b; false when the pipe is full.
func (p *rawPipe) tryWrite(fd uintptr) bool {
	for p.n < len(p.b) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p.b[p.n])), uintptr(len(p.b)-p.n))
		switch e {
		case 0:
			p.n += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // wait until the pipe has room
		default:
			p.errno = e
			return true
		}
	}
	return true
}
