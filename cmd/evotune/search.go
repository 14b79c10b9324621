package main

var searchCommand = &command{
	name:     "search",
	synopsis: "--board B [--eval NAME] [--depth N] [--tt=BOOL] [--json]",
	summary:  "search one board and report its value, node count and each move's value",
}
