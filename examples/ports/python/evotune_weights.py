#!/usr/bin/env python3
"""Reads an evotune weights file, evaluates boards with it, and verifies it.

A port of evotune's evaluation to another language, Python 3 with the
standard library only: it reads a weights file (docs/weights-file.md),
computes the features of the `standard` and `nneonneo` feature sets of a
board exactly as evotune defines them, evaluates boards with the file's
weights, and reproduces the file's golden checks the way `evotune check`
does: every feature exactly, the value within 1e-9 relative.

    python3 evotune_weights.py FILE [--board B ...]

prints the file's set, weights and parameters, one line per check, passed or
failed, and with --board (hex `0x...` or a tile grid `2 4 8 16/...`) the
features and value of that board. Exit status: 0 when every check passed, 1
when one failed or the file has none (nothing verified the port), 2 when
the file cannot be read (one line, `file:line: field: what is wrong`) or
the arguments are wrong.

As a module:

    import evotune_weights as ew
    wf = ew.load("weights.yaml")     # raises ew.WeightsFileError
    wf.features(0x1212234114322121)  # {"offset": 8.0, "empty": 0.0, ...}
    wf.evaluate("2 4 8 16/0 0 0 0/0 0 0 0/0 0 0 2")  # Σ w·f, as checks state it
    wf.evaluate_float32(board)       # nneonneo: the program's float32 value
    [r.ok for r in wf.verify()]      # the file's checks, reproduced

The file is read by weights_yaml.py, beside this file, a small reader of
the YAML that evotune writes, not by PyYAML: README.md says why. What
defines the numbers (format, features, weights, params, checks) is read as
strictly as evotune reads it; search, provenance and keys this port does
not know are shown, not refused: a newer evotune may add information there,
and a change in what the numbers mean comes with a new format line, which
this port refuses.
"""

import argparse
import decimal
import math
import re
import struct
import sys

from weights_yaml import FileError, Mapping, Scalar, Sequence, quote, yaml_number
import weights_yaml

# WeightsFileError is what load() raises for a file it cannot read; str()
# is `file:line: field: what is wrong`.
WeightsFileError = FileError

FORMAT_V1 = "evotune.weights/v1"
FORMAT_V2 = "evotune.weights/v2"

# |file - computed| <= TOLERANCE * max(1, Σ|w_f·feature_f|): eval.CheckTolerance.
TOLERANCE = 1e-9

MAX_FLOAT32 = 3.4028234663852886e38

TOP_KEYS = ("format", "features", "weights", "params", "search", "provenance", "checks")
CHECK_KEYS = ("board", "features", "value")


# ---------------------------------------------------------------------------
# Numbers and boards.


def go_float(x):
    """x as evotune writes it (Go's strconv.FormatFloat(x, 'g', -1, 64)):
    the shortest digits that read back to x, in exponent form when the
    exponent is below -4 or at least 6, so output matches the file's text."""
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    sign, digits, exp = decimal.Decimal(repr(x)).normalize().as_tuple()
    ds = "".join(map(str, digits))
    e = len(ds) - 1 + exp  # the exponent of the first digit
    out = "-" if sign else ""
    if e < -4 or e >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return "%s%se%s%02d" % (out, mant, "-" if e < 0 else "+", abs(e))
    if e < 0:
        return out + "0." + "0" * (-e - 1) + ds
    if len(ds) <= e + 1:
        return out + ds + "0" * (e + 1 - len(ds))
    return out + ds[:e + 1] + "." + ds[e + 1:]


