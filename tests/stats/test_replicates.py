"""Systems with several runs (`irw compare --group`; irwarehouse/stats/replicates.py and
irwarehouse/analyst/replicates.py), against values worked by hand."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.stats.replicates import group_columns, spreads


def irw(*args):
    return CliRunner().invoke(app, [*args])


def test_group_columns_and_spreads_by_hand():
    # topics x runs: a1 a2 a3 (system a), b1 (system b)
    values = np.array([[0.2, 0.4, 0.6, 0.1],
                       [0.0, 0.2, 0.1, 0.5]])
    runs = ["a1", "a2", "a3", "b1"]
    grouped, systems, members = group_columns(values, runs, {"a1": "a", "a2": "a", "a3": "a",
                                                              "b1": "b"})
    assert systems == ["a", "b"] and members == [("a1", "a2", "a3"), ("b1",)]
    # topic 1: (0.2 + 0.4 + 0.6) / 3 = 0.4; topic 2: (0 + 0.2 + 0.1) / 3 = 0.1
    assert grouped.ravel().tolist() == pytest.approx([0.4, 0.1, 0.1, 0.5], abs=1e-15)
    (a, b) = spreads(values, runs, systems, members, grouped, lambda m: m.mean(axis=0))
    # run values of a: 0.1, 0.3, 0.35; mean 0.25; sd (n-1) = sqrt((0.0225 + 0.0025 + 0.01) / 2)
    assert a.value == pytest.approx(0.25) and len(a.runs) == 3
    assert a.sd == pytest.approx(math.sqrt(0.035 / 2), abs=1e-15)
    assert (a.low, a.high) == pytest.approx((0.1, 0.35))
    assert b.value == pytest.approx(0.3) and math.isnan(b.sd) and b.low == b.high == 0.3
    with pytest.raises(ValueError, match="no system"):
        group_columns(values, runs, {"a1": "a"})


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("replicates"))


@pytest.fixture
def campaign_copy(template, tmp_path):
    from tests.helpers.paths import private_copy
    return str(private_copy(Path(template), tmp_path))


def _build(folder):
    """Qrels of 3 topics (a b c d judged) and five runs whose P@1 per topic is, by hand:
    x-seed1 1 0 1, x-seed2 0 1 1, y-seed1 0 0 0, y-seed2 1 1 0, z 1 1 1."""
    (folder / "q").write_text("".join(f"{t} 0 {d} {r}\n" for t, row in
                                      (("1", "1101"), ("2", "0110"), ("3", "1001"))
                                      for d, r in zip("abcd", row)))
    lists = {"x-seed1": ("abcd", "abcd", "abcd"), "x-seed2": ("cabd", "cabd", "dabc"),
             "y-seed1": ("cdab", "adbc", "bcad"), "y-seed2": ("bcad", "bcda", "cbda"),
             "z": ("dcba", "bcad", "adcb")}
    w = str(folder / "w.duckdb")
    assert irw("ingest", "qrels", str(folder / "q"), "-C", "c", "-w", w).exit_code == 0
    for name, per_topic in lists.items():
        (folder / name).write_text("".join(
            f"{t} Q0 {d} {i + 1} {10 - i} {name}\n"
            for t, docs in zip("123", per_topic) for i, d in enumerate(docs)))
        assert irw("ingest", "run", str(folder / name), "-C", "c", "-w", w).exit_code == 0
    return w


def test_compare_group_by_pattern(campaign_copy):
    w = campaign_copy
    out = irw("compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w, "--group",
              "^(.*)-seed[0-9]+$", "-f", "json")
    assert out.exit_code == 0, out.output
    rows = {(r["run_a"], r["run_b"]): r for r in json.loads(out.stdout)}
    assert set(rows) == {("x", "y"), ("x", "z"), ("y", "z")}
    # x per topic: 0.5 0.5 1 (mean 2/3); y: 0.5 0.5 0 (1/3); z: 1 1 1
    assert rows["x", "y"]["mean_a"] == pytest.approx(2 / 3)
    assert rows["x", "y"]["mean_b"] == pytest.approx(1 / 3)
    # x - y per topic: 0 0 1: mean 1/3, sd 1/sqrt(3), t = 1 on 2 df: p = 1 - 2/pi atan(1/sqrt2)
    # (Student's t with 2 df: P(|T| >= t) = 1 - t / sqrt(t^2 + 2))
    assert rows["x", "y"]["p"] == pytest.approx(1 - 1 / math.sqrt(3), abs=1e-12)
    # the spread goes to stderr with -f json; runs the pattern does not match stand alone
    assert "z" in out.stderr and "stand alone" in out.stderr
    assert "y          2  0.3333      0.4714   0.0000   0.6667" in out.stderr
    table = irw("compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w, "--group",
                "^(.*)-seed[0-9]+$")
    assert table.exit_code == 0, table.output
    first = table.stdout.splitlines()
    assert first[0].startswith("P@1: systems by pattern") and "x          2  0.6667" in first[3]
    # without --group: the five runs, as before
    plain = json.loads(irw("compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w,
                           "-f", "json").stdout)
    assert len(plain) == 10


def test_compare_group_by_team_and_file(campaign_copy, tmp_path):
    w = campaign_copy
    teams = tmp_path / "teams.tsv"
    teams.write_text("x-seed1\tX\nx-seed2\tX\ny-seed1\tY\ny-seed2\tY\nz\tZ\n")
    by_file = json.loads(irw("compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w,
                             "--group", str(teams), "-f", "json").stdout)
    assert {(r["run_a"], r["run_b"]) for r in by_file} == {("X", "Y"), ("X", "Z"), ("Y", "Z")}
    assert irw("ingest", "teams", str(teams), "-C", "c", "-w", w).exit_code == 0
    by_team = json.loads(irw("compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w,
                             "--group", "team", "-f", "json").stdout)
    assert by_team == by_file


def test_compare_group_errors(campaign_copy, tmp_path):
    w = campaign_copy
    one = tmp_path / "one.tsv"
    one.write_text("".join(f"{r}\tS\n" for r in ("x-seed1", "x-seed2", "y-seed1", "y-seed2",
                                                   "z")))
    base = ["compare", "-C", "c", "-m", "P@1", "--test", "t", "-w", w]
    for args, says in ((["--group", "^(", ], "regular expression"),
                       (["--group", "^nomatch$"], "no run of the comparison"),
                       (["--group", "seed", "--store"], "--store"),
                       (["--group", str(one)], "nothing to compare")):
        bad = irw(*base, *args)
        assert bad.exit_code == 1, (args, bad.output)
        lines = [x for x in bad.stderr.strip().splitlines() if "error" in x]
        assert len(lines) == 1 and says in lines[0], bad.stderr


def test_group_across_campaigns_keeps_each_campaign_apart(tmp_path):
    from irwarehouse.analyst.replicates import systems_of
    runs = ["a/x-seed1", "a/x-seed2", "b/x-seed1", "b/y"]
    found, _ = systems_of(None, ["a", "b"], runs, "^(.*)-seed[0-9]+$")
    assert found == {"a/x-seed1": "a/x", "a/x-seed2": "a/x", "b/x-seed1": "b/x", "b/y": "b/y"}
