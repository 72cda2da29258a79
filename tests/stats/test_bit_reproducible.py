"""Identical runs are never "different", and a fixed seed gives the same output (issue 23).

* the statistics engine: two runs equal on every topic get p = 1 from the bootstrap, the
  randomisation test and Tukey HSD (both tie rules), and statistic 0, p = 1 and a note from the
  t, Wilcoxon and sign tests; a constant difference has variance exactly 0 (never rounding
  noise), so t is infinite and the bootstrap's shifted differences are exactly 0;
* end to end, as issue 23 found it: a campaign of 8 runs plus a renamed copy (TWIN) of one,
  `irw compare` run in two fresh processes (each evaluating the measure first, under another
  PYTHONHASHSEED) gives p = 1 for the twin pair under bootstrap, randomisation and Tukey HSD,
  and the same output both times; `irw meta` commands with a seed give the same output too."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.stats import (
    compare_all,
    paired_bootstrap,
    paired_bootstrap_all_pairs,
    paired_t,
    randomisation_all_pairs,
    randomisation_test,
    sign_test,
    tukey_hsd,
    wilcoxon_signed_rank,
)
from irwarehouse.stats.ties import IDENTICAL_NOTE
from tests.helpers.paths import REPO

# -- the statistics engine ----------------------------------------------------------------------


def _matrix_with_a_twin(seed: int = 3, topics: int = 30, runs: int = 5) -> np.ndarray:
    """Continuous scores; column 1 is a copy of column 0."""
    rng = np.random.default_rng(seed)
    matrix = rng.random((topics, runs))
    matrix[:, 1] = matrix[:, 0]
    return matrix


@pytest.mark.parametrize("plus_one", [False, True])
def test_identical_runs_get_p_one_from_the_resampling_tests(plus_one):
    matrix = _matrix_with_a_twin()
    x = matrix[:, 0]
    assert paired_bootstrap(x, x.copy(), B=500, rng=1, plus_one=plus_one).pvalue == 1.0
    assert paired_bootstrap(x, x.copy(), B=500, rng=1).note == IDENTICAL_NOTE
    assert randomisation_test(x, x.copy(), B=500, rng=1, method="approximate",
                              plus_one=plus_one).pvalue == 1.0
    assert randomisation_test(x[:12], x[:12].copy(), method="exact").pvalue == 1.0
    boot = paired_bootstrap_all_pairs(matrix, B=500, rng=1, plus_one=plus_one)
    perm = randomisation_all_pairs(matrix, B=500, rng=1, plus_one=plus_one)
    for res in (boot, perm):
        twin = (res.run_a == 0) & (res.run_b == 1)
        assert res.pvalue[twin].tolist() == [1.0]
        assert np.all(res.pvalue[~twin] < 1.0)
    for rule in ("ge", "gt"):
        tukey = tukey_hsd(matrix, B=500, rng=1, tie_rule=rule, plus_one=plus_one)
        assert tukey.pvalues[0, 1] == tukey.pvalues[1, 0] == 1.0


def test_identical_runs_under_tukey_gt_when_every_run_is_the_same():
    """Every permuted range is 0: '>' counts nothing, yet no pair of equal runs is significant."""
    column = np.random.default_rng(1).random(10)
    matrix = np.column_stack([column] * 4)
    for rule in ("ge", "gt"):
        assert np.all(tukey_hsd(matrix, B=200, rng=2, tie_rule=rule).pvalues == 1.0)


def test_identical_runs_get_a_documented_value_from_t_wilcoxon_and_sign():
    x = np.array([0.1, 0.25, 0.3, 0.7, 0.05, 0.4])
    for test in (paired_t, wilcoxon_signed_rank, sign_test):
        res = test(x, x.copy())
        assert (res.statistic, res.pvalue, res.note) == (0.0, 1.0, IDENTICAL_NOTE)
    assert paired_t(x, x + 0.01).note is None


@pytest.mark.parametrize("test", ["bootstrap", "randomisation", "tukey", "t", "wilcoxon", "sign"])
def test_compare_all_marks_identical_pairs(test):
    matrix = _matrix_with_a_twin()
    comparison = compare_all(matrix, ["A", "TWIN", "B", "C", "D"], test=test,
                             B=300 if test in ("bootstrap", "randomisation", "tukey") else None,
                             rng=5)
    assert comparison.identical_pairs == [("A", "TWIN")]
    twin = comparison.pairs[0]
    assert (twin.run_a, twin.run_b, twin.p, twin.p_adjusted, twin.delta) == \
        ("A", "TWIN", 1.0, 1.0, 0.0)
    assert not twin.significant


def test_a_constant_difference_has_zero_variance_not_noise():
    """0.1 on every topic: mean(z) computed in floating point is 0.10000000000000002, which
    would make z - mean(z) and the variance rounding noise; the variance is 0 exactly, t is
    infinite, the bootstrap's shifted differences are 0 (ASL 0), and randomisation gives the
    exact 2 / 2^n."""
    y = np.array([0.0, 0.0, 0.0])
    x = np.array([0.1, 0.1, 0.1])
    z = x - y
    assert np.all(z == z[0]) and z.var(ddof=1) > 0           # the noise this is about
    assert paired_t(x, y).statistic == np.inf and paired_t(x, y).pvalue == 0.0
    boot = paired_bootstrap(x, y, B=400, rng=3, return_null=True)
    assert boot.statistic == np.inf and boot.pvalue == 0.0
    assert np.all(boot.null_distribution == 0.0)
    assert randomisation_test(x, y, method="exact").pvalue == 2 / 2**3


# -- end to end: irw compare and irw meta in fresh processes ------------------------------------

RUNS = [f"run{i}" for i in range(8)]


def _write_campaign(folder: Path) -> tuple[Path, list[Path]]:
    """25 topics, 8 runs of 200 documents and a renamed copy of run3 (TWIN); graded qrels."""
    rng = random.Random(23)
    qrels, files = [], []
    docs = {t: [f"d{t}-{k:04d}" for k in range(400)] for t in range(1, 26)}
    for t, pool in docs.items():
        for doc in rng.sample(pool, 150):
            qrels.append(f"{t} 0 {doc} {rng.choice([0, 0, 1, 1, 2, 3])}\n")
    (folder / "qrels").write_text("".join(qrels))
    for name in RUNS:
        lines = [f"{t} Q0 {doc} {rank} {rng.random() * 10:.6f} {name}\n"
                 for t, pool in docs.items()
                 for rank, doc in enumerate(rng.sample(pool, 200), start=1)]
        (folder / name).write_text("".join(lines))
        files.append(folder / name)
    (folder / "TWIN").write_text((folder / "run3").read_text().replace(" run3\n", " TWIN\n"))
    return folder / "qrels", files + [folder / "TWIN"]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    """A warehouse with the runs and qrels and no stored scores."""
    folder = tmp_path_factory.mktemp("twin")
    qrels, runs = _write_campaign(folder)
    path = folder / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "r")
        for run in runs:
            wh.ingest_run(run, "r")
    return path


def _irw(args: list[str], hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed,
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "irwarehouse.cli", *args], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _fresh_copy(campaign: Path, folder: Path, name: str) -> Path:
    target = folder / name
    target.write_bytes(campaign.read_bytes())
    return target


def _twin_p(output: str) -> float:
    pairs = [json.loads(line) for line in output.splitlines()]
    (twin,) = [p for p in pairs if {p["run_a"], p["run_b"]} == {"run3", "TWIN"}]
    return twin["p"]


@pytest.mark.parametrize("test, extra", [
    ("bootstrap", ["-B", "2000"]), ("randomisation", ["-B", "2000"]),
    ("tukey", ["-B", "2000"]), ("tukey", ["-B", "2000", "--tie-rule", "gt"])],
    ids=["bootstrap", "randomisation", "tukey-ge", "tukey-gt"])
def test_irw_compare_gives_the_twin_p_one_and_the_same_output_twice(campaign, tmp_path, test,
                                                                    extra):
    outputs = []
    for attempt, hash_seed in enumerate(("1", "2")):
        # a fresh copy each time: `irw compare` evaluates and stores the measure itself
        path = _fresh_copy(campaign, tmp_path, f"w{attempt}.duckdb")
        args = ["compare", "-w", str(path), "-C", "r", "-m", "map", "--test", test,
                "--seed", "7", *extra]
        outputs.append((_irw([*args, "-f", "jsonl"], hash_seed), _irw(args, hash_seed)))
    assert outputs[0] == outputs[1]
    json_out, table = outputs[0]
    assert _twin_p(json_out) == 1.0
    assert "note: identical per-topic values, p = 1 by definition: TWIN = run3" in table


def test_irw_meta_gives_the_same_output_twice(campaign, tmp_path):
    common = ["-C", "r", "-m", "map", "-m", "P@10", "-m", "nDCG@10", "--seed", "3"]
    commands = [
        ["meta", "discpower", *common, "-B", "300", "--pairs", "-f", "csv"],
        ["meta", "discpower", *common, "--test", "tukey", "-B", "300", "--pairs", "-f", "csv"],
        ["meta", "swap", *common, "-B", "100", "-f", "json"],
        ["meta", "sensitivity", *common, "-B", "100"],
        ["meta", "rankcorr", *common[:-2], "--stat", "kendall", "--stat", "tau_ap", "-f",
         "json"],
    ]
    outputs = []
    for attempt, hash_seed in enumerate(("1", "2")):
        path = _fresh_copy(campaign, tmp_path, f"m{attempt}.duckdb")
        outputs.append([_irw([*cmd[:2], "-w", str(path), *cmd[2:]], hash_seed)
                        for cmd in commands])
    assert outputs[0] == outputs[1]
    boot, tukey = outputs[0][0].splitlines(), outputs[0][1].splitlines()
    header = boot[0].split(",")
    for lines in (boot, tukey):
        twin = [dict(zip(header, line.split(","))) for line in lines[1:]
                if {"run3", "TWIN"} <= set(line.split(","))]
        assert len(twin) == 3 and all(float(row["asl"]) == 1.0 for row in twin)