def parse_board(text):
    """A board from either text form evotune writes: hex `0x...` (cell (r, c)
    at bit 4·(4r+c)) or a tile grid `2 4 8 16/32 64 0 0/...` (0, . or _ for
    an empty cell). Raises ValueError."""
    s = text.strip()
    if s[:2] in ("0x", "0X"):
        if not re.fullmatch(r"[0-9a-fA-F]{1,16}", s[2:]):
            raise ValueError("%s: the hex form needs 1 to 16 hex digits after 0x" % quote(text))
        return int(s[2:], 16)
    rows = [r for r in re.split(r"[/\n;]", s) if r.strip()]
    if len(rows) != 4:
        raise ValueError("%s: want 4 rows separated by '/' (or hex 0x...), got %d" % (quote(text), len(rows)))
    board = 0
    for r, row in enumerate(rows):
        cells = [c for c in re.split(r"[ \t,]", row) if c]
        if len(cells) != 4:
            raise ValueError("%s: row %d has %d cells, want 4" % (quote(text), r + 1, len(cells)))
        for c, cell in enumerate(cells):
            rank = 0
            if cell not in (".", "_"):
                v = int(cell) if re.fullmatch(r"[-+]?[0-9]+", cell) else None
                if v is None or v != 0 and (v < 2 or v > 32768 or v & (v - 1)):
                    raise ValueError("%s: row %d column %d: tile %s is not 0 or a power of two from 2 to 32768" % (quote(text), r + 1, c + 1, quote(cell)))
                rank = v.bit_length() - 1 if v else 0
            board |= rank << (4 * (4 * r + c))
    return board


def board_grid(board):
    return "/".join(" ".join(str(1 << k if k else 0) for k in row) for row in rows_of(board))


def rows_of(board):
    return [[board >> (4 * (4 * r + c)) & 0xF for c in range(4)] for r in range(4)]


def lines_of(board):
    """The 8 lines: rows 0-3 read left to right, then columns 0-3 read top
    to bottom, the order evotune sums them in."""
    rows = rows_of(board)
    return rows + [[rows[r][c] for r in range(4)] for c in range(4)]


def f32(x):
    """x rounded to the nearest float32 (beyond its range: infinity, as a C
    cast gives). A float32 operation done in float64 and rounded gives the
    float32 result exactly for +, -, ×: float64 holds more than twice
    float32's precision."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


# ---------------------------------------------------------------------------
# The feature sets (docs/weights-file.md, "Feature definitions").


def standard_features(board, _params, _shape=None):
    """monotonicity, smoothness, empty, corner, merge: integers, so the
    order of the sums does not matter."""
    mono = smooth = empty = merge = 0
    rows = rows_of(board)
    for line in lines_of(board):
        up = down = 0
        for a, b in zip(line, line[1:]):
            if b > a:
                up += b - a
            else:
                down += a - b
            if a and b:
                smooth -= abs(a - b)
                merge += a == b
        mono -= min(up, down)
    for row in rows:
        empty += row.count(0)
    top = max(max(row) for row in rows)
    corners = (rows[0][0], rows[0][3], rows[3][0], rows[3][3])
    corner = top if top in corners else 0
    return [float(mono), float(smooth), float(empty), float(corner), float(merge)]


_POW_CONTEXT = decimal.Context(prec=50, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def pow_rank(r, p):
    """r^p correctly rounded to float64 (0^p = 0), as evotune computes the
    powers; the C library's pow, and Python's, can be an ulp off, which the
    checks, comparing features exactly, would catch. p is a float32, so
    p = m·2^e with m odd: r^p is the 2^-e-th root of r^m, here in 50
    decimal digits, far more than rounding to 53 bits needs."""
    if r == 0:
        return 0.0
    if r == 1 or p == 0:
        return 1.0
    if p == int(p) and p <= 13:
        return float(r ** int(p))  # exact: 15^13 < 2^53
    m, den = p.as_integer_ratio()
    e = -(den.bit_length() - 1)
    ctx = _POW_CONTEXT
    x, base = decimal.Decimal(1), decimal.Decimal(r)
    while m:
        if m & 1:
            x = ctx.multiply(x, base)
        base = ctx.multiply(base, base)
        m >>= 1
    for _ in range(e, 0):
        x = ctx.sqrt(x)
    return float(x)


def nneonneo_powers(params):
    """r^p and r^q for the ranks 0-15, of the parameters rounded to float32
    as the program's constants are."""
    p, q = f32(params[0]), f32(params[1])
    return [pow_rank(r, p) for r in range(16)], [pow_rank(r, q) for r in range(16)]


