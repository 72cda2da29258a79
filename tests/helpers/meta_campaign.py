"""Helpers shared by the meta-evaluation tests: a small random campaign on disk, and in a
warehouse (score matrices: matrices.py)."""

import numpy as np

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


def campaign_warehouse(folder, stored: tuple[str, ...] = ()):
    """write_campaign's files ingested as campaign `c` of folder/w.duckdb, with the scores of
    the `stored` measures stored; returns the warehouse path."""
    from irwarehouse.api import Warehouse
    path, _, _ = write_campaign(folder)
    target = folder / "w.duckdb"
    with Warehouse(target) as wh:
        wh.ingest_qrels(path / "qrels", "c")
        for run in RUNS:
            wh.ingest_run(path / run, "c")
        if stored:
            wh.evaluate(list(stored), campaign="c", store=True)
    return target
