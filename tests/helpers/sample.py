"""The bundled sample (data/) as a small warehouse, with extra runs derived from its run
(reshuffled) so that there is something to compare (analyst and report tests)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.helpers.paths import DATA

MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank", "iprec_at_recall"]


def derived_runs(folder: Path, n: int = 3, seed: int = 7) -> list[Path]:
    """Runs made from the sample run by swapping documents, one file per run (tag sysN)."""
    lines = (DATA / "runs" / "STANDARD.results.test").read_text().splitlines()
    rows = [line.split() for line in lines if line.strip()]
    rng = random.Random(seed)
    paths = []
    for k in range(1, n + 1):
        by_topic: dict[str, list[list[str]]] = {}
        for r in rows:
            by_topic.setdefault(r[0], []).append(r)
        out = []
        for topic, trows in by_topic.items():
            docs = [r[2] for r in trows]
            for _ in range(len(docs) // (k + 1)):
                i, j = rng.randrange(len(docs)), rng.randrange(len(docs))
                docs[i], docs[j] = docs[j], docs[i]
            out += [f"{topic} Q0 {d} {rank} {1000 - rank} sys{k}" for rank, d in enumerate(docs)]
        path = folder / f"sys{k}.run"
        path.write_text("\n".join(out) + "\n")
        paths.append(path)
    return paths


def build_sample(path: Path, runs_dir: Path) -> Path:
    from irwarehouse.api import Warehouse
    from irwarehouse.store import digests
    from irwarehouse.store.ingest import transaction
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.test", "sample", name="binary")
        wh.ingest_qrels(DATA / "qrels.rel_level", "sample", name="graded")
        wh.ingest_run(DATA / "runs" / "STANDARD.results.test", "sample", team="STANDARD")
        for run in derived_runs(runs_dir):
            wh.ingest_run(run, "sample", team="sys")
        wh.evaluate(MEASURES, campaign="sample", qrels="graded", store=True)
        with transaction(wh.con):       # its digest recorded, as irw's own writes do
            wh.con.execute("UPDATE campaign SET year = 2024, venue = 'demo' "
                           "WHERE name = 'sample'")
            digests.touch(wh.con, "campaign", "name = 'sample'")
    return path