def nneonneo_counts(line):
    """The line's empty cells and merges, the program's loop: prev is the
    last non-empty rank, counter its run's length so far minus one."""
    empty = merges = prev = counter = 0
    for rank in line:
        if rank == 0:
            empty += 1
            continue
        if prev == rank:
            counter += 1
        elif counter > 0:
            merges += 1 + counter
            counter = 0
        prev = rank
    if counter > 0:
        merges += 1 + counter
    return empty, merges


def nneonneo_features(board, params, powers=None):
    pp, pq = powers or nneonneo_powers(params)
    empty = merges = 0
    mono = total = 0.0
    for line in lines_of(board):
        e, g = nneonneo_counts(line)
        empty += e
        merges += g
        left = right = 0.0
        for a, b in zip(line, line[1:]):
            if a > b:
                left += pp[a] - pp[b]
            else:
                right += pp[b] - pp[a]
        s = 0.0
        for r in line:
            s -= pq[r]
        mono += 0 - min(left, right)  # 0 - x, not -x: no negative zero
        total += s
    return [8.0, float(empty), float(merges), mono, total]


def nneonneo_float32(board, weights, powers):
    """The program's value of the board (score_heur_board of 2048.cpp): each
    line's value in float32 operation by operation, the rows added left to
    right in float32, then the columns, then the two sums."""
    w = [f32(x) for x in weights]
    pp, pq = powers
    values = []
    for line in lines_of(board):
        s = 0.0
        for r in line:
            s = f32(s + pq[r])
        left = right = 0.0
        for a, b in zip(line, line[1:]):
            if a > b:
                left = f32(left + (pp[a] - pp[b]))
            else:
                right = f32(right + (pp[b] - pp[a]))
        mono = right if right < left else left
        empty, merges = nneonneo_counts(line)
        v = f32(w[0] + f32(w[1] * empty))
        v = f32(v + f32(w[2] * merges))
        v = f32(v - f32(w[3] * mono))
        v = f32(v - f32(w[4] * s))
        values.append(v)
    rows = cols = 0.0
    for v in values[:4]:
        rows = f32(rows + v)
    for v in values[4:]:
        cols = f32(cols + v)
    return f32(rows + cols)


class FeatureSet:
    def __init__(self, name, features, params, compute):
        self.name, self.features, self.params, self.compute = name, features, params, compute


# params: (name, default, min, max), in the set's order.
SETS = {
    "standard": FeatureSet("standard", ("monotonicity", "smoothness", "empty", "corner", "merge"), (), standard_features),
    "nneonneo": FeatureSet("nneonneo", ("offset", "empty", "merges", "monotonicity", "sum"),
                           (("monotonicity_power", 4.0, 1.0, 6.0), ("sum_power", 3.5, 1.0, 6.0)), nneonneo_features),
}


# ---------------------------------------------------------------------------
# The weights file.


class Check:
    """A golden check as the file states it: board, features, value, and
    the lines they are on (line: the check's first)."""

    def __init__(self, index, line, board, features, value, lines):
        self.index, self.line, self.board, self.features, self.value = index, line, board, features, value
        self.lines = lines


class CheckResult:
    """A check reproduced: ok, and if not, error says what differs."""

    def __init__(self, check, features, value, error):
        self.check, self.features, self.value, self.error = check, features, value, error
        self.ok = error is None


