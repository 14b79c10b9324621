// Package proctree implements a child process that evotune starts, speaks
// to over pipes and ends together with every process it started: a
// player (tuner/playerpool) or an optimizer run as a peer
// (tuner/tunebench). Other people's programs are input; what they may do
// to evotune is bounded here, once, for both.
//
// The design:
//
//   - Start runs a command in a tree of its own: on Unix the process group
//     it leads (Setpgid), on Windows a Job object that kills its
//     processes when it is closed, the process being put in it the moment
//     after it starts (a process it starts in that instant escapes it). On
//     Windows the process also gets a console process group of its own, so
//     that Ctrl-C at the console reaches evotune only: evotune ends its
//     trees itself, in order. On Linux the kernel kills the process if
//     evotune dies, however it dies, kill -9 included (Pdeathsig): the
//     backstop for when no code of evotune's runs. Two limits: it reaches
//     the direct child only, not what it started, and the kernel sends it
//     when the thread that started the child exits, not the process; Go
//     ends a thread only when a goroutine locked to it exits, which no
//     goroutine starting a tree is. Elsewhere (macOS, the BSDs) a tree
//     outlives a kill -9 of evotune; where there are neither process
//     groups nor Job objects, Kill ends the process only.
//   - Kill kills the whole tree at once (SIGKILL to the group; the Job
//     object terminated), so that a grandchild holding a pipe, as a shell
//     script's commands do, cannot keep evotune waiting, and closes our
//     ends of the pipes, which ends a read or a write under way. It is
//     safe from any goroutine and more than once. KillAll kills every tree
//     not yet killed: for a program that must exit now (a second Ctrl-C),
//     since a tree in a group or job of its own outlives a plain exit.
//   - The pipes are ours, not the exec.Cmd's, so that Wait reaps the
//     process as soon as it exits without closing what is still read. On
//     Linux the standard input and output are read and written with
//     system calls the runtime is not told of (pipe_linux.go): a slot
//     whose player answers in tens of microseconds saved a tenth of the
//     CPU of evotune and the player together that way.
//   - The standard error is copied by a goroutine into a Log: at most its
//     limit passes on to the Log's writer, then a marker line, and the
//     rest is read and dropped, so that a process flooding it costs a
//     bounded file and the CPU of draining the pipe, never a blocked
//     child. The Log keeps the end of what it passed on, and Tail quotes
//     its last few lines, bounded, for the one-line error that names the
//     process's failure. A Log can take lines of its owner's too (a
//     player's comments), within the same budget.
//   - CPU reads the tree's CPU while it runs, every process's in it and
//     what they have reaped: from /proc on Linux (the processes of the
//     group, exited but unreaped ones included), from the Job object's
//     accounting on Windows, nowhere else; it returns the most read so
//     far, since a process reaped by one outside the group takes its time
//     out of the sum. ExitCPU, once the process has exited, is its exit
//     figure (the rusage of the reaped process and the children it waited
//     for; the job's on Windows) or the most read live, whichever is more.
//
// The files: proctree.go (Start, Kill, the CPU readings), log.go (Log),
// and per system tree_unix.go (every Unix), tree_linux.go and
// tree_unixother.go (the death signal and the live CPU, or their
// absence), tree_windows.go, tree_other.go (neither groups nor jobs),
// pipe_linux.go and pipe_other.go.
package proctree
