"""Time discriminative power of 10 metrics over 100 runs x 50 topics (a seeded random matrix per
metric), randomised Tukey HSD with B = 5,000 (and the bootstrap with B = 1,000, the swap method
with B = 1,000, for comparison).

    PYTHONPATH=. python bench/bench_meta.py [--repeat 3]

Not a unit test: figures depend on the machine. The target of issue 6: well under a minute for
the Tukey run on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from irwarehouse.meta import discpower as dp
from irwarehouse.meta import swap as sw
from irwarehouse.meta._common import MetricSet


def seeded_metrics(n_metrics: int = 10, n_topics: int = 50, n_runs: int = 100,
                   seed: int = 20260101) -> MetricSet:
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 3, size=(n_topics, 1))
    run = np.linspace(-0.15, 0.15, n_runs)[None, :]
    values = {}
    for k in range(n_metrics):
        noise = rng.normal(0, 0.08 + 0.01 * k, size=(n_topics, n_runs))
        values[f"metric{k}"] = np.clip(topic + run + noise, 0, 1)
    return MetricSet.from_arrays(values)


def timed(label: str, action, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    print(f"{label:<62} best {min(times):7.2f} s   median {statistics.median(times):7.2f} s",
          flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    metrics = seeded_metrics()
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs; 10 metrics x 100 runs x 50 topics "
          f"(4,950 pairs each)")
    rows = timed("discriminative power, randomised Tukey HSD, B = 5,000",
                 lambda: dp.discpower_table(metrics, test="tukey", B=5000, rng=1), args.repeat)
    print("  shares:", ", ".join(f"{r.measure} {r.share:.1%}" for r in rows))
    timed("discriminative power, paired bootstrap + delta, B = 1,000",
          lambda: dp.discpower_table(metrics, test="bootstrap", B=1000, rng=1), args.repeat)
    timed("swap method, bootstrap topic sets, B = 1,000",
          lambda: sw.swap_table(metrics, B=1000, rng=1), args.repeat)


if __name__ == "__main__":
    main()
