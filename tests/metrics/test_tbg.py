"""TBG (sql/metrics/tbg.sql): Sakai's (PROMISE 2014) worked example, the pure-Python oracle on random
lists (tests/oracles/user_model_oracle.py), parameters, document lengths from files."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions
from irwarehouse.errors import InputError, MeasureError
from irwarehouse.measures import parse_measures
from tests.helpers.sql_cases import con, one
from tests.oracles.user_model_oracle import reach_times, tbg

T_S, H, GAIN = 4.4, 224.0, 0.64 * 0.77


def reach_time_at_2(value_at_2: float) -> float:
    """T(2) from the discounted gain of a relevant document at rank 2: g exp(-T ln2 / h)."""
    return -H * math.log(value_at_2 / GAIN) / math.log(2)


def test_seed000_worked_example_time_to_rank_2():
    """Seed 000 (TBG paragraph): a 1000-word non-relevant document at rank 1 gives
    T(2) = T_S + 0.39 (0.018 * 1000 + 7.8) = T_S + 10.062; replaced by a 10-word relevant one,
    T(2) = T_S + 0.64 (0.018 * 10 + 7.8) = T_S + 5.107."""
    qrels = {"long": 0, "short": 1, "rel2": 1}
    words = {"long": 1000, "short": 10, "rel2": 500}
    before = one(qrels, ["long", "rel2"], ["TBG"], words=words)["TBG"]
    assert reach_time_at_2(before) - T_S == pytest.approx(10.062, abs=1e-9)
    after = one(qrels, ["short", "rel2"], ["TBG"], words=words)["TBG"]
    # the relevant document at rank 1 adds its undiscounted gain (T(1) = 0)
    assert reach_time_at_2(after - GAIN) - T_S == pytest.approx(5.1072, abs=1e-9)
    assert round(reach_time_at_2(after - GAIN) - T_S, 3) == 5.107
    # T(r) of the block macro itself, read from the context the evaluation left behind
    times = con().execute("SELECT rank, t_reach FROM ev_tbg_times(4.4, 0.64, 0.39, 0.018, "
                          "7.8, 0) ORDER BY rank").fetchall()
    assert times[0] == (1, 0.0)
    assert times[1][1] == pytest.approx(T_S + 5.1072, abs=1e-12)
    # and the oracle agrees on the same example
    assert reach_times(["long", "rel2"], qrels, words)[1] == pytest.approx(T_S + 10.062)


def test_tbg_is_not_always_diminishing_return():
    """The seed's point: the relevant document at rank 2 weighs more after a short relevant
    document replaced the long non-relevant one at rank 1."""
    qrels = {"long": 0, "short": 1, "rel2": 1}
    words = {"long": 1000, "short": 10}
    before = one(qrels, ["long", "rel2"], ["TBG"], words=words)["TBG"]
    after = one(qrels, ["short", "rel2"], ["TBG"], words=words)["TBG"]
    assert after - GAIN > before


def test_relevant_document_at_rank_1_scores_the_gain_and_parameters_apply():
    got = one({"a": 2, "b": 0}, ["a", "b"], ["TBG", "TBG(gain=1)", "TBG(half_life=10)"])
    assert got["TBG"] == pytest.approx(GAIN, abs=1e-15)
    assert got["TBG(gain=1)"] == pytest.approx(1.0, abs=1e-15)
    assert got["TBG(half_life=10)"] == pytest.approx(GAIN, abs=1e-15)   # T(1) = 0
    got = one({"a": 0, "b": 1}, ["a", "b"],
              ["TBG", "TBG(half_life=10)", "TBG(missing_length=100)", "TBG(t_s=0,p_click_nonrel=0)"])
    t2 = T_S + 0.39 * 7.8                         # no length: missing_length = 0 words
    assert got["TBG"] == pytest.approx(GAIN * math.exp(-t2 * math.log(2) / H), abs=1e-15)
    assert got["TBG(half_life=10)"] == pytest.approx(GAIN * 2 ** (-t2 / 10), abs=1e-15)
    t2 = T_S + 0.39 * (0.018 * 100 + 7.8)
    assert got["TBG(missing_length=100)"] == pytest.approx(GAIN * 2 ** (-t2 / H), abs=1e-15)
    assert got["TBG(t_s=0,p_click_nonrel=0)"] == pytest.approx(GAIN, abs=1e-15)


def test_threshold_decides_relevance_and_unjudged_count_as_non_relevant():
    qrels = {"a": 1, "b": 2}
    got = one(qrels, ["u", "a", "b"], ["TBG"], words={"u": 200, "a": 50, "b": 70},
              options=EvalOptions(threshold=2))
    want = tbg(["u", "a", "b"], qrels, {"u": 200, "a": 50, "b": 70}, threshold=2)
    assert got["TBG"] == pytest.approx(want, abs=1e-12)
    t3 = 2 * T_S + 0.39 * (0.018 * 200 + 7.8) + 0.39 * (0.018 * 50 + 7.8)
    assert want == pytest.approx(GAIN * 2 ** (-t3 / H), abs=1e-12)


@st.composite
def tbg_case(draw):
    pool = [f"d{i}" for i in range(12)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=10))
    qrels = {d: draw(st.integers(-1, 3)) for d in judged}
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=12))
    words = {d: draw(st.integers(0, 3000)) for d in draw(st.lists(st.sampled_from(pool),
                                                                   unique=True, max_size=12))}
    params = draw(st.fixed_dictionaries({
        "t_s": st.sampled_from([4.4, 0.0, 10.0]),
        "half_life": st.sampled_from([224.0, 50.0, 1000.0]),
        "missing_length": st.sampled_from([0.0, 300.0]),
    }))
    opts = draw(st.fixed_dictionaries({
        "threshold": st.integers(1, 2), "judged_only": st.booleans(),
        "depth": st.one_of(st.none(), st.integers(1, 12)),
    }))
    return qrels, ranking, words, params, opts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tbg_case())
def test_sql_matches_oracle(case):
    """TBG through SQL = the loop oracle, with unjudged documents, lengths present or not,
    -l, -J (TBG' too) and -M."""
    qrels, ranking, words, params, opts = case
    name = "TBG(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
    got = one(qrels, ranking, [name, name + "'"], words=words,
              options=EvalOptions(**opts, complete=True))
    listed = ranking[:opts["depth"]] if opts["depth"] is not None else ranking
    condensed = [d for d in listed if qrels.get(d, -1) >= 0]
    used = condensed if opts["judged_only"] else listed
    printed = parse_measures([name])[0].name
    assert got[printed] == pytest.approx(
        tbg(used, qrels, words, threshold=opts["threshold"], **params), abs=1e-12)
    assert got[printed + "'"] == pytest.approx(
        tbg(condensed, qrels, words, threshold=opts["threshold"], **params), abs=1e-12)


def test_unknown_or_bad_parameters_are_one_line_errors():
    with pytest.raises(MeasureError, match="unknown parameter"):
        parse_measures(["TBG(h=100)"])
    with pytest.raises(MeasureError, match="half_life must be > 0"):
        parse_measures(["TBG(half_life=0)"])
    with pytest.raises(MeasureError, match="not a number"):
        parse_measures(["TBG(gain=x)"])


# ------------------------------------------------------------------------------ doc lengths


def _files(tmp_path, lengths: str):
    (tmp_path / "qrels").write_text("1 0 long 0\n1 0 rel 1\n")
    (tmp_path / "run").write_text("1 Q0 long 1 2.0 r\n1 Q0 rel 2 1.0 r\n")
    (tmp_path / "lengths").write_text(lengths)
    return tmp_path / "qrels", tmp_path / "run", tmp_path / "lengths"


def test_eval_files_with_a_doclength_file(tmp_path):
    qrels, run, lengths = _files(tmp_path, "# docno words\nlong\t1000\nrel\t10\n")
    result = evaluate_files(qrels, [run], ["TBG"], doclengths=lengths)
    value = result.summary.to_pylist()[0]["value"]
    assert reach_time_at_2(value) - T_S == pytest.approx(10.062, abs=1e-9)
    out = CliRunner().invoke(app, ["eval", "-m", "TBG", "--doclengths", str(lengths),
                                   str(qrels), str(run)])
    assert out.exit_code == 0, out.output
    assert out.stdout.split() == ["TBG", "all", f"{value:6.4f}"]


def test_ingest_doclengths_into_a_campaign_and_evaluate(tmp_path):
    qrels, run, lengths = _files(tmp_path, "long 1000 6000\nrel 10 60\n")
    wpath = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["ingest", "qrels", str(qrels), "-C", "c"], ["ingest", "run", str(run), "-C", "c"],
                 ["ingest", "doclengths", str(lengths), "-C", "c"]):
        out = runner.invoke(app, args + ["-w", wpath])
        assert out.exit_code == 0, out.output
    assert "ingested 2 document lengths" in out.stdout
    with Warehouse(wpath) as wh:
        assert wh.con.execute("SELECT doc, length_words, length_chars FROM doc ORDER BY doc"
                              ).fetchall() == [("long", 1000, 6000), ("rel", 10, 60)]
        value = wh.evaluate(["TBG"], campaign="c").summary.to_pylist()[0]["value"]
        assert reach_time_at_2(value) - T_S == pytest.approx(10.062, abs=1e-9)
        # a chars-only file later keeps the words
        (tmp_path / "chars").write_text("long\t7000\n")
        wh.ingest_doclengths(tmp_path / "chars", "c", unit="chars")
        assert wh.con.execute("SELECT length_words, length_chars FROM doc WHERE doc = 'long'"
                              ).fetchone() == (1000, 7000)


@pytest.mark.parametrize("text, message", [
    ("a 10\na 12\n", r":2: document 'a' appears twice \(first at line 1\)"),
    ("a ten\n", r":1: word count 'ten' is not a non-negative integer"),
    ("a -3\n", r":1: word count '-3' is not a non-negative integer"),
    ("a 1 2 3\n", r":1: expected 2 or 3 fields"),
    ("# only a comment\n", "no document lengths"),
])
def test_bad_doclength_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "lengths"
    path.write_text(text)
    with pytest.raises(InputError, match=message), Warehouse(None) as wh:
        wh.ingest_doclengths(path, "c")
    out = CliRunner().invoke(app, ["ingest", "doclengths", str(path), "-C", "c",
                                   "-w", str(tmp_path / "w.duckdb")])
    assert out.exit_code == 1
    assert out.stderr.startswith(f"irw: error: {path}") and out.stderr.count("\n") == 1


def test_doclengths_option_is_for_files_only(tmp_path):
    out = CliRunner().invoke(app, ["eval", "-C", "c", "--doclengths", str(tmp_path / "x"),
                                   "-m", "TBG", "-w", str(tmp_path / "w.duckdb")])
    assert out.exit_code == 1
    assert "irw ingest doclengths" in out.stderr
