"""A reader of the YAML that evotune writes, for evotune_weights.py.

It takes one document of block mappings, block sequences, flow mappings and
sequences on one line, plain, single- and double-quoted scalars, literal
block scalars (|, |-, |+) and comments: what evotune's weights files hold,
and what a newer evotune may add to them. Anything else (anchors, aliases,
tags, folded scalars, a flow collection or a plain scalar over several
lines, a second document) is an error naming its line, never a guess.

parse(text, name) returns the root node: a Mapping (a dict, keys in file
order), a Sequence (a list) or a Scalar, each with the line it starts on.
Scalars stay text; yaml_number() reads one as a number the way YAML 1.2's
core schema does, so what a scalar means is decided by the reader of the
weights file, as a strict decoder does.
"""

import json
import math
import re


class FileError(Exception):
    """A file that cannot be read. str() is `file:line: field: what`."""

    def __init__(self, name, line, field, msg):
        self.name, self.line, self.field, self.msg = name, line, field, msg
        where = "%s:%d" % (name, line) if line else name
        super().__init__("%s: %s: %s" % (where, field, msg) if field else "%s: %s" % (where, msg))


def parse(text, name):
    """The root node of the document text (None if it has no content);
    name is what errors start with."""
    return YAMLReader(text.lstrip("\ufeff"), name).parse()


class Scalar:
    """A scalar's text, its style (plain, quoted or literal: only a plain
    scalar can be a number or null) and its line."""

    def __init__(self, text, style, line):
        self.text, self.style, self.line = text, style, line

    def is_null(self):
        return self.style == "plain" and self.text in ("", "~", "null", "Null", "NULL")


class Mapping(dict):
    """Keys in file order; key_lines[key] is the line of each key."""

    def __init__(self, line):
        super().__init__()
        self.line = line
        self.key_lines = {}


class Sequence(list):
    def __init__(self, line):
        super().__init__()
        self.line = line


class _Line:
    __slots__ = ("no", "indent", "text", "raw")

    def __init__(self, no, indent, text, raw):
        self.no, self.indent, self.text, self.raw = no, indent, text, raw


DOUBLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class YAMLReader:
    """One document of the YAML subset evotune writes. Anything outside it
    (anchors, aliases, tags, folded scalars, flow collections over several
    lines, plain scalars over several lines, a second document) is an error
    naming its line, never a guess."""

    def __init__(self, text, name):
        self.name = name
        self.lines = []
        started = False
        for no, raw in enumerate(text.split("\n"), 1):
            raw = raw.rstrip("\r")
            body = raw.lstrip(" ")
            indent = len(raw) - len(body)
            if body.startswith("\t") and body.strip():
                self.fail(no, "a tab in indentation (YAML indents with spaces)")
            if not body.strip() or body.startswith("#"):
                self.lines.append(_Line(no, indent, "", raw))
                continue
            if indent == 0 and (body.startswith("---") or body.startswith("...")) and body[3:4] in ("", " ", "\t"):
                if body.startswith("---") and not started:
                    started = True
                    self.lines.append(_Line(no, indent, "", raw))
                    continue
                self.fail(no, "a document marker: a weights file is one YAML document")
            if indent == 0 and body.startswith("%"):
                self.fail(no, "a YAML directive: not part of a weights file")
            started = True
            self.lines.append(_Line(no, indent, body.rstrip(), raw))

    def fail(self, line, msg):
        raise FileError(self.name, line, "", msg)

    def parse(self):
        i = self._next(0)
        if i == len(self.lines):
            return None
        node, i = self._block(i, self.lines[i].indent)
        i = self._next(i)
        if i < len(self.lines):
            self.fail(self.lines[i].no, "unexpected text at indentation %d" % self.lines[i].indent)
        return node

    def _next(self, i):
        while i < len(self.lines) and not self.lines[i].text:
            i += 1
        return i

    def _block(self, i, indent):
        if _is_item(self.lines[i].text):
            return self._sequence(i, indent)
        return self._mapping(i, indent)

    def _mapping(self, i, indent):
        m = Mapping(self.lines[i].no)
        while True:
            i = self._next(i)
            if i == len(self.lines) or self.lines[i].indent < indent:
                return m, i
            ln = self.lines[i]
            if ln.indent > indent:
                self.fail(ln.no, "unexpected indentation (%d spaces, the mapping above has %d)" % (ln.indent, indent))
            if _is_item(ln.text):
                return m, i
            key, rest = self._key(ln.text, ln.no)
            if key in m:
                self.fail(ln.no, "key %s repeated (first on line %d)" % (quote(key), m.key_lines[key]))
            m.key_lines[key] = ln.no
            if rest:
                m[key], i = self._inline(rest, i, indent)
                continue
            j = self._next(i + 1)
            if j < len(self.lines) and self.lines[j].indent > indent:
                m[key], i = self._block(j, self.lines[j].indent)
            elif j < len(self.lines) and self.lines[j].indent == indent and _is_item(self.lines[j].text):
                m[key], i = self._sequence(j, indent)
            else:
                m[key], i = Scalar("", "plain", ln.no), i + 1

    def _sequence(self, i, indent):
        s = Sequence(self.lines[i].no)
        while True:
            i = self._next(i)
            if i == len(self.lines) or self.lines[i].indent < indent:
                return s, i
            ln = self.lines[i]
            if ln.indent > indent or not _is_item(ln.text):
                self.fail(ln.no, "unexpected text in a sequence (want an item, \"- ...\", at indentation %d)" % indent)
            rest = ln.text[1:].lstrip(" ")
            if not rest:
                j = self._next(i + 1)
                if j < len(self.lines) and self.lines[j].indent > indent:
                    item, i = self._block(j, self.lines[j].indent)
                else:
                    item, i = Scalar("", "plain", ln.no), i + 1
            elif _is_item(rest) or self._is_key_line(rest):
                # "- key: value": a mapping (or a sequence) whose first line
                # starts after the dash; its other lines are indented to match.
                col = ln.indent + len(ln.text) - len(rest)
                self.lines[i] = _Line(ln.no, col, rest, ln.raw)
                item, i = self._block(i, col)
            else:
                item, i = self._inline(rest, i, indent)
            s.append(item)

    def _is_key_line(self, text):
        try:
            self._key(text, 0)
            return True
        except FileError:
            return False

    def _key(self, text, no):
        """Splits `key: rest` into the key and the rest (comment removed)."""
        if text[0] in "\"'":
            key, end = self._quoted(text, 0, no)
            if text[end:end + 1] != ":" or text[end + 1:end + 2] not in ("", " "):
                self.fail(no, "want \"key: value\" after a quoted key")
            return key, _strip_comment(text[end + 1:].lstrip(" "))
        if text[0] in "{[&*!|>%@`#" or text.startswith("? "):
            self.fail(no, "want \"key: value\" (this reader takes plain or quoted keys)")
        m = re.search(r":( |$)", text)
        if not m or " #" in text[:m.start()]:
            self.fail(no, "want \"key: value\"")
        return text[:m.start()].rstrip(" "), _strip_comment(text[m.end():].lstrip(" "))

    def _inline(self, text, i, indent):
        """Reads the value that follows a key or a dash on line i: a scalar,
        a flow collection closed on the same line, or a literal block scalar
        on the lines below. Returns the node and the next line's index."""
        no = self.lines[i].no
        c = text[0]
        if c in "{[":
            node, end = self._flow(text, 0, no)
            if _strip_comment(text[end:].lstrip(" ")):
                self.fail(no, "text after the flow collection: %s" % quote(text[end:].strip()))
            return node, i + 1
        if c in "\"'":
            s, end = self._quoted(text, 0, no)
            if _strip_comment(text[end:].lstrip(" ")):
                self.fail(no, "text after the quoted scalar: %s" % quote(text[end:].strip()))
            return Scalar(s, "quoted", no), i + 1
        if c == "|":
            return self._literal(text, i, indent)
        if c == ">":
            self.fail(no, "a folded scalar (>): evotune writes multi-line text as a literal (|) block")
        if c in "&*!":
            self.fail(no, "a YAML anchor, alias or tag (%s): not part of a weights file" % c)
        if c in "%@`":
            self.fail(no, "a plain scalar cannot start with %s" % quote(c))
        j = self._next(i + 1)
        if j < len(self.lines) and self.lines[j].indent > indent and not _is_item(self.lines[j].text):
            self.fail(self.lines[j].no, "unexpected indentation (a plain scalar continued, or a key out of line)")
        return Scalar(text, "plain", no), i + 1

    def _literal(self, text, i, indent):
        no = self.lines[i].no
        m = re.fullmatch(r"\|([+-]?)(?:\s+#.*)?", text)
        if not m:
            self.fail(no, "a literal block header this reader does not take: %s (want |, |- or |+)" % quote(text))
        chomp = m.group(1)
        body, j, col = [], i + 1, None
        while j < len(self.lines):
            raw = self.lines[j].raw
            stripped = raw.lstrip(" ")
            if stripped:
                ind = len(raw) - len(stripped)
                if col is None:
                    if ind <= indent:
                        break
                    col = ind
                if ind < col:
                    break
                body.append(raw[col:])
            else:
                body.append("")
            j += 1
        trailing = 0
        while body and not body[-1]:
            body.pop()
            trailing += 1
        s = "\n".join(body)
        if body and chomp == "":
            s += "\n"
        elif body and chomp == "+":
            s += "\n" * (1 + trailing)
        return Scalar(s, "literal", no), j

    def _quoted(self, text, pos, no):
        """Reads a quoted scalar starting at text[pos]; returns it and the
        position after its closing quote."""
        q = text[pos]
        out, k = [], pos + 1
        while k < len(text):
            c = text[k]
            if q == "'" and c == "'":
                if text[k + 1:k + 2] == "'":
                    out.append("'")
                    k += 2
                    continue
                return "".join(out), k + 1
            if q == '"' and c == '"':
                return "".join(out), k + 1
            if q == '"' and c == "\\":
                e = text[k + 1:k + 2]
                if e in DOUBLE_ESCAPES:
                    out.append(DOUBLE_ESCAPES[e])
                    k += 2
                    continue
                n = HEX_ESCAPES.get(e)
                digits = text[k + 2:k + 2 + n] if n else ""
                if not n or not re.fullmatch(r"[0-9a-fA-F]{%d}" % n, digits):
                    self.fail(no, "a bad escape in a double-quoted scalar: %s" % quote(text[k:k + 2 + (n or 0)]))
                out.append(chr(int(digits, 16)))
                k += 2 + n
                continue
            out.append(c)
            k += 1
        self.fail(no, "a quoted scalar not closed on its line")

    def _flow(self, text, pos, no):
        """Reads a flow mapping or sequence starting at text[pos], which
        must close on the same line; returns it and the position after."""
        close = "}" if text[pos] == "{" else "]"
        node = Mapping(no) if close == "}" else Sequence(no)
        k = _skip(text, pos + 1)
        if text[k:k + 1] == close:
            return node, k + 1
        while True:
            if k >= len(text) or text[k] == "#":
                self.fail(no, "a flow collection not closed on its line (this reader takes what evotune writes: one line each)")
            if close == "}":
                if text[k] in "\"'":
                    key, k = self._quoted(text, k, no)
                else:
                    m = re.compile(r"[^:,{}\[\]#]*").match(text, k)
                    key, k = m.group().strip(), m.end()
                k = _skip(text, k)
                if text[k:k + 1] != ":":
                    self.fail(no, "want \"key: value\" in a flow mapping, at %s" % quote(text[k:k + 20]))
                if key in node:
                    self.fail(no, "key %s repeated" % quote(key))
                node.key_lines[key] = no
                node[key], k = self._flow_value(text, _skip(text, k + 1), no)
            else:
                item, k = self._flow_value(text, k, no)
                node.append(item)
            k = _skip(text, k)
            if k >= len(text):
                self.fail(no, "a flow collection not closed on its line (this reader takes what evotune writes: one line each)")
            if text[k:k + 1] == ",":
                k = _skip(text, k + 1)
                if text[k:k + 1] == close:  # a trailing comma, which YAML allows
                    return node, k + 1
                continue
            if text[k:k + 1] == close:
                return node, k + 1
            self.fail(no, "want , or %s in a flow collection, at %s" % (close, quote(text[k:k + 20])))

    def _flow_value(self, text, k, no):
        if k < len(text) and text[k] in "{[":
            return self._flow(text, k, no)
        if k < len(text) and text[k] in "\"'":
            s, k = self._quoted(text, k, no)
            return Scalar(s, "quoted", no), k
        if k < len(text) and text[k] in "&*!|>":
            self.fail(no, "%s in a flow collection: not part of a weights file" % quote(text[k]))
        m = re.compile(r"[^,{}\[\]]*").match(text, k)
        value = m.group()
        if " #" in value:
            self.fail(no, "a flow collection not closed on its line (a comment inside it)")
        return Scalar(value.strip(), "plain", no), m.end()


