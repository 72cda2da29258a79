"""Input validation for the statistics engine, in one place.

Every public function calls these helpers first, so that a bad argument fails with one clear
``ValueError`` (never an ``assert``, never a numpy warning further down).
"""

from __future__ import annotations

import numbers

import numpy as np


def as_sample(values, name: str = "x", *, min_size: int = 1) -> np.ndarray:
    """One 1-D float sample without NaN/inf."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size < min_size:
        raise ValueError(f"{name} needs at least {min_size} values, got {array.size}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def as_paired(x, y, *, min_size: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two samples of the same length (per-topic scores of two runs)."""
    x = as_sample(x, "x", min_size=min_size)
    y = as_sample(y, "y", min_size=min_size)
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have the same length, got {x.size} and {y.size}")
    return x, y


def as_matrix(matrix, *, min_topics: int = 2, min_runs: int = 2) -> np.ndarray:
    """A topics x runs score matrix (rows are topics, columns are runs)."""
    array = np.asarray(matrix, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"matrix must be 2-D (topics x runs), got shape {array.shape}")
    n_topics, n_runs = array.shape
    if n_topics < min_topics:
        raise ValueError(f"matrix needs at least {min_topics} topics (rows), got {n_topics}")
    if n_runs < min_runs:
        raise ValueError(f"matrix needs at least {min_runs} runs (columns), got {n_runs}")
    if not np.all(np.isfinite(array)):
        raise ValueError("matrix contains NaN or infinite values")
    return array


def run_names_for(run_names, n_runs: int) -> list[str]:
    if run_names is None:
        return [f"run{j}" for j in range(n_runs)]
    names = [str(name) for name in run_names]
    if len(names) != n_runs:
        raise ValueError(f"run_names has {len(names)} names for {n_runs} runs (columns)")
    if len(set(names)) != len(names):
        raise ValueError("run_names contains duplicates")
    return names


def check_resamples(B, name: str = "B") -> int:
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or B < 1:
        raise ValueError(f"{name} must be a positive integer, got {B!r}")
    return int(B)


def check_probability(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return float(value)


def check_choice(value, name: str, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value


def make_rng(rng) -> tuple[np.random.Generator, int | None]:
    """Return (generator, recorded seed).

    An int seeds a fresh ``default_rng``; ``None`` draws fresh OS entropy *and records it*, so a
    result can always be replayed; a Generator is used as is (its seed is unknown: ``None``).
    The global numpy RNG is never touched.
    """
    if isinstance(rng, np.random.Generator):
        return rng, None
    if rng is None:
        # 63 bits of fresh entropy: a seed `irw compare --store` records (significance.seed is
        # a BIGINT) and a user can type back
        seed = int(np.random.SeedSequence().entropy) % 2**63
        return np.random.default_rng(seed), seed
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral) or rng < 0:
        raise ValueError(
            f"rng must be a non-negative int seed, a numpy Generator or None, got {rng!r}"
        )
    return np.random.default_rng(int(rng)), int(rng)


def check_index_sample(indices, n_values: int, B: int, name: str = "sampler") -> np.ndarray:
    """Validate what an injected index sampler returned: ints in [0, n_values), shape (B, n)."""
    array = np.asarray(indices)
    if array.shape != (B, n_values):
        raise ValueError(f"{name} must return shape {(B, n_values)}, got {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must return integers, got dtype {array.dtype}")
    if array.size and (array.min() < 0 or array.max() >= n_values):
        raise ValueError(f"{name} returned indices outside [0, {n_values})")
    return array
