#!/usr/bin/env python3
"""A small 2048 player that speaks evotune's player protocol, version 2.

It chooses moves by expectimax over a heuristic of four numbers, all of them
declared as parameters so that evotune can tune them:

  empty         weight of the empty cells
  merges        weight of the pairs of equal tiles next to each other
  monotonicity  weight of the (negative) non-monotonicity of the lines
  mono_power    the power (an int) the ranks are raised to in monotonicity

Every feature is a sum over the 8 lines of the board (4 rows, 4 columns), so
a board's heuristic is 8 look-ups in a table of the 65536 possible lines,
built at each `set`, one table per parameter set. The search is evotune's
exact expectimax (docs/searches.md) with move scores: a move is worth its
score plus the mean, over the spawns that follow it, of the best move below,
down to the heuristic at depth 0; a board with no legal move below the root
is worth 0. At the default --depth 2 (plies: a move layer, then a spawn
layer) that is one move and the mean heuristic of the boards its spawns
give. Ties go to the first of up, down, left, right, so the player is
deterministic.

Standard library only; run `player.py --help` for its flags. The protocol
(docs/players.md), in one screen:

  -> evotune-player 1
  <- id python-expectimax 1 depth=2
  <- protocol 2 16                            (version 2: it holds 16 parameter sets)
  <- param empty float 120.0 0.0 1000.0       (one line per parameter:
  <- ...                                       NAME TYPE DEFAULT MIN MAX)
  <- ready
  -> set 1 empty=120 merges=60 monotonicity=4 mono_power=2
  <- ok                                       (or: error TEXT)
  -> set 2 empty=0 merges=60 monotonicity=0 mono_power=2
  <- ok
  -> move 1:0x0000000000001211 2:0x0000000000001211 1:0x0000000000012345
  <- best left down right                     (one move per board, each chosen with
  -> quit                                      the values of the set named before it)

What version 2 adds is the set number: in `set S ...` the set that takes
the values, in `move S:B` the set whose values choose B's move. evotune
gives each candidate a set, so one request carries several candidates'
games: fewer, fuller requests for the same games. With `--protocol 1` the
player speaks version 1: no `protocol` line, one set, `set NAME=VALUE ...`
and `move B1 B2 ...`.
"""

import argparse
import itertools
import math
import re
import sys

HELLO = "evotune-player 1"  # evotune's first line, in both versions
NAME = "python-expectimax"
VERSION = "1"
SETS = 16  # version 2: the parameter sets held at once, numbered 1 to SETS

# name, type, default, min, max: the parameters in declaration order.
PARAMS = (
    ("empty", "float", 120.0, 0.0, 1000.0),
    ("merges", "float", 60.0, 0.0, 1000.0),
    ("monotonicity", "float", 4.0, 0.0, 100.0),
    ("mono_power", "int", 2, 1, 4),
)

DEFAULTS = {name: default for name, _, default, _, _ in PARAMS}
DIRS = ("up", "down", "left", "right")
MAX_POWER = 4

BOARD_RE = re.compile(r"0x[0-9a-fA-F]{1,16}\Z")
# Version 2's set numbers as a request must write them, "1" to "16": int()
# alone would also take "01", "+1", " 1" and "1_0".
SET_NUMBERS = {str(s): s for s in range(1, SETS + 1)}


class ProtocolError(Exception):
    """A request the player cannot serve: it is answered `error COMMAND: TEXT`."""


def slide_left(line):
    """Slides a line of ranks toward index 0 by the rules of 2048.

    Returns the new line and the move's score (the values of the tiles made).
    Tiles merge in pairs from the side moved toward, each at most once, and
    two 32768 tiles (rank 15) do not merge.
    """
    tiles = [r for r in line if r]
    out, score, i = [], 0, 0
    while i < len(tiles):
        r = tiles[i]
        if i + 1 < len(tiles) and tiles[i + 1] == r and r < 15:
            out.append(r + 1)
            score += 1 << (r + 1)
            i += 2
        else:
            out.append(r)
            i += 1
    return out + [0] * (4 - len(out)), score


