"""A client of evotune's objective protocol (docs/objective.md), shared by
the optimizers in this folder. Standard library only.

    obj = Objective()                  # reads the first line from stdin
    obj = Objective.run("evotune objective --problem nneonneo-cap1")  # or starts it
    obj.recommender = lambda: best     # asked for at tunebench's checkpoints
    ans = obj.evaluate(x, games=40, first=0)   # raises Stop at the budget
    obj.finish(best)                   # the final recommendation

A point x is a list of values in the problem's own units, one per free
parameter in the first line's order. Optimizers search z = x / scale (see
to_z and from_z), so that a step means as much for every parameter, within
each parameter's box (the first line's "box": the bounds where there are
real ones, else 0 to 3 times the start on the start's side of 0).
"""

import json
import math
import random
import shlex
import subprocess
import sys
import time


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
        self.ints = [p["type"] == "int" for p in self.params]
        self.lo = [p["box"][0] for p in self.params]
        self.hi = [p["box"][1] for p in self.params]
        self.games = int(self.hello["games"])
        self.seed = int(self.hello["seed"])
        # numpy (Optuna, pycma) takes seeds below 2^32; evotune's are 64-bit.
        self.seed32 = self.seed % (2**32 - 1) + 1
        self.budget_cpu = float(self.hello.get("budget_cpu_s") or 0)
        self.budget_games = int(self.hello.get("budget_games") or 0)
        self.recommender = None
        self.next_id = 1
        self.played = 0  # games answered so far
        self.cpu = 0.0  # evotune's CPU seconds of those games

    @classmethod
    def run(cls, command):
        """Starts command (evotune objective ...) and speaks to it on its
        standard input and output: an optimizer run on its own, not by
        tunebench."""
        proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        obj = cls(proc.stdout, proc.stdin)
        obj.proc = proc
        return obj

    def close(self):
        """Ends an exchange started by run: evotune exits at the end of its
        input."""
        if getattr(self, "proc", None) is not None:
            self.proc.stdin.close()
            self.proc.wait()

    def _read(self):
        line = self.inp.readline()
        if not line:
            raise SystemExit("evotune closed the exchange")
        return line

    def _ask(self, msg):
        msg = dict(msg, id=self.next_id)
        self.next_id += 1
        # Strict JSON: json.dumps would write a nan or an inf as NaN or
        # Infinity, which are not JSON; better to stop here, where it arose.
        try:
            line = json.dumps(msg, allow_nan=False)
        except ValueError:
            raise SystemExit("a NaN or an infinity in the request, not sent: %r" % msg)
        self.out.write(line + "\n")
        self.out.flush()
        ans = json.loads(self._read())
        # The error first: it says what is wrong, where a wrong id would not.
        if "error" in ans:
            raise SystemExit("evotune: " + ans["error"])
        if ans.get("id") != msg["id"]:
            raise SystemExit("evotune answered id %r to id %r" % (ans.get("id"), msg["id"]))
        return ans

    def values(self, x):
        """The request's params of a point x: integers rounded, values kept
        within the limits evotune takes (min and max)."""
        v = {}
        for p, xi, is_int in zip(self.params, x, self.ints):
            xi = float(xi)
            if p["min"] is not None:
                xi = max(xi, p["min"])
            if p["max"] is not None:
                xi = min(xi, p["max"])
            v[p["name"]] = int(round(xi)) if is_int else xi
        return v

    def evaluate(self, x, games, first, held_out=False):
        """Plays games first..first+games-1 of the stream (of the held-out
        block with held_out) with the point x; returns the answer (scores,
        mean, games, cpu_s)."""
        msg = {"params": self.values(x), "games": games, "first": first}
        if held_out:
            msg["held_out"] = True
        ans = self._ask(msg)
        if "stop" in ans:
            raise Stop(ans["stop"])
        self.played += ans["games"]
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

    # Budgets: what is left, for an optimizer that keeps a share for its
    # final race.

    def used(self):
        """The share of the budget spent, 0 without one: games against
        budget_games, else evotune's CPU and this process's against
        budget_cpu_s."""
        if self.budget_games > 0:
            return self.played / self.budget_games
        if self.budget_cpu > 0:
            return (self.cpu + time.process_time()) / self.budget_cpu
        return 0.0

    def games_left(self):
        """The games the rest of the budget buys (a guess from the CPU per
        game so far under a CPU budget); None without a budget."""
        if self.budget_games > 0:
            return self.budget_games - self.played
        if self.budget_cpu > 0 and self.played > 0:
            per_game = (self.cpu + time.process_time()) / self.played
            return int((self.budget_cpu - self.cpu - time.process_time()) / per_game)
        return None

    # Units: z = x / scale.

    def to_z(self, x):
        return [xi / s for xi, s in zip(x, self.scale)]

    def from_z(self, z):
        return [zi * s for zi, s in zip(z, self.scale)]


def race(obj, candidates, games, first):
    """Plays each candidate on the same fresh games, first..first+games-1
    of the stream, and returns the index of the highest mean and the means
    (None for a candidate the budget stopped). On Stop, the best of those
    that finished, or 0."""
    means = [None] * len(candidates)
    try:
        for i, x in enumerate(candidates):
            means[i] = obj.evaluate(x, games, first)["mean"]
    except Stop:
        pass
    done = [i for i, m in enumerate(means) if m is not None]
    best = max(done, key=lambda i: means[i]) if done else 0
    return best, means


def held_out_ratio(obj, x, games=200, first=0):
    """Plays x and the start on the held-out block's games first.. and
    returns the ratio of their mean scores with a 95% interval (a paired
    bootstrap, seeded): a figure no choice of x has seen."""
    a = obj.evaluate(x, games, first, held_out=True)["scores"]
    b = obj.evaluate(obj.start, games, first, held_out=True)["scores"]
    rng = random.Random(obj.seed)
    ratios = []
    for _ in range(2000):
        idx = [rng.randrange(games) for _ in range(games)]
        sb = sum(b[i] for i in idx)
        if sb > 0:
            ratios.append(sum(a[i] for i in idx) / sb)
    ratios.sort()
    lo, hi = ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]
    return sum(a) / max(sum(b), 1), lo, hi


def clip(x, lo, hi):
    return [min(max(v, l), h) for v, l, h in zip(x, lo, hi)]


def finite(x):
    return all(math.isfinite(v) for v in x)
