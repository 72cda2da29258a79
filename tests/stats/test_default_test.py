"""The default test of a comparison (issue 34, item 2): randomised Tukey HSD (B = 5,000) over more
than two runs, as Sakai (IPSJ JIP 2013, sections 1 and 7) recommends for a set of runs; the paired
bootstrap for two runs, as before. A command that names its test behaves as it always did."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.stats import compare_all
from irwarehouse.stats.compare import default_test
from tests.engine.test_comparison import _write_campaign


def test_the_rule():
    assert default_test(2) == "bootstrap"
    assert default_test(3) == "tukey" and default_test(100) == "tukey"
    # a pairwise correction asks for pairwise tests (Tukey HSD refuses one): as before
    assert default_test(3, "holm") == "bootstrap"


def _matrix(n_runs, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((20, 1)) + 0.1 * rng.random((20, n_runs)) + np.arange(n_runs) * 0.02


@pytest.mark.parametrize("n_runs, expected", [(2, "bootstrap"), (4, "tukey")])
def test_compare_all_without_a_test_is_the_named_default(n_runs, expected):
    matrix = _matrix(n_runs)
    chosen = compare_all(matrix, rng=11)
    named = compare_all(matrix, test=expected, rng=11)
    assert chosen.test == expected and chosen.by_default and not named.by_default
    assert chosen.B == named.B == {"bootstrap": 1000, "tukey": 5000}[expected]
    assert [p.p for p in chosen.pairs] == [p.p for p in named.pairs]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("default")
    qrels, runs = _write_campaign(folder)
    path = folder / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "c")
        for run in runs:
            wh.ingest_run(run, "c")
    return path


def _compare(path, *args):
    result = CliRunner().invoke(app, ["compare", "-C", "c", "-m", "map", "-w", str(path),
                                      "--seed", "5", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _rows(path, *args):
    return [json.loads(line) for line in _compare(path, "-f", "jsonl", *args).splitlines()]


def test_cli_more_than_two_runs_defaults_to_tukey_and_says_so(campaign):
    header = _compare(campaign).splitlines()[0]
    assert header.startswith("map: tukey test (the default for more than two runs: "
                             "randomised Tukey HSD") and "B=5000, seed=5" in header
    assert "Sakai, IPSJ JIP 2013" in header
    assert _rows(campaign) == _rows(campaign, "--test", "tukey")
    explicit = _compare(campaign, "--test", "tukey").splitlines()[0]
    assert explicit == "map: tukey test, B=5000, seed=5; 12 topics, 4 runs"


def test_cli_two_runs_keep_the_bootstrap(campaign):
    two = ["--run", "r0", "--run", "r2"]
    header = _compare(campaign, *two).splitlines()[0]
    assert header == "map: bootstrap test, B=1000, seed=5; 12 topics, 2 runs"
    assert _rows(campaign, *two) == _rows(campaign, *two, "--test", "bootstrap")


def test_cli_named_tests_and_corrections_behave_as_before(campaign):
    rows = _rows(campaign, "--test", "bootstrap")
    assert {r["test"] for r in rows} == {"bootstrap"} and len(rows) == 6
    holm = _rows(campaign, "--correction", "holm")
    assert {(r["test"], r["correction"]) for r in holm} == {("bootstrap", "holm")}
    assert holm == _rows(campaign, "--correction", "holm", "--test", "bootstrap")


def test_api_follows_the_same_rule(campaign):
    with Warehouse(campaign) as wh:
        [(four, _)] = wh.compare("c", "map", seed=5)
        [(two, _)] = wh.compare("c", "map", seed=5, runs=["r0", "r2"])
        [(held, _)] = wh.compare("c", "map", seed=5, test="bootstrap")
    assert (four.test, four.B, four.by_default) == ("tukey", 5000, True)
    assert (two.test, two.B) == ("bootstrap", 1000)
    assert (held.test, held.by_default) == ("bootstrap", False)
