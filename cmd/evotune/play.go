package main

var playCommand = &command{
	name:     "play",
	synopsis: "[--eval NAME] [--search expectimax|beam] [--depth N] [--width K] [--games N] [--seed N] [--workers N] [--json]",
	summary:  "play seeded games with a searcher and report score statistics",
}
