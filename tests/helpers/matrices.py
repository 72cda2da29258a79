"""Helpers shared by the statistics and meta-evaluation tests: score matrices shaped like IR
results, and a recorder of the resamples a test replays in a slow reference loop."""

import numpy as np


def realistic_matrix(n_topics, n_runs, seed, spread=0.15):
    """IR-like scores in [0, 1]: topic difficulty + run strength + noise."""
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 3, size=(n_topics, 1))
    run = np.linspace(-spread, spread, n_runs)[None, :]
    noise = rng.normal(0, 0.12, size=(n_topics, n_runs))
    return np.clip(topic + run + noise, 0, 1)


def coarse_matrix(n_topics, n_runs, seed, levels=10):
    """P@10-like scores: multiples of 1/levels, with many ties."""
    return np.round(realistic_matrix(n_topics, n_runs, seed) * levels) / levels


class RecordingSampler:
    """Wraps a sampler/permuter, keeps every array it hands out so a slow loop can replay it."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def __call__(self, *args):
        out = self.inner(*args)
        self.calls.append(np.array(out, copy=True))
        return out