def quote(s):
    """s in double quotes, as evotune's messages quote text."""
    return json.dumps(s, ensure_ascii=False)


def _is_item(text):
    return text == "-" or text.startswith("- ")


def _skip(text, k):
    while k < len(text) and text[k] == " ":
        k += 1
    return k


def _strip_comment(text):
    """Removes a comment from the rest of a line whose value is plain (a
    quoted or flow value is read by its own scanner first)."""
    if text.startswith("#"):
        return ""
    if text[:1] in "\"'{[":
        return text
    cut = re.search(r"[ \t]#", text)
    return (text[:cut.start()] if cut else text).rstrip()


# YAML 1.2's core schema: what evotune's reader takes as a number.
INT_RE = re.compile(r"[-+]?[0-9]+\Z")
HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
OCT_RE = re.compile(r"0o[0-7]+\Z")
FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
INF_RE = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
NAN_RE = re.compile(r"\.(nan|NaN|NAN)\Z")


def yaml_number(node):
    """The number a plain scalar states, or None if it states none."""
    if not isinstance(node, Scalar) or node.style != "plain":
        return None
    t = node.text
    if INT_RE.match(t):
        return float(t)  # correctly rounded, and "-0" stays negative zero, as evotune reads it
    if HEX_RE.match(t):
        return float(int(t[2:], 16))
    if OCT_RE.match(t):
        return float(int(t[2:], 8))
    if FLOAT_RE.match(t):
        return float(t)
    if INF_RE.match(t):
        return -math.inf if t[0] == "-" else math.inf
    if NAN_RE.match(t):
        return math.nan
    return None