class Tables:
    """The 65536-entry line tables, built once: a row's cells are its four
    nibbles, column 0 (the first cell of the line) in the low nibble."""

    def __init__(self):
        n = 1 << 16
        self.left = [0] * n  # the row after sliding toward column 0
        self.right = [0] * n  # the row after sliding toward column 3
        self.score_left = [0] * n
        self.score_right = [0] * n
        self.empty = [0] * n
        self.merges = [0] * n
        self.mono = [[0] * n for _ in range(MAX_POWER)]
        # Non-monotonicity by pairs of neighbours (x, y), one table per
        # power: what x -> y adds to L (falling) and to R (rising).
        fall = [[max(0, x ** p - y ** p) for x in range(16) for y in range(16)]
                for p in range(1, MAX_POWER + 1)]
        rise = [[max(0, y ** p - x ** p) for x in range(16) for y in range(16)]
                for p in range(1, MAX_POWER + 1)]
        row = 0
        # product varies its last element fastest: that is cell 0, the low nibble.
        for d, c, b, a in itertools.product(range(16), repeat=4):
            line = (a, b, c, d)
            moved, score = slide_left(line)
            self.left[row] = moved[0] | moved[1] << 4 | moved[2] << 8 | moved[3] << 12
            self.score_left[row] = score
            self.empty[row] = line.count(0)
            tiles = [r for r in line if r]
            self.merges[row] = sum(1 for x, y in zip(tiles, tiles[1:]) if x == y)
            ab, bc, cd = a * 16 + b, b * 16 + c, c * 16 + d
            for p in range(MAX_POWER):
                f, r = fall[p], rise[p]
                self.mono[p][row] = min(f[ab] + f[bc] + f[cd], r[ab] + r[bc] + r[cd])
            row += 1
        # Sliding right is sliding the reversed row left.
        for row in range(n):
            rev = reverse_row(row)
            self.right[row] = reverse_row(self.left[rev])
            self.score_right[row] = self.score_left[rev]


def reverse_row(row):
    return (row >> 12) | ((row >> 4) & 0x00F0) | ((row << 4) & 0x0F00) | ((row << 12) & 0xF000)


def transpose(x):
    """Swaps rows and columns: cell (r, c) goes to (c, r)."""
    a1 = x & 0xF0F00F0FF0F00F0F
    a2 = x & 0x0000F0F00000F0F0
    a3 = x & 0x0F0F00000F0F0000
    a = a1 | (a2 << 12) | (a3 >> 12)
    b1 = a & 0xFF00FF0000FF00FF
    b2 = a & 0x00FF00FF00000000
    b3 = a & 0x00000000FF00FF00
    return b1 | (b2 >> 24) | (b3 << 24)


def parse_values(text):
    """Parses `NAME=VALUE ...`, every parameter exactly once, into a dict.
    It raises before anything changes, so a rejected set never leaves a
    mixture of old and new values."""
    declared = {p[0]: p for p in PARAMS}
    values = {}
    for tok in text.split():
        name, eq, val = tok.partition("=")
        if not eq:
            raise ProtocolError("%r is not NAME=VALUE" % tok)
        if name not in declared:
            raise ProtocolError("unknown parameter %r" % name)
        if name in values:
            raise ProtocolError("parameter %s given twice" % name)
        _, typ, _, lo, hi = declared[name]
        try:
            x = float(val)
        except ValueError:
            raise ProtocolError("%s=%s is not a number" % (name, val)) from None
        if not math.isfinite(x):
            raise ProtocolError("%s=%s is not finite" % (name, val))
        if typ == "int":
            if x != int(x):
                raise ProtocolError("%s=%s is not an integer" % (name, val))
            x = int(x)
        if not lo <= x <= hi:
            raise ProtocolError("%s=%s is outside [%s, %s]" % (name, val, lo, hi))
        values[name] = x
    missing = [p[0] for p in PARAMS if p[0] not in values]
    if missing:
        raise ProtocolError("missing parameter %s" % ", ".join(missing))
    return values


def parse_board(text):
    """Parses a board, 0x and 1 to 16 hex digits, into an int."""
    if not BOARD_RE.match(text):
        raise ProtocolError("%r is not a board (0x and 1 to 16 hex digits)" % text)
    return int(text, 16)


def parse_set_number(text):
    """Parses a set number of version 2."""
    if text not in SET_NUMBERS:
        raise ProtocolError("%r is not a set number (1 to %d, without sign or leading zero)" % (text, SETS))
    return SET_NUMBERS[text]


