"""Helpers shared by the statistics tests."""

import numpy as np


class RecordingSampler:
    """Wraps a sampler/permuter, keeps every array it hands out so a slow loop can replay it."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def __call__(self, *args):
        out = self.inner(*args)
        self.calls.append(np.array(out, copy=True))
        return out


def fixed_indices(rows):
    """A sampler that returns recorded 0-based index rows (shape (B, n))."""
    rows = np.asarray(rows)

    def sampler(n, B, rng):
        return rows

    return sampler


def realistic_matrix(n_topics, n_runs, seed, spread=0.15):
    """IR-like scores in [0, 1]: topic difficulty + run strength + noise."""
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 3, size=(n_topics, 1))
    run = np.linspace(-spread, spread, n_runs)[None, :]
    noise = rng.normal(0, 0.12, size=(n_topics, n_runs))
    return np.clip(topic + run + noise, 0, 1)
