"""Helpers shared by the statistics tests."""

import numpy as np


def fixed_indices(rows):
    """A sampler that returns recorded 0-based index rows (shape (B, n))."""
    rows = np.asarray(rows)

    def sampler(n, B, rng):
        return rows

    return sampler
