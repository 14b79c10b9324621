package main

// Commands whose packages have not landed yet. Each moves to a file of its
// own when it is built.

var tuneCommand = &command{
	name:     "tune",
	synopsis: "[--config FILE] [--out DIR] [--seed N] [--generations N] [--duration 8h] [--workers N] [--games N] [--population N] [--depth N]",
	summary:  "tune evaluation weights by playing seeded games (the main job)",
}

var resumeCommand = &command{
	name:     "resume",
	synopsis: "DIR [--generations N] [--duration D] [--workers N]",
	summary:  "continue an interrupted or finished run from its newest good checkpoint",
}

var exportCommand = &command{
	name:     "export",
	synopsis: "DIR|CHECKPOINT [-o FILE]",
	summary:  "write the recommended weights of a run as a weights file",
}

var checkCommand = &command{
	name:     "check",
	synopsis: "FILE",
	summary:  "verify a weights file: format, features and golden checks",
}

var optbenchCommand = &command{
	name:     "optbench",
	synopsis: "--optimizer cmaes|cem --function sphere|ellipsoid|rosenbrock|rastrigin --dim N [flags]",
	summary:  "benchmark the optimizers on standard test functions",
}

var playCommand = &command{
	name:     "play",
	synopsis: "[--eval NAME] [--search expectimax|beam] [--depth N] [--width K] [--games N] [--seed N] [--workers N] [--json]",
	summary:  "play seeded games with a searcher and report score statistics",
}

var searchCommand = &command{
	name:     "search",
	synopsis: "--board B [--eval NAME] [--depth N] [--tt=BOOL] [--json]",
	summary:  "search one board and report its value, node count and each move's value",
}
