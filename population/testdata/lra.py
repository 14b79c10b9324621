# Generates lra.tsv: one learning rate adaptation step of LRA-CMA-ES
# (Nomura, Akimoto & Ono 2023, arXiv:2304.03473) as the cmaes library
# 0.13.1 computes it (cmaes._cma.CMA._lr_adaptation), for the test of the
# CMAES learning rate adaptation. Run with numpy and the cmaes library
# importable (its source tree on PYTHONPATH is enough):
#   python3 lra.py > lra.tsv
# Each line is one step of a chain: n, then the inputs (old mean, old sigma,
# old C, old C^(-1/2), new mean, new sigma, new C, and the adaptation state
# E_mean, E_Sigma, V_mean, V_Sigma, eta_mean, eta_Sigma) and the outputs
# (mean, sigma, C and the adaptation state after the step), each field
# comma-separated, matrices row-major. A chain feeds each step's outputs to
# the next, so that the moving averages reach the states a run reaches.
import random
import numpy as np
from cmaes._cma import CMA

rng = random.Random(20261201)


def rand_pd(n, spread):
    a = np.array([[rng.gauss(0, 1) for _ in range(n)] for _ in range(n)])
    q, _ = np.linalg.qr(a)
    d = np.array([np.exp(rng.uniform(-spread, spread)) for _ in range(n)])
    c = q @ np.diag(d) @ q.T
    return (c + c.T) / 2


def inv_sqrt(c):
    d2, b = np.linalg.eigh(c)
    return b @ np.diag(1 / np.sqrt(d2)) @ b.T


def f(xs):
    return ",".join(repr(float(x)) for x in np.asarray(xs).reshape(-1))


for chain in range(24):
    n = rng.choice([2, 3, 5, 8])
    drift = rng.choice([0.0, 0.3, 1.0, 3.0])
    direction = np.array([rng.gauss(0, 1) for _ in range(n)])
    direction /= np.linalg.norm(direction)
    cma = CMA(mean=np.zeros(n), sigma=1.0, lr_adapt=True)
    m = np.array([rng.gauss(0, 1) for _ in range(n)])
    sigma = np.exp(rng.uniform(-3, 0))
    c = rand_pd(n, 1.0)
    c /= np.exp(np.log(np.linalg.eigvalsh(c)).sum() / n)
    for step in range(30):
        isc = inv_sqrt(c)
        sq = np.linalg.cholesky(c)
        step_y = drift * direction + np.array([rng.gauss(0, 1) for _ in range(n)]) / np.sqrt(2)
        m1 = m + sigma * (sq @ step_y)
        s1 = sigma * np.exp(rng.gauss(0, 0.1))
        lr = rng.uniform(0.05, 0.3)
        v = sq @ np.array([rng.gauss(0, 1) for _ in range(n)]) + drift * direction
        c1 = (1 - lr) * c + lr * (np.outer(v, v) + 0.1 * c)
        c1 = (c1 + c1.T) / 2
        ins = [m, [sigma], c, isc, m1, [s1], c1, cma._Emean, cma._ESigma,
               [cma._Vmean], [cma._VSigma], [cma._eta_mean], [cma._eta_Sigma]]
        cma._mean = m1.copy()
        cma._sigma = s1
        cma._C = c1.copy()
        cma._lr_adaptation(m.copy(), sigma, sigma**2 * c, isc)
        outs = [cma._mean, [cma._sigma], cma._C, cma._Emean, cma._ESigma,
                [cma._Vmean], [cma._VSigma], [cma._eta_mean], [cma._eta_Sigma]]
        print("\t".join([str(n)] + [f(x) for x in ins] + [f(x) for x in outs]))
        m, sigma, c = cma._mean.copy(), float(cma._sigma), (cma._C + cma._C.T) / 2
