// Package players implements no Go API: it holds example players of the
// player protocol (evotune-player/1, docs and DESIGN.md "External players")
// written outside Go, and the tests that run them as real child processes.
//
//   - python/: a small expectimax player in Python 3, standard library only,
//     the example to start from in another language. It speaks version 2
//     of the protocol (16 parameter sets) unless given --protocol 1.
//   - nneonneo/: an adapter that serves nneonneo/2048-ai's own search and
//     heuristic over the protocol, built from a checkout of that program by
//     its build.sh; the program's source is not part of this repository. It
//     speaks version 2 of the protocol (several parameter sets at once, each
//     board of a request naming its set) unless given --protocol 1.
//
// The tests speak the protocol through a few lines of their own rather than
// the tuner's player pool, so that they check the examples against the
// protocol's text and not against one client of it: the handshake and its
// declarations, legal moves on boards from seeded games (checked with package
// engine), the same answers in another batching and order, errors for an
// unknown or out-of-range parameter, a clean quit. The nneonneo adapter's
// moves are also checked against evotune's reimplementation of that program
// (engine.Nneonneo with the eval set nneonneo), whose values equal the
// program's bit for bit. Both players' version-2 moves are checked against
// version-1 sessions given the same values, over many boards with the sets
// mixed in each request; every malformed set number or version-1 form sent
// to a version-2 session must get one error line and leave the session as
// it was; and a tiny tuning run of the Python player through evotune tune
// (built from this module) must give the same history in both versions.
// The Python tests are skipped without python3 (the tuning run also without
// the go command), the nneonneo ones without the program's source
// (NNEONNEO_SRC, or the pinned copy at ../shared/tools/nneonneo-harness/upstream
// from the repository root) or a C++ compiler.
package players
