// Package objective serves a tuning problem's games to an optimizer of
// one's own, over JSON lines: the optimizer names parameter values, a
// number of games and their seeds, and gets back every game's score, the
// mean and the CPU seconds spent. evotune objective serves it on stdin and
// stdout; tunebench --peer serves it to a program it runs, to judge that
// program as it judges evotune's own tuner.
//
// The protocol, with a transcript, is in docs/objective.md. In short: the
// server's first line describes the problem ({"objective": ...} with every
// free parameter's name, start, bounds, scale and type); then every line
// the optimizer sends gets exactly one line back, in order:
//
//	{"id":1,"params":{"empty":300,...},"games":40,"first":0}
//	{"id":1,"scores":[...],"mean":...,"games":40,"cpu_s":...}
//
//	{"id":2,"recommend":{"empty":310,...}}
//	{"id":2,"ok":true}
//
// and a bad line gets {"id":..,"error":"..."} naming what is wrong and
// what is allowed, after which the exchange goes on. The end of the input
// ends it.
//
// The design, and why:
//
//   - Values are in the problem's own units and by name, as a weights file
//     or a player's parameters have them, not in the tuner's scaled
//     coordinates: an optimizer of one's own should not have to know how
//     evotune's works. The first line gives each parameter's scale (the
//     tuner's: the start's magnitude, or a player parameter's range) for
//     optimizers that want a normalised space.
//   - Games are named by seed, explicitly (seeds) or as a range of the
//     objective's own stream (first, games): an optimizer that compares
//     candidates on common seeds asks for the same range twice; one that
//     wants fresh games moves on. An answer is a pure function of the
//     request and the problem, never of the requests before it, so the
//     same request gives the same answer, on any number of workers.
//   - Parameters held fixed by the tuner (the reference weight of a
//     scale-invariant set, a player's fixed parameters) are held here too,
//     and listed as such: the problem an optimizer sees is the tuner's.
//   - A bad request costs a line, not the exchange: an optimizer's bug
//     should be found by reading the error, not by a lost run. Reading is
//     strict (request.go), so that nothing is played that the optimizer
//     did not mean: JSON numbers only as numbers, no key twice, every
//     value the games cannot take refused before a game (the first line
//     gives the limits), and the first fault named in a fixed order, the
//     problem's parameter order, never a map's.
//   - Strict is not fussy: a count or a seed written as a float (8.0,
//     2e0, what Python's json.dumps writes after float arithmetic) is the
//     whole number it is, read exactly from its digits (whole.go), and a
//     fraction gets the whole numbers that would do ("write 8 or 9").
//     The NaN and Infinity words that json.dumps writes by default are
//     not JSON; rather than the decoder's words, the error names them,
//     where they are and the fix (nonfinite.go). Every error line repeats
//     the request's id wherever the line's id can be read, before a break
//     in the line or after such a word, since a client that matches
//     answers by id would otherwise fail on the id and hide the message.
//   - Free parameters, bounds, scales and held weights are the tuner's,
//     from tuner.Coordinates, under the search the games are played with.
//   - Besides the stream ("first"), a held-out block ("held_out": the
//     tuner's validation games) that no game of the stream is, so that an
//     optimizer can judge its final choice on games that did not choose
//     it.
//   - Hooks (Server.Admit, Server.Answered, Server.Recommend) let a caller
//     such as tunebench stop an optimizer at its budget, refuse seeds it
//     keeps for itself and judge recommendations; the plain server needs
//     none of them.
package objective