class Player:
    """The search. It reads the heuristic from self.heur, the table of one
    parameter set, which serving points at the set of each board in turn."""

    def __init__(self, depth):
        self.depth = depth
        self.t = Tables()
        self.heur = None

    def table(self, values):
        """Compiles parameter values into one heuristic value per line."""
        we, wm, wmono = values["empty"], values["merges"], values["monotonicity"]
        mono = self.t.mono[values["mono_power"] - 1]
        return [we * e + wm * m - wmono * q
                for e, m, q in zip(self.t.empty, self.t.merges, mono)]

    # The board: a Python int of 64 bits, cell (r, c) at bit 4*(4r+c).

    def rows(self, b, table, scores):
        r0, r1, r2, r3 = b & 0xFFFF, (b >> 16) & 0xFFFF, (b >> 32) & 0xFFFF, b >> 48
        nb = table[r0] | table[r1] << 16 | table[r2] << 32 | table[r3] << 48
        return nb, scores[r0] + scores[r1] + scores[r2] + scores[r3]

    def move(self, b, d):
        """The board after move d (0 up, 1 down, 2 left, 3 right) and its score."""
        t = self.t
        if d == 2:
            return self.rows(b, t.left, t.score_left)
        if d == 3:
            return self.rows(b, t.right, t.score_right)
        # Up slides toward row 0: the columns, read as rows of the
        # transposed board, slide toward their index 0.
        if d == 0:
            nb, s = self.rows(transpose(b), t.left, t.score_left)
        else:
            nb, s = self.rows(transpose(b), t.right, t.score_right)
        return transpose(nb), s

    def evaluate(self, b):
        h = self.heur
        c = transpose(b)
        return (h[b & 0xFFFF] + h[(b >> 16) & 0xFFFF] + h[(b >> 32) & 0xFFFF] + h[b >> 48]
                + h[c & 0xFFFF] + h[(c >> 16) & 0xFFFF] + h[(c >> 32) & 0xFFFF] + h[c >> 48])

    def best(self, b, depth):
        """max(b, depth): the best move's value, 0 without a legal move."""
        if depth == 0:
            return self.evaluate(b)
        best = None
        for d in range(4):
            nb, s = self.move(b, d)
            if nb != b:
                v = s + self.chance(nb, depth - 1)
                if best is None or v > best:
                    best = v
        return 0.0 if best is None else best

    def chance(self, b, depth):
        """chance(b, depth): the mean over the spawns, 2 with 0.9 and 4 with 0.1."""
        if depth == 0:
            return self.evaluate(b)
        if depth == 1:
            return self.chance_leaves(b)
        total, n = 0.0, 0
        for i in range(16):
            if (b >> (4 * i)) & 0xF == 0:
                total += 0.9 * self.best(b | 1 << (4 * i), depth - 1)
                total += 0.1 * self.best(b | 2 << (4 * i), depth - 1)
                n += 1
        return total / n if n else self.evaluate(b)

    def chance_leaves(self, b):
        """chance(b, 1) = the mean heuristic of the boards after one spawn.

        A spawn at (r, c) changes one row and one column, so each child
        costs four look-ups instead of eight and a transpose.
        """
        h = self.heur
        c = transpose(b)
        rows = [(b >> (16 * r)) & 0xFFFF for r in range(4)]
        cols = [(c >> (16 * k)) & 0xFFFF for k in range(4)]
        base = sum(h[x] for x in rows) + sum(h[x] for x in cols)
        total, n = 0.0, 0
        for r in range(4):
            row = rows[r]
            for k in range(4):
                if (row >> (4 * k)) & 0xF:
                    continue
                col = cols[k]
                rest = base - h[row] - h[col]
                two = rest + h[row | 1 << (4 * k)] + h[col | 1 << (4 * r)]
                four = rest + h[row | 2 << (4 * k)] + h[col | 2 << (4 * r)]
                total += 0.9 * two + 0.1 * four
                n += 1
        # A full board: the mean over no spawns is the board itself.
        return total / n if n else base

    def choose(self, b):
        """The first legal move of largest value, or None without one."""
        best, best_d = None, None
        for d in range(4):
            nb, s = self.move(b, d)
            if nb == b:
                continue
            v = s + self.chance(nb, self.depth - 1)
            if best is None or v > best:
                best, best_d = v, d
        return best_d

    def best_moves(self, jobs):
        """The reply to a move request: jobs holds, for each board in order,
        its token in the request, its set's table and the board, all parsed
        before any is searched, so that a bad board fails the request
        without wasted work."""
        if not jobs:
            raise ProtocolError("no board")
        out = []
        for tok, heur, b in jobs:
            self.heur = heur  # each board is searched with its own set's values
            d = self.choose(b)
            if d is None:
                raise ProtocolError("board %s has no legal move" % tok)
            out.append(DIRS[d])
        return "best " + " ".join(out)


