package playerpool

import "syscall"

// setDeathSignal has the kernel kill the player when evotune dies, however
// it dies: the backstop for kill -9, when no code of evotune's runs. Two
// limits: it reaches the player only, not the processes the player
// started (a player that starts others should end them when its input
// closes), and the kernel sends it when the thread that started the
// player exits, not the process; Go ends its threads only when a goroutine
// locked to one exits, which the goroutines starting players never are.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
