"""A client of evotune's objective protocol (docs/objective.md), shared by
the optimizers in this folder. Standard library only.

    obj = Objective()                  # reads the first line from stdin
    obj.recommender = lambda: best     # asked for at tunebench's checkpoints
    ans = obj.evaluate(values, games=40, first=0)   # raises Stop at the budget
    obj.finish(best)                   # the final recommendation

Box: evotune gives bounds only where the problem has them (shape
parameters, a player's declared ranges); a feature weight is unbounded. The
optimizers here search each parameter within [start - scale, start + 2 *
scale] cut to its bounds: for a positive weight, 0 to 3 times its start.
"""

import json
import math
import sys


class Stop(Exception):
    """The budget is spent (tunebench): send the final recommendation."""


class Objective:
    def __init__(self, inp=sys.stdin, out=sys.stdout):
        self.inp, self.out = inp, out
        self.hello = json.loads(self._read())
        if "objective" not in self.hello:
            raise SystemExit("not an evotune objective: %r" % self.hello)
        self.params = self.hello["params"]
        self.names = [p["name"] for p in self.params]
        self.start = [float(p["start"]) for p in self.params]
        self.scale = [float(p["scale"]) for p in self.params]
        self.lo, self.hi = [], []
        for p, x, s in zip(self.params, self.start, self.scale):
            lo, hi = x - s, x + 2 * s
            if p["min"] is not None:
                lo = max(lo, p["min"])
            if p["max"] is not None:
                hi = min(hi, p["max"])
            self.lo.append(lo)
            self.hi.append(hi)
        self.games = int(self.hello["games"])
        self.seed = int(self.hello["seed"])
        self.budget = float(self.hello.get("budget_cpu_s") or 0)
        self.recommender = None
        self.next_id = 1
        self.cpu = 0.0  # CPU seconds of the games so far

    def _read(self):
        line = self.inp.readline()
        if not line:
            raise SystemExit("evotune closed the exchange")
        return line

    def _ask(self, msg):
        self.out.write(json.dumps(msg) + "\n")
        self.out.flush()
        ans = json.loads(self._read())
        if "error" in ans:
            raise SystemExit("evotune: " + ans["error"])
        return ans

    def values(self, x):
        """The request's params of a vector x, cut to the box; integers
        rounded."""
        v = {}
        for p, xi, lo, hi in zip(self.params, x, self.lo, self.hi):
            xi = min(max(float(xi), lo), hi)
            if p["type"] == "int":
                xi = float(round(xi))
            v[p["name"]] = xi
        return v

    def evaluate(self, x, games, first):
        """Plays games first..first+games-1 of the stream with the vector x;
        returns the answer (scores, mean, games, cpu_s)."""
        ans = self._ask({"id": self.next_id, "params": self.values(x), "games": games, "first": first})
        self.next_id += 1
        if "stop" in ans:
            raise Stop(ans["stop"])
        self.cpu += ans["cpu_s"]
        if ans.get("recommend") and self.recommender is not None:
            self.recommend(self.recommender())
        return ans

    def recommend(self, x, final=False):
        msg = {"recommend": self.values(x)}
        if final:
            msg["final"] = True
        self._ask(msg)

    def finish(self, x):
        self.recommend(x, final=True)


def clip(x, lo, hi):
    return [min(max(v, l), h) for v, l, h in zip(x, lo, hi)]


def finite(x):
    return all(math.isfinite(v) for v in x)
