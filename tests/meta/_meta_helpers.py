"""Helpers shared by the meta-evaluation tests: small matrices and slow reference loops."""

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


class Recorder:
    """Wraps a sampler/permuter and keeps every array it hands out."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def __call__(self, *args):
        out = self.inner(*args)
        self.calls.append(np.array(out, copy=True))
        return out


TOPICS = ["301", "302", "303"]
RUNS = {"alphaA": "alpha", "alphaB": "alpha", "beta1": "beta", "gamma1": "gamma",
        "gamma2": "gamma"}


def write_campaign(tmp_path):
    """A small random campaign: 3 topics, 5 runs of 3 teams, 12 docs per topic and run out of
    a 20-doc collection, scores with ties; graded qrels on 25 docs per topic."""
    rng = np.random.default_rng(17)
    runs = {}
    for run in RUNS:
        lines = []
        for topic in TOPICS:
            docs = rng.choice(20, size=12, replace=False)
            scores = rng.integers(0, 6, size=12)          # many ties: docno decides
            for rank, (doc, score) in enumerate(zip(docs, scores)):
                lines.append((topic, f"D{doc:02d}", float(score), rank))
        runs[run] = lines
        (tmp_path / run).write_text("".join(f"{t} Q0 {d} {r} {s} {run}\n"
                                            for t, d, s, r in lines))
    qrels = []
    for topic in TOPICS:
        for doc in rng.choice(25, size=15, replace=False):
            qrels.append((topic, f"D{doc:02d}", int(rng.integers(0, 3))))
    (tmp_path / "qrels").write_text("".join(f"{t} 0 {d} {r}\n" for t, d, r in qrels))
    return tmp_path, runs, qrels
