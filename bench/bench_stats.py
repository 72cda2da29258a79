"""Time the two heavy statistics paths on a seeded 50 topics x 100 runs matrix.

    PYTHONPATH=. python bench/bench_stats.py [--repeat 5]

Prints the best and median wall time of: all 4,950 paired bootstraps with B = 1,000 (one shared
index sample), the same with the borderline-delta pass, and a randomised Tukey HSD with B = 5,000.
Not a unit test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from irwarehouse.stats import compare_all, paired_bootstrap_all_pairs, tukey_hsd


def seeded_matrix(n_topics: int = 50, n_runs: int = 100, seed: int = 20260101) -> np.ndarray:
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 3, size=(n_topics, 1))
    run = np.linspace(-0.15, 0.15, n_runs)[None, :]
    return np.clip(topic + run + rng.normal(0, 0.12, size=(n_topics, n_runs)), 0, 1)


def timed(label: str, action, repeat: int) -> None:
    action()  # warm-up (imports, BLAS threads)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    print(f"{label:<58} best {min(times):6.3f} s   median {statistics.median(times):6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    matrix = seeded_matrix()
    print(
        f"matrix {matrix.shape[0]} topics x {matrix.shape[1]} runs, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs"
    )
    timed(
        "paired bootstrap, 4,950 pairs, B=1,000",
        lambda: paired_bootstrap_all_pairs(matrix, B=1000, rng=1),
        args.repeat,
    )
    timed(
        "paired bootstrap + borderline delta, 4,950 pairs, B=1,000",
        lambda: paired_bootstrap_all_pairs(matrix, B=1000, rng=1, delta_alpha=0.05),
        args.repeat,
    )
    timed(
        "randomised Tukey HSD, 100 runs, B=5,000",
        lambda: tukey_hsd(matrix, B=5000, rng=1),
        args.repeat,
    )
    timed(
        "compare_all(test='bootstrap', correction='holm')",
        lambda: compare_all(matrix, test="bootstrap", correction="holm", rng=1),
        args.repeat,
    )


if __name__ == "__main__":
    main()
