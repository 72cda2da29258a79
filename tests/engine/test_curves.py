"""Cumulated gain curves by rank against Baeza-Yates & Ribeiro-Neto's (Modern Information Retrieval 2011) worked example and a plain-Python oracle."""

import math

import numpy as np
import pytest

from irwarehouse.api import Warehouse

# Seed 003 (and METRICS.md "Cumulated gain"): gains by rank and the DCG vector, log base 2.
SEED_GAINS = (1, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 3)
SEED_DCG = (1.0, 1.0, 1.6, 1.6, 1.6, 2.8, 2.8, 2.8, 2.8, 3.4, 3.4, 3.4, 3.4, 3.4, 4.2)


def _campaign(tmp_path, gains_by_topic):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    with open(qrels, "w") as q, open(run, "w") as r:
        for topic, gains in gains_by_topic.items():
            for i, g in enumerate(gains):
                q.write(f"{topic} 0 d{i:02d} {g}\n")
                r.write(f"{topic} Q0 d{i:02d} {i + 1} {100 - i} run\n")
    wh = Warehouse(tmp_path / "w.duckdb")
    wh.ingest_qrels(qrels, "c")
    wh.ingest_run(run, "c")
    return wh


def test_seed_003_dcg_vector(tmp_path):
    with _campaign(tmp_path, {"1": SEED_GAINS}) as wh:
        rows = wh.cg_curves("c", depth=15).to_pylist()
    assert [r["cg"] for r in rows] == list(np.cumsum(SEED_GAINS))
    assert [round(r["dcg"], 1) for r in rows] == list(SEED_DCG)
    # the ideal list sorts the gains 3,3,2,1,1 and the normalised curve reaches 1 only there
    assert rows[-1]["ideal_cg"] == sum(SEED_GAINS)
    assert rows[0]["ndcg"] == pytest.approx(1 / 3)


def _oracle(gains, depth, base, variant):
    ideal = sorted((g for g in gains if g > 0), reverse=True) + [0] * depth
    out, cg, dcg, icg, idcg = [], 0.0, 0.0, 0.0, 0.0
    for r in range(1, depth + 1):
        g = gains[r - 1] if r <= len(gains) else 0
        disc = (1 + math.log(r, base)) if variant == "one_plus_log" else (
            1.0 if r < base else math.log(r, base))
        cg, dcg = cg + g, dcg + g / disc
        icg, idcg = icg + ideal[r - 1], idcg + ideal[r - 1] / disc
        out.append((cg, dcg, dcg / idcg if idcg else None))
    return out


@pytest.mark.parametrize("base,variant", [(2, "jk"), (10, "jk"), (2, "one_plus_log")])
def test_against_a_plain_python_oracle(tmp_path, base, variant):
    rng = np.random.default_rng(5)
    topics = {str(t): tuple(int(x) for x in rng.integers(0, 4, size=12)) for t in range(6)}
    with _campaign(tmp_path, topics) as wh:
        rows = wh.cg_curves("c", depth=15, log_base=base, variant=variant).to_pylist()
        means = wh.cg_curves("c", depth=15, log_base=base, variant=variant,
                             average=True).to_pylist()
    for topic, gains in topics.items():
        got = [(r["cg"], r["dcg"], r["ndcg"]) for r in rows if r["topic"] == topic]
        for (cg, dcg, nd), (ecg, edcg, end) in zip(got, _oracle(gains, 15, base, variant)):
            assert cg == pytest.approx(ecg) and dcg == pytest.approx(edcg)
            assert (nd is None and end is None) or nd == pytest.approx(end)
    last = means[-1]
    per_topic = [_oracle(g, 15, base, variant)[-1] for g in topics.values()]
    assert last["mean_ndcg"] == pytest.approx(np.mean([p[2] or 0 for p in per_topic]))


def test_curves_are_callable_from_a_plain_duckdb_client(tmp_path):
    """Issue 30: irw_cg_curve and irw_cg_curve_mean are persistent macros of the warehouse
    file; a Python that never imports irwarehouse gets the curves Warehouse.cg_curves gives,
    with gains, depth, log base and variant as parameters (cg_curve once failed there:
    "ev_run_topic does not exist")."""
    import json
    import subprocess
    import sys
    gains = {"1": (3, 0, 2, 1, 0, 0, 2), "2": (0, 1, 1, 0, 3)}
    with _campaign(tmp_path, gains) as wh:
        per_topic = wh.cg_curves("c", depth=6, log_base=3.0, variant="one_plus_log",
                                 gains={1: 2.0}).to_pylist()
        means = wh.cg_curves("c", depth=6, average=True).to_pylist()
    script = tmp_path / "client.py"
    script.write_text(
        "import json, sys\nimport duckdb\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "cols = lambda cur: [d[0] for d in cur.description]\n"
        "c1 = con.execute(\"SELECT * FROM irw_cg_curve('c', depth := 6, log_base := 3.0, "
        "variant := 'one_plus_log', gain_map := MAP {1: 2.0}) ORDER BY run, topic, rank\")\n"
        "rows = [dict(zip(cols(c1), r)) for r in c1.fetchall()]\n"
        "c2 = con.execute(\"SELECT * FROM irw_cg_curve_mean(campaign := 'c', depth := 6) "
        "ORDER BY run, rank\")\n"
        "mean = [dict(zip(cols(c2), r)) for r in c2.fetchall()]\n"
        "print(json.dumps({'imported': 'irwarehouse' in sys.modules, 'rows': rows, "
        "'mean': mean}))\n")
    done = subprocess.run([sys.executable, "-I", str(script), str(tmp_path / "w.duckdb")],
                          capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["imported"] is False
    for got, want in ((out["rows"], per_topic), (out["mean"], means)):
        assert len(got) == len(want) > 0
        for g, w in zip(got, want):
            w = {k: v for k, v in w.items() if k != "run_id"}
            assert g.keys() == w.keys()
            assert all(g[k] == w[k] or (isinstance(w[k], float)
                                        and g[k] == pytest.approx(w[k], abs=1e-12))
                       for k in w), (g, w)
