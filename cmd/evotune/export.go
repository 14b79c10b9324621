package main

var exportCommand = &command{
	name:     "export",
	synopsis: "DIR|CHECKPOINT [-o FILE]",
	summary:  "write the recommended weights of a run as a weights file",
}
