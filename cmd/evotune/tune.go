package main

var tuneCommand = &command{
	name:     "tune",
	synopsis: "[--config FILE] [--out DIR] [--seed N] [--generations N] [--duration 8h] [--workers N] [--games N] [--population N] [--depth N]",
	summary:  "tune evaluation weights by playing seeded games (the main job)",
}