class WeightsFile:
    """A weights file read by load(): its set, weights and parameters (dicts
    in the set's order), search and provenance (text, for display), checks."""

    def __init__(self, name):
        self.name = name
        self.format = self.set = self.search = self.provenance = None
        self.weights, self.params, self.checks = {}, {}, []
        self.other = {}  # top-level keys this port does not know: key -> node
        self._powers = None

    def _vector(self, board):
        if isinstance(board, str):
            board = parse_board(board)
        return self.set.compute(board, list(self.params.values()), self._shape())

    def _shape(self):
        """What the set's features need from the parameters, computed once:
        nneonneo's powers (correctly rounded ones take a few ms)."""
        if self._powers is None and self.set.name == "nneonneo":
            self._powers = nneonneo_powers(list(self.params.values()))
        return self._powers

    def features(self, board):
        """The features of board (an int or either text form) under the
        file's parameters, by name in the set's order."""
        return dict(zip(self.set.features, self._vector(board)))

    def evaluate(self, board):
        """Σ w_f·feature_f in the set's order, as the file's checks state
        values."""
        return _value(list(self.weights.values()), self._vector(board))

    def evaluate_float32(self, board):
        """nneonneo only: the board's value in the program's float32
        arithmetic, what evotune's evaluator and 2048.cpp compute."""
        if self.set.name != "nneonneo":
            raise ValueError("evaluate_float32: the %s set has no float32 form" % self.set.name)
        if isinstance(board, str):
            board = parse_board(board)
        return nneonneo_float32(board, list(self.weights.values()), self._shape())

    def verify(self):
        """Reproduces every check: the features exactly, then the value
        within TOLERANCE, as evotune check does."""
        w = list(self.weights.values())
        out = []
        for c in self.checks:
            got = self._vector(c.board)
            error = None
            field = "checks[%d]" % c.index
            for name, want, have in zip(self.set.features, c.features, got):
                if want != have:
                    error = WeightsFileError(self.name, c.lines["features"], "%s.features.%s" % (field, name),
                                             "the file says %s, this port computes %s for board 0x%016x (%s)"
                                             % (go_float(want), go_float(have), c.board, board_grid(c.board)))
                    break
            value = _value(w, got)
            if error is None and not _agrees(c.value, w, got):
                error = WeightsFileError(self.name, c.lines["value"], field + ".value",
                                         "the file says %s, this port computes %s for board 0x%016x with these weights (tolerance %g relative)"
                                         % (go_float(c.value), go_float(value), c.board, TOLERANCE))
            out.append(CheckResult(c, got, value, error))
        return out


def _value(w, f):
    v = 0.0
    for a, b in zip(w, f):
        v += a * b
    return v


def _agrees(value, w, f):
    scale = max(1.0, sum(abs(a * b) for a, b in zip(w, f)))
    return abs(value - _value(w, f)) <= TOLERANCE * scale


def load(path):
    """Reads the weights file at path. Raises WeightsFileError (a file that
    cannot be read, or content this port does not take) with the file and
    line; the checks are read, not run: verify() runs them."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise WeightsFileError(path, 0, "", e.strerror or str(e)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise WeightsFileError(path, data[:e.start].count(b"\n") + 1, "", "not UTF-8 text") from None
    return loads(text, path)


def loads(text, name="(weights)"):
    """load() of a file's text; name is what errors start with."""
    return _Reader(name).read(weights_yaml.parse(text, name))


