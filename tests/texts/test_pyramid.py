"""The pyramid score (sql/texts/pyramid.sql) over SCU annotations (`irw ingest pyramid`): the
formula of Nenkova & Passonneau (NAACL 2004, sec 3) worked by hand, an independent slow oracle
(the best X-SCU summary found by enumeration) on random pyramids, and one-line errors for bad
annotation files with nothing stored."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.errors import InputError
from irwarehouse.store.connection import connect
from irwarehouse.texts.nuggets import evaluate_nuggets
from irwarehouse.texts.pyramid import ingest_pyramid
from tests.texts.test_nuggets_sql import _write


@pytest.fixture
def con():
    """An in-memory warehouse."""
    c = connect(None, macros=False)
    yield c
    c.close()


# Four model summaries m1-m4 of topic d1. Weights: A 4 (all four), B 3, C 2, D 2, E 1, F 1.
# Model sizes (SCUs): m1 {A,B,C,E} 4, m2 {A,B,D} 3, m3 {A,B,C,F} 4, m4 {A,D} 2: mean 13/4.
PYRAMID = [("d1", scu, m) for scu, models in
           [("A", "m1 m2 m3 m4"), ("B", "m1 m2 m3"), ("C", "m1 m3"), ("D", "m2 m4"),
            ("E", "m1"), ("F", "m3")] for m in models.split()]


def _scores(con, measure):
    return {(r, t): v for _, r, t, v, _ in evaluate_nuggets(con, "c", "duc", [measure], {})}


def test_worked_example(con, tmp_path):
    # peer p1 expresses A, C and a unit matching no SCU: X = 3, D = 4 + 2 + 0 = 6,
    # Max = the 3 heaviest SCUs = 4 + 3 + 2 = 9: original score 6/9.
    # peer p2 expresses B, E, F: X = 3, D = 3 + 1 + 1 = 5: 5/9.
    # Modified (X = 13/4 = 3.25): Max = 4 + 3 + 2 + 0.25 * 2 = 9.5: p1 6/9.5, p2 5/9.5.
    scus = _write(tmp_path / "scus", PYRAMID)
    peers = _write(tmp_path / "peers", [("d1", "p1", "A"), ("d1", "p1", "C"), ("d1", "p1", "-"),
                                        ("d1", "p2", "B"), ("d1", "p2", "E"),
                                        ("d1", "p2", "F")])
    ingest_pyramid(con, "c", "duc", scus, peers)
    original = _scores(con, "pyramid")
    assert original[("p1", "d1")] == pytest.approx(6 / 9)
    assert original[("p2", "d1")] == pytest.approx(5 / 9)
    modified = _scores(con, "pyramid_modified")
    assert modified[("p1", "d1")] == pytest.approx(6 / 9.5)
    assert modified[("p2", "d1")] == pytest.approx(5 / 9.5)


def test_an_optimal_summary_scores_one_and_more_units_than_scus(con, tmp_path):
    # {A, B} is an optimal 2-SCU summary; a peer with 8 units (all six SCUs and two
    # unmatched) has X = 8 > 6 SCUs: Max = every weight (13) and D = 13: score 1 (decided:
    # SCUs beyond the pyramid weigh 0)
    scus = _write(tmp_path / "scus", PYRAMID)
    peers = _write(tmp_path / "peers", [("d1", "best", "A"), ("d1", "best", "B")]
                   + [("d1", "all", s) for s in "ABCDEF"] + [("d1", "all", "-")] * 2)
    ingest_pyramid(con, "c", "duc", scus, peers)
    got = _scores(con, "pyramid")
    assert got[("best", "d1")] == pytest.approx(1.0)
    assert got[("all", "d1")] == pytest.approx(1.0)


def _oracle(weights: dict[str, int], peer: list[str | None], x: float) -> float:
    """D / Max with Max found by enumerating every set of floor(x) SCUs (plus the fractional
    part of the heaviest SCU left), the definition rather than the tier formula."""
    d = sum(weights[s] for s in set(peer) if s is not None)
    names = list(weights)
    whole = min(int(x), len(names))
    best = 0.0
    for chosen in itertools.combinations(names, whole):
        rest = [weights[s] for s in names if s not in chosen]
        extra = (x - int(x)) * max(rest) if rest and x <= len(names) else 0.0
        best = max(best, sum(weights[s] for s in chosen) + extra)
    return d / best if best > 0 else 0.0


@settings(max_examples=30, deadline=None, derandomize=True)
@given(data=st.data())
def test_matches_slow_oracle(data):
    n_models = data.draw(st.integers(1, 4))
    scu_names = [f"s{i}" for i in range(data.draw(st.integers(1, 6)))]
    pyramid = []
    for s in scu_names:
        models = data.draw(st.sets(st.integers(1, n_models), min_size=1))
        pyramid += [("t", s, f"m{m}") for m in sorted(models)]
    peer_scus = data.draw(st.lists(st.sampled_from(scu_names), unique=True, max_size=6))
    unmatched = data.draw(st.integers(0, 3))
    if not peer_scus and not unmatched:
        unmatched = 1
    peer = peer_scus + [None] * unmatched
    import tempfile
    from pathlib import Path
    c = connect(None, macros=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            scus = _write(Path(tmp) / "scus", pyramid)
            peers = _write(Path(tmp) / "peers", [("t", "p", s or "-") for s in peer])
            ingest_pyramid(c, "c", "duc", scus, peers)
        weights = {}
        for _, s, _m in pyramid:
            weights[s] = weights.get(s, 0) + 1
        models = {m for _, _, m in pyramid}
        got = _scores(c, "pyramid")[("p", "t")]
        assert got == pytest.approx(_oracle(weights, peer, len(peer)), abs=1e-12)
        got = _scores(c, "pyramid_modified")[("p", "t")]
        assert got == pytest.approx(_oracle(weights, peer, len(pyramid) / len(models)),
                                    abs=1e-12)
    finally:
        c.close()


@pytest.mark.parametrize("scus, peers, message", [
    ([("d1", "A")], None, "scus:1: expected 3 or 4 tab-separated fields, found 2"),
    ([("d1", "A", "m1"), ("d1", "A", "m1")], None,
     "scus:2: SCU A of topic d1 is given twice for model m1"),
    ([("d1", "-", "m1")], None, "scus:1: '-' is no SCU id"),
    (PYRAMID, [("d1", "p", "Z")], "peers:1: SCU Z is not in the pyramid of topic d1"),
    (PYRAMID, [("d1", "p", "A"), ("d1", "p", "A")], "peers:2: SCU A is given twice"),
    (PYRAMID, [("d9", "p", "A")], "peers:1: topic d9 has no SCUs in the pyramid"),
])
def test_bad_files_are_one_line_and_store_nothing(tmp_path, scus, peers, message):
    wh = str(tmp_path / "w.duckdb")
    args = ["ingest", "pyramid", "-C", "c", "--name", "duc", "-w", wh,
            "--scus", str(_write(tmp_path / "scus", scus))]
    if peers is not None:
        args += ["--peers", str(_write(tmp_path / "peers", peers))]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    import duckdb
    with duckdb.connect(wh, read_only=True) as db:
        assert db.execute("SELECT count(*) FROM pyramid_scu").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM qrels").fetchone()[0] == 0


def test_cli_ingest_evaluate_store_and_plain_sql(tmp_path):
    wh = str(tmp_path / "w.duckdb")
    scus = _write(tmp_path / "scus", PYRAMID)
    peers = _write(tmp_path / "peers", [("d1", "p1", "A"), ("d1", "p1", "C"), ("d1", "p1", "-")])
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", "pyramid", "-C", "c", "--name", "duc", "--scus",
                                 str(scus), "--peers", str(peers), "-w", wh])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["nuggets", "-C", "c", "--nuggets", "duc", "-m", "pyramid",
                                 "--store", "-w", wh])
    assert result.exit_code == 0, result.output
    assert "pyramid\tp1\tall\t0.6667" in result.output
    import duckdb
    with duckdb.connect(wh, read_only=True) as db:
        assert db.execute("SELECT value FROM score WHERE measure = 'pyramid'").fetchone()[0] \
            == pytest.approx(6 / 9)
        assert db.execute("SELECT value FROM irw_pyramid(campaign := 'c', pyramid := 'duc')"
                          ).fetchone()[0] == pytest.approx(6 / 9)


def test_unknown_pyramid_is_an_error(con, tmp_path):
    ingest_pyramid(con, "c", "duc", _write(tmp_path / "scus", PYRAMID))
    from irwarehouse.errors import WarehouseError
    with pytest.raises(WarehouseError, match="no pyramid nope in campaign c"):
        evaluate_nuggets(con, "c", "nope", ["pyramid"], {})
    with pytest.raises(InputError):
        ingest_pyramid(con, "c", "duc2", _write(tmp_path / "empty", []))
