# Generates rankchange.tsv: UH-CMA-ES's uncertainty measure as pycma 4.4.0
# computes it (cma.optimization_tools.NoiseHandler.update_measure), for the
# test of stats.RankChange. Run with pycma and numpy importable:
#   python3 rankchange.py > rankchange.tsv
# Each line: lambda, fit (comma-separated), fitre, idx, mean s.
import random
import numpy as np
from cma.optimization_tools import NoiseHandler

rng = random.Random(20261129)
for case in range(400):
    lam = rng.choice([3, 4, 5, 6, 8, 10, 12, 16, 24, 40])
    fit = [rng.gauss(0, 1) for _ in range(lam)]
    nre = rng.randint(1, lam)
    idx = sorted(rng.sample(range(lam), nre))
    noise = rng.choice([0.01, 0.3, 1, 3, 10])
    fitre = list(fit)
    for i in idx:
        fitre[i] = fit[i] + rng.gauss(0, noise)
    nh = NoiseHandler(5)
    nh.fit, nh.fitre, nh.idx = fit, fitre, np.asarray(idx)
    _, s = nh.update_measure()
    f = lambda xs: ",".join(repr(float(x)) for x in xs)
    print(f"{lam}\t{f(fit)}\t{f(fitre)}\t{','.join(map(str, idx))}\t{float(np.mean(s))!r}")
