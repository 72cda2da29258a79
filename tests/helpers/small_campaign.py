"""The campaigns and requests of the Spark engine's tests (tests/spark): a small warehouse with
NIST's trec_eval sample and a random diversity campaign, every measure with its default
parameters, and why Spark cannot run here when it cannot."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path

from irwarehouse.api import Warehouse
from irwarehouse.measures import MeasureRequest
from tests.helpers.paths import DATA


def diversity_files(folder: Path, seed: int = 7, tags=("divrun", "divrun2")
                    ) -> tuple[Path, Path, list[Path]]:
    """A small random diversity campaign: qrels `topic subtopic doc level` (with unjudged -1
    levels), DINprob intents, and a run per tag whose scores tie now and then."""
    rng = random.Random(seed)
    qrels, intents, runs = [], [], {tag: [] for tag in tags}
    for t in range(1, 5):
        docs = [f"d{t}-{k:02d}" for k in range(30)]
        n = rng.randint(2, 4)
        probs = [rng.random() + 0.1 for _ in range(n)]
        for i in range(1, n + 1):
            intents.append(f"{t} {i} {probs[i - 1] / sum(probs):.6f} "
                           f"{'nav' if rng.random() < 0.3 else 'inf'}")
            for doc in rng.sample(docs, 12):
                qrels.append(f"{t} {i} {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}")
        for tag, lines in runs.items():
            for rank, doc in enumerate(rng.sample(docs, 25), start=1):
                lines.append(f"{t} Q0 {doc} {rank} {round(rng.random() * 5, 1)} {tag}")
    paths = folder / "div.qrels", folder / "div.DINprob"
    for path, lines in zip(paths, (qrels, intents)):
        path.write_text("\n".join(lines) + "\n")
    run_paths = []
    for tag, lines in runs.items():
        run_paths.append(folder / f"{tag}.run")
        run_paths[-1].write_text("\n".join(lines) + "\n")
    return paths[0], paths[1], run_paths


def build_small_warehouse(path: Path) -> Path:
    """sample: NIST's trec_eval test files with graded qrels and document lengths; div: a
    random diversity campaign with intents."""
    folder = path.parent
    docs = {line.split()[2] for line in
            (DATA / "runs" / "STANDARD.results.test").read_text().splitlines()}
    lengths = folder / "lengths.tsv"
    lengths.write_text("".join(f"{d}\t{len(d) * 37 % 900 + 50}\t{len(d) * 211 % 5000 + 300}\n"
                               for d in sorted(docs)))
    dqrels, dinprob, druns = diversity_files(folder)
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.rel_level", "sample", name="graded")
        for run in sorted((DATA / "runs").glob("*")):
            wh.ingest_run(run, "sample", name=run.name)
        wh.ingest_doclengths(lengths, "sample")
        wh.ingest_qrels(dqrels, "div", fmt="diversity")
        wh.ingest_intents(dinprob, "div")
        for run in druns:
            wh.ingest_run(run, "div")
    return path


def campaign_of(mdef) -> str:
    return "div" if mdef.family.startswith("diversity") else "sample"


def macro_kwargs(req: MeasureRequest) -> dict:
    """The measure's parameters as arguments of its irw_ macro (syntax trees)."""
    from irwarehouse.spark.engine import _typed
    return {p.name: _typed(a, {"MAP": "MAP(INTEGER, DOUBLE)"}.get(p.type, p.type))
            for p, a in zip(req.mdef.params, req.args)}


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12
    return a == b


def same_value(a, b, tol: float = 1e-9) -> bool:
    """Equal to `tol`, NaN equal to NaN, infinities and NULLs equal only to themselves."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol


def spark_missing() -> str | None:
    """Why Spark cannot run here (None: it can): pyspark not installed, or no Java."""
    from irwarehouse.spark.engine import java_problem
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[spark]'; .ci/run installs it)"
    problem = java_problem()
    return f"{problem} (.ci/run installs it when run as root)" if problem else None