class _Reader:
    def __init__(self, name):
        self.name = name

    def fail(self, node, field, msg):
        raise WeightsFileError(self.name, getattr(node, "line", 0), field, msg)

    def read(self, root):
        wf = WeightsFile(self.name)
        if root is None:
            self.fail(Scalar("", "plain", 1), "", "empty file (want a mapping with format, features and weights)")
        if not isinstance(root, Mapping):
            self.fail(root, "", "want a mapping with format, features and weights")
        if "player" in root:
            self.fail(root, "", "a params file of an external player, not a feature set's weights: only the player can reproduce its checks")
        wf.other = {k: v for k, v in root.items() if k not in TOP_KEYS}
        for k in ("format", "features", "weights"):
            if k not in root:
                self.fail(root, "", "missing key %s" % quote(k))
        wf.format = self.text(root, "format")
        if wf.format not in (FORMAT_V1, FORMAT_V2):
            self.fail(_at(root, "format"), "format", "unknown format %s (want %s or %s)" % (quote(wf.format), FORMAT_V1, FORMAT_V2))
        name = self.text(root, "features")
        if name not in SETS:
            self.fail(_at(root, "features"), "features", "feature set %s: this port implements %s (evotune check verifies the others)"
                      % (quote(name), " and ".join(SETS)))
        wf.set = s = SETS[name]
        wf.weights = self.named(root["weights"], "weights", "feature", s.features, s.name)
        for f, x in wf.weights.items():
            if not math.isfinite(x):
                self.fail(_at(root["weights"], f), "weights." + f, "%s is not finite (want a finite number)" % root["weights"][f].text)
            if s.name == "nneonneo" and abs(x) > MAX_FLOAT32:
                self.fail(_at(root["weights"], f), "weights", "nneonneo: weight of %s is %s, want a float32 (magnitude at most %g)" % (f, go_float(x), MAX_FLOAT32))
        wf.params = self.params(root, wf.format, s)
        wf.search = self.loose(root.get("search"), "search")
        wf.provenance = self.loose(root.get("provenance"), "provenance")
        checks = root.get("checks")
        if checks is not None and not (isinstance(checks, Scalar) and checks.is_null()):
            if not isinstance(checks, Sequence):
                self.fail(checks, "checks", "want a list of {board, features, value}")
            wf.checks = [self.check(c, i, s) for i, c in enumerate(checks)]
        return wf

    def text(self, m, key):
        n = m[key]
        if not isinstance(n, Scalar) or n.is_null():
            self.fail(_at(m, key), key, "want a string")
        return n.text

    def number(self, n, field):
        x = yaml_number(n)
        if x is None:
            what = "a mapping" if isinstance(n, Mapping) else "a list" if isinstance(n, Sequence) else quote(n.text)
            self.fail(n, field, "%s is not a number" % what)
        return x

    def named(self, n, field, noun, names, set_name):
        """A mapping from every one of names to a number, in names' order."""
        if not isinstance(n, Mapping):
            self.fail(n, field, "want a mapping of %s to numbers" % ", ".join(names))
        for k in n:
            if k not in names:
                self.fail(_at(n, k), field, "unknown %s %s (%ss of %s: %s)" % (noun, quote(k), noun, set_name, ", ".join(names)))
        out = {}
        for k in names:
            if k not in n:
                self.fail(n, field, "missing %s %s (%s needs %s)" % (noun, quote(k), set_name, ", ".join(names)))
            out[k] = self.number(n[k], "%s.%s" % (field, k))
        return out

    def params(self, root, fmt, s):
        names = [p[0] for p in s.params]
        n = root.get("params")
        if n is not None and fmt == FORMAT_V1:
            self.fail(_at(root, "params"), "params", "an %s key in an %s file (write format: %s to use it)" % (FORMAT_V2, FORMAT_V1, FORMAT_V2))
        if n is not None and not names:
            self.fail(_at(root, "params"), "params", "%s has no parameters (remove the key)" % s.name)
        if n is None:
            if names and fmt == FORMAT_V2:
                self.fail(root, "", "missing key \"params\" (%s has parameters %s)" % (s.name, ", ".join(names)))
            return {p[0]: p[1] for p in s.params}  # a v1 file: the defaults
        out = self.named(n, "params", "parameter", names, s.name)
        for name, _, lo, hi in s.params:
            if not lo <= out[name] <= hi:
                self.fail(_at(n, name), "params." + name, "%s is out of bounds (want %s to %s)" % (go_float(out[name]), go_float(lo), go_float(hi)))
        return out

    def loose(self, n, field):
        """search and provenance, read for display only: nothing in them
        changes what a feature or a weight means, so a key this port does not
        know (a newer evotune's) is shown, not refused."""
        if n is None or isinstance(n, Scalar) and n.is_null():
            return None
        if not isinstance(n, Mapping):
            self.fail(n, field, "want a mapping")
        return n

    def check(self, n, i, s):
        field = "checks[%d]" % i
        if not isinstance(n, Mapping):
            self.fail(n, field, "want a mapping {board, features, value}")
        for k in n:
            if k not in CHECK_KEYS:
                self.fail(_at(n, k), field, "unknown key %s (a check has board, features, value)" % quote(k))
        for k in CHECK_KEYS:
            if k not in n:
                self.fail(n, field, "missing key %s" % quote(k))
        b = n["board"]
        if not isinstance(b, Scalar):
            self.fail(b, field + ".board", "want a board, hex 0x... or a tile grid")
        try:
            board = parse_board(b.text)
        except ValueError as e:
            self.fail(b, field + ".board", str(e))
        features = list(self.named(n["features"], field + ".features", "feature", s.features, s.name).values())
        value = self.number(n["value"], field + ".value")
        return Check(i, n.line, board, features, value, n.key_lines)


