package main

var checkCommand = &command{
	name:     "check",
	synopsis: "FILE",
	summary:  "verify a weights file: format, features and golden checks",
}