class Version1:
    """Version 1: one parameter set, `set NAME=VALUE ...` and `move B1 B2 ...`."""

    protocol_line = None

    def __init__(self, player):
        self.player = player
        self.heur = player.table(DEFAULTS)  # until the first set

    def set(self, text):
        self.heur = self.player.table(parse_values(text))

    def move(self, text):
        jobs = [(tok, self.heur, parse_board(tok)) for tok in text.split()]
        return self.player.best_moves(jobs)


class Version2:
    """Version 2: SETS parameter sets, `set S NAME=VALUE ...` gives set S its
    values and `move S:B1 S:B2 ...` names the set of each board, so that one
    request can carry the games of several candidates."""

    protocol_line = "protocol 2 %d" % SETS

    def __init__(self, player):
        self.player = player
        self.tables = {}  # set number -> its heuristic table, once given

    def set(self, text):
        num, _, values = text.partition(" ")
        s = parse_set_number(num)
        self.tables[s] = self.player.table(parse_values(values))

    def move(self, text):
        jobs = []
        for tok in text.split():
            num, colon, board = tok.partition(":")
            try:
                if not colon:
                    raise ProtocolError("not S:BOARD (a set number, ':', then the board)")
                s = parse_set_number(num)
                if s not in self.tables:
                    raise ProtocolError("set %d was never given (set S NAME=VALUE ... first)" % s)
                jobs.append((tok, self.tables[s], parse_board(board)))
            except ProtocolError as e:
                raise ProtocolError("%r: %s" % (tok, e)) from None  # which board it was
        return self.player.best_moves(jobs)


def fmt(x):
    return repr(float(x)) if isinstance(x, float) else str(x)


def serve(session, inp, out):
    def send(line):
        out.write(line + "\n")
        out.flush()

    first = inp.readline()
    if first.rstrip("\r\n") != HELLO:
        send("error expected %r, got %r" % (HELLO, first.rstrip("\r\n")))
        return 2
    send("id %s %s depth=%d" % (NAME, VERSION, session.player.depth))
    if session.protocol_line:
        send(session.protocol_line)
    for name, typ, default, lo, hi in PARAMS:
        send("param %s %s %s %s %s" % (name, typ, fmt(default), fmt(lo), fmt(hi)))
    send("ready")
    while True:
        line = inp.readline()
        if not line:
            return 0  # EOF: evotune went away
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        cmd, _, rest = line.partition(" ")
        if cmd == "quit":
            return 0
        try:
            if cmd == "set":
                session.set(rest)
                send("ok")
            elif cmd == "move":
                send(session.move(rest))
            else:
                send("error unknown command %r" % cmd)
        except ProtocolError as e:
            send("error %s: %s" % (cmd, e))  # "error set: ..." or "error move: ..."


def main(argv):
    ap = argparse.ArgumentParser(
        description="A 2048 player (expectimax over a tunable heuristic) for evotune's "
                    "player protocol on standard input and output.")
    ap.add_argument("--depth", type=int, default=2,
                    help="search depth in plies, a move layer and a spawn layer one each "
                         "(default 2: one move and the spawn after it; 4 is ~40x slower)")
    ap.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                    help="2 (the default): version 2, %d parameter sets at once, "
                         "'set S NAME=VALUE ...' and 'move S:0x... S:0x...'; "
                         "1: version 1, one set, 'set NAME=VALUE ...' and 'move 0x... 0x...'"
                         % SETS)
    args = ap.parse_args(argv)
    if not 1 <= args.depth <= 6:
        ap.error("--depth must be in [1, 6]")
    player = Player(args.depth)
    session = Version2(player) if args.protocol == 2 else Version1(player)
    return serve(session, sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
