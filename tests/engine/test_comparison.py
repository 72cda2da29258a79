"""`irw compare` and the score matrix it pulls from the warehouse."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import WarehouseError
from irwarehouse.stats import paired_bootstrap


def _write_campaign(folder, n_topics=12, n_runs=4, seed=3, drop=None):
    """Random qrels and runs; run 'r1' duplicates run 'r0' (identical rankings)."""
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels"
    with open(qrels, "w") as f:
        for t in range(n_topics):
            f.writelines(f"{t} 0 d{d} {int(rng.random() < 0.3)}\n" for d in range(30))
    runs = []
    base = None
    for r in range(n_runs):
        path = folder / f"r{r}.run"
        scores = rng.random((n_topics, 30)) if r != 1 else base
        base = scores if r == 0 else base
        with open(path, "w") as f:
            for t in range(n_topics):
                if drop == (r, t):
                    continue
                f.writelines(f"{t} Q0 d{d} 0 {scores[t, d]:.6f} r{r}\n" for d in range(30))
        runs.append(path)
    return qrels, runs


@pytest.fixture
def campaign(tmp_path):
    qrels, runs = _write_campaign(tmp_path)
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "c")
        for run in runs:
            wh.ingest_run(run, "c")
    return path


def _compare(path, *args):
    """irw compare's stdout (stderr names what was evaluated and with which options)."""
    result = CliRunner().invoke(app, ["compare", "-C", "c", "-m", "map", "-w", str(path), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_json_gives_one_object_per_pair_and_identical_runs_have_p_1(campaign):
    rows = [json.loads(line) for line in _compare(campaign, "-f", "jsonl", "--seed", "7")
            .splitlines()]
    assert len(rows) == 4 * 3 // 2
    same = next(r for r in rows if {r["run_a"], r["run_b"]} == {"r0", "r1"})
    assert same["delta"] == 0 and same["p"] == 1.0
    assert set(rows[0]) >= {"run_a", "run_b", "mean_a", "mean_b", "delta", "p"}


def test_cli_p_value_equals_the_engine_fed_the_same_matrix_and_seed(campaign):
    # the bootstrap named: over four runs the default is Tukey HSD (stats.default_test)
    rows = [json.loads(line) for line in _compare(campaign, "-f", "jsonl", "--seed", "11",
                                                  "--test", "bootstrap").splitlines()]
    with Warehouse(campaign) as wh:
        m = wh.score_matrix("c", "map")             # the same request, through the API
    r = rows[0]
    single = paired_bootstrap(m.column(r["run_a"]), m.column(r["run_b"]), B=1000, rng=11)
    assert r["p"] == pytest.approx(single.pvalue)


def test_same_seed_same_output_and_store_records_test_B_seed(campaign):
    a = _compare(campaign, "--test", "tukey", "--seed", "5", "-B", "500")
    b = _compare(campaign, "--test", "tukey", "--seed", "5", "-B", "500", "--store")
    assert a == b
    with Warehouse(campaign) as wh:
        rows = wh.con.execute("SELECT DISTINCT test, B, seed FROM significance").fetchall()
    assert rows == [("tukey", 500, 5)]


def test_correction_adds_p_adjusted(campaign):
    rows = [json.loads(line) for line in _compare(campaign, "-f", "jsonl", "--test", "t",
                                                   "--correction", "holm").splitlines()]
    assert all(r["p_adjusted"] >= r["p"] for r in rows)


def test_missing_topic_policies(tmp_path):
    qrels, runs = _write_campaign(tmp_path, drop=(2, 5))
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "c")
        for run in runs:
            wh.ingest_run(run, "c")
        wh.evaluate(["map"], campaign="c", store=True)
        with pytest.raises(WarehouseError, match="no map score for topic '5'"):
            wh.score_matrix("c", "map")
        dropped = wh.score_matrix("c", "map", missing="drop")
        zero = wh.score_matrix("c", "map", missing="zero")
    assert dropped.values.shape == (11, 4)
    assert zero.values.shape == (12, 4)
    assert zero.values[zero.topics.index("5"), zero.runs.index("r2")] == 0.0


@pytest.mark.parametrize("stored", [None, "P_10", "P@10"])
def test_every_spelling_of_a_measure_compares_the_same(campaign, stored):
    """`-m P.10`, `-m P_10` and `-m P@10` are one measure (the grammar of irwarehouse.measures):
    compare finds its stored scores under any spelling, or evaluates them and (--store) stores
    them once, under the canonical name P_10 with the spelling that asked kept beside it."""
    if stored:
        with Warehouse(campaign) as wh:
            wh.evaluate([stored], campaign="c", store=True)
    out = {}
    for spelling in ("P.10", "P_10", "P@10"):
        result = CliRunner().invoke(app, ["compare", "-C", "c", "-m", spelling, "-w",
                                          str(campaign), "-f", "jsonl", "--seed", "5",
                                          "--store"])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert {r.pop("measure") for r in rows} == {spelling}    # the row names the measure
        out[spelling] = rows
    assert out["P.10"] == out["P_10"] == out["P@10"] and len(out["P.10"]) == 6
    with Warehouse(campaign) as wh:
        names = wh.con.execute("SELECT DISTINCT measure, spelling FROM score").fetchall()
    assert names == [("P_10", stored or "P_10")]   # evaluated and stored once (P.10 prints P_10)


def build_two_qrels_campaign(folder):
    """Campaign c of _write_campaign's runs with the same judgments stored twice, as qrels a
    and b: a command must be told which (or take the profile's)."""
    qrels, runs = _write_campaign(folder)
    path = folder / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "c", name="a")
        wh.ingest_qrels(qrels, "c", name="b")
        for run in runs:
            wh.ingest_run(run, "c")
    return path


def test_compare_chooses_among_several_qrels(tmp_path):
    path = build_two_qrels_campaign(tmp_path)
    args = ["compare", "-C", "c", "-m", "map", "-w", str(path), "--seed", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "several qrels" in result.output
    result = CliRunner().invoke(app, [*args, "--qrels", "b", "--store"])
    assert result.exit_code == 0, result.output
    with Warehouse(path) as wh:       # scores stored for b only; a later compare names b too
        assert wh.con.execute("SELECT DISTINCT qrels FROM topic_score").fetchall() == [("b",)]
    assert CliRunner().invoke(app, [*args, "--qrels", "b"]).exit_code == 0
