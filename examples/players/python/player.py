#!/usr/bin/env python3
"""A small 2048 player that speaks evotune's player protocol (evotune-player/1).

It chooses moves by expectimax over a heuristic of four numbers, all of them
declared as parameters so that evotune can tune them:

  empty         weight of the empty cells
  merges        weight of the pairs of equal tiles next to each other
  monotonicity  weight of the (negative) non-monotonicity of the lines
  mono_power    the power (an int) the ranks are raised to in monotonicity

Every feature is a sum over the 8 lines of the board (4 rows, 4 columns), so
a board's heuristic is 8 look-ups in a table of the 65536 possible lines,
rebuilt at each `set`. The search is evotune's exact expectimax
(docs/searches.md) with move scores: a move is worth its score plus the
mean, over the spawns that follow it, of the best move below, down to the
heuristic at depth 0; a board with no legal move below the root is worth 0. At the default --depth 2 (plies: a move layer, then a
spawn layer) that is one move and the mean heuristic of the boards its
spawns give. Ties go to the first of up, down, left, right, so the player is
deterministic.

Standard library only; run `player.py --help` for its flags. The protocol,
in one screen:

  -> evotune-player 1
  <- id python-expectimax 1 depth=2
  <- param empty float 120.0 0.0 1000.0     (one line per parameter:
  <- ...                                      NAME TYPE DEFAULT MIN MAX)
  <- ready
  -> set empty=120 merges=60 monotonicity=4 mono_power=2
  <- ok                                       (or: error TEXT)
  -> move 0x0000000000001211 0x0000000000012345
  <- best left right                          (one move per board)
  -> quit
"""

import argparse
import itertools
import math
import re
import sys

PROTOCOL = "evotune-player 1"
NAME = "python-expectimax"
VERSION = "1"

# name, type, default, min, max: the parameters in declaration order.
PARAMS = (
    ("empty", "float", 120.0, 0.0, 1000.0),
    ("merges", "float", 60.0, 0.0, 1000.0),
    ("monotonicity", "float", 4.0, 0.0, 100.0),
    ("mono_power", "int", 2, 1, 4),
)

DIRS = ("up", "down", "left", "right")
MAX_POWER = 4

BOARD_RE = re.compile(r"0x[0-9a-fA-F]{1,16}\Z")


class ProtocolError(Exception):
    """A request the player cannot serve; the text becomes `error TEXT`."""


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


class Player:
    def __init__(self, depth):
        self.depth = depth
        self.t = Tables()
        self.values = {name: default for name, _, default, _, _ in PARAMS}
        self.build()

    def build(self):
        """Compiles the parameters into one heuristic value per line."""
        v = self.values
        we, wm, wmono = v["empty"], v["merges"], v["monotonicity"]
        mono = self.t.mono[v["mono_power"] - 1]
        self.heur = [we * e + wm * m - wmono * q
                     for e, m, q in zip(self.t.empty, self.t.merges, mono)]

    def set(self, text):
        """Parses `NAME=VALUE ...`; every parameter exactly once. On an
        error nothing changes, so a rejected set never leaves a mixture."""
        declared = {p[0]: p for p in PARAMS}
        values = {}
        for tok in text.split():
            name, eq, val = tok.partition("=")
            if not eq:
                raise ProtocolError("set: %r is not NAME=VALUE" % tok)
            if name not in declared:
                raise ProtocolError("set: unknown parameter %r" % name)
            if name in values:
                raise ProtocolError("set: parameter %s given twice" % name)
            _, typ, _, lo, hi = declared[name]
            try:
                x = float(val)
            except ValueError:
                raise ProtocolError("set: %s=%s is not a number" % (name, val)) from None
            if not math.isfinite(x):
                raise ProtocolError("set: %s=%s is not finite" % (name, val))
            if typ == "int":
                if x != int(x):
                    raise ProtocolError("set: %s=%s is not an integer" % (name, val))
                x = int(x)
            if not lo <= x <= hi:
                raise ProtocolError("set: %s=%s is outside [%s, %s]" % (name, val, lo, hi))
            values[name] = x
        missing = [p[0] for p in PARAMS if p[0] not in values]
        if missing:
            raise ProtocolError("set: missing parameter %s" % ", ".join(missing))
        self.values = values
        self.build()

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

    def moves(self, text):
        boards = text.split()
        if not boards:
            raise ProtocolError("move: no board")
        parsed = []
        for tok in boards:
            if not BOARD_RE.match(tok):
                raise ProtocolError("move: %r is not a board (0x and 1 to 16 hex digits)" % tok)
            parsed.append(int(tok, 16))
        out = []
        for tok, b in zip(boards, parsed):
            d = self.choose(b)
            if d is None:
                raise ProtocolError("move: board %s has no legal move" % tok)
            out.append(DIRS[d])
        return "best " + " ".join(out)


def fmt(x):
    return repr(float(x)) if isinstance(x, float) else str(x)


def serve(player, inp, out):
    def send(line):
        out.write(line + "\n")
        out.flush()

    first = inp.readline()
    if first.rstrip("\r\n") != PROTOCOL:
        send("error expected %r, got %r" % (PROTOCOL, first.rstrip("\r\n")))
        return 2
    send("id %s %s depth=%d" % (NAME, VERSION, player.depth))
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
        try:
            if cmd == "quit":
                return 0
            if cmd == "set":
                player.set(rest)
                send("ok")
            elif cmd == "move":
                send(player.moves(rest))
            else:
                raise ProtocolError("unknown command %r" % cmd)
        except ProtocolError as e:
            send("error %s" % e)


def main(argv):
    ap = argparse.ArgumentParser(
        description="A 2048 player (expectimax over a tunable heuristic) for evotune's "
                    "player protocol, evotune-player/1, on standard input and output.")
    ap.add_argument("--depth", type=int, default=2,
                    help="search depth in plies, a move layer and a spawn layer one each "
                         "(default 2: one move and the spawn after it; 4 is ~40x slower)")
    args = ap.parse_args(argv)
    if not 1 <= args.depth <= 6:
        ap.error("--depth must be in [1, 6]")
    player = Player(args.depth)
    return serve(player, sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