def _at(m, key):
    """A stand-in node whose line is that of key in the mapping m."""
    return Scalar("", "plain", m.key_lines.get(key, m.line))


# ---------------------------------------------------------------------------
# The command line.


def describe(n):
    """A search or provenance mapping in one line: its scalars, and the
    figure of a fitness or baseline mapping; keys of its own are shown too."""
    parts = []
    for k, v in n.items():
        if isinstance(v, Scalar):
            text = v.text.replace("\n", " ").strip()
            parts.append("%s %s" % (k, text) if text else k)
        elif isinstance(v, Mapping) and "mean" in v and isinstance(v["mean"], Scalar):
            fig = "%s %s %s" % (k, _text(v.get("metric")), v["mean"].text)
            if isinstance(v.get("ci95"), Scalar):
                fig += " ± " + v["ci95"].text
            if isinstance(v.get("games"), Scalar):
                fig += " (%s games)" % v["games"].text
            parts.append(fig)
        elif isinstance(v, Mapping):
            parts.append("%s {%s}" % (k, describe(v)))
        elif isinstance(v, Sequence) and all(isinstance(x, Scalar) for x in v):
            parts.append("%s [%s]" % (k, ", ".join(x.text for x in v)))
    return ", ".join(parts)


def _text(n):
    return n.text if isinstance(n, Scalar) else ""


def pairs(d):
    return ", ".join("%s %s" % (k, go_float(v)) for k, v in d.items())


def main(argv=None, out=sys.stdout, err=sys.stderr):
    ap = argparse.ArgumentParser(
        prog="evotune_weights.py",
        description="Read an evotune weights file (features standard or nneonneo), reproduce its golden checks, "
                    "and evaluate boards with it. Exit status: 0 every check passed, 1 a check failed "
                    "(or the file has none), 2 the file cannot be read.")
    ap.add_argument("file", help="the weights file (YAML, docs/weights-file.md)")
    ap.add_argument("--board", action="append", default=[], metavar="B",
                    help="also print the features and value of board B, hex 0x... or a tile grid "
                         "\"2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0\" (repeatable)")
    args = ap.parse_args(argv)
    boards = []
    for b in args.board:
        try:
            boards.append(parse_board(b))
        except ValueError as e:
            ap.error("--board: %s" % e)
    try:
        wf = load(args.file)
    except WeightsFileError as e:
        print("evotune_weights.py: %s" % e, file=err)
        return 2
    print("file        %s" % wf.name, file=out)
    print("format      %s" % wf.format, file=out)
    print("features    %s" % wf.set.name, file=out)
    print("weights     %s" % pairs(wf.weights), file=out)
    if wf.params and wf.format == FORMAT_V1:
        print("params      %s (the defaults: a version 1 file has none)" % pairs(wf.params), file=out)
    elif wf.params:
        print("params      %s" % pairs(wf.params), file=out)
    if wf.search:
        print("search      %s" % describe(wf.search), file=out)
    if wf.provenance:
        print("provenance  %s" % describe(wf.provenance), file=out)
    if wf.other:
        print("other       %s (keys this port does not know; not used)" % describe(wf.other), file=out)
    results = wf.verify()
    for r in results:
        c = r.check
        label = "check %d" % (c.index + 1)
        if r.ok:
            print("%-11s pass  0x%016x  value %s (line %d)" % (label, c.board, go_float(c.value), c.line), file=out)
        else:
            print("%-11s FAIL  0x%016x  %s" % (label, c.board, r.error), file=out)
    passed = sum(r.ok for r in results)
    if not results:
        print("checks      none in the file: nothing verifies this port", file=out)
    elif passed == len(results):
        print("checks      %d of %d passed: this port reproduces the file" % (passed, len(results)), file=out)
    else:
        print("checks      %d of %d passed" % (passed, len(results)), file=out)
    for b in boards:
        print("board       0x%016x (%s)" % (b, board_grid(b)), file=out)
        print("  features  %s" % pairs(wf.features(b)), file=out)
        print("  value     %s" % go_float(wf.evaluate(b)), file=out)
        if wf.set.name == "nneonneo":
            print("  float32   %s" % go_float(wf.evaluate_float32(b)), file=out)
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
