package main

var resumeCommand = &command{
	name:     "resume",
	synopsis: "DIR [--generations N] [--duration D] [--workers N]",
	summary:  "continue an interrupted or finished run from its newest good checkpoint",
}
