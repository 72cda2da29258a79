"""U-measure over a linear-traversal trailtext (sql/metrics/trailtext.sql): Sakai, PROMISE 2014, Fig 5 and
its diminishing-return argument, the decay and parameters, and the pure-Python oracle
(tests/oracles/user_model_oracle.py) on random lists."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.api import evaluate_files
from irwarehouse.engine.evaluate import EvalOptions
from irwarehouse.errors import MeasureError
from irwarehouse.measures import parse_measures
from tests.helpers.sql_cases import con, one
from tests.oracles.user_model_oracle import trailtext, u_measure

L = 132000.0


def test_seed000_fig5_linear_traversal_positions():
    """Fig 5: relevant documents at ranks 2 and 4; the user reads the four snippets and F = 20%
    of both relevant documents, so the gains sit at pos(2) = 2*200 + 0.2 len(2) and
    pos(4) = 4*200 + 0.2 (len(2) + len(4)); binary levels: g = (2^1 - 1)/2^1 = 0.5."""
    qrels = {"d1": 0, "d2": 1, "d3": 0, "d4": 1}
    chars = {"d1": 9000, "d2": 5000, "d3": 7000, "d4": 20000}
    got = one(qrels, ["d1", "d2", "d3", "d4"], ["U"], chars=chars)["U"]
    pos2, pos4 = 400 + 1000, 800 + 1000 + 4000
    assert got == pytest.approx(0.5 * (1 - pos2 / L) + 0.5 * (1 - pos4 / L), abs=1e-15)
    rows = con().execute("SELECT rank, pos FROM ev_u_positions(200, 0.2, 0) ORDER BY rank"
                         ).fetchall()
    assert rows == [(2, pos2), (4, pos4)]
    assert trailtext(["d1", "d2", "d3", "d4"], lambda d: qrels[d] > 0, chars)[1::2] == [pos2,
                                                                                       pos4]


def test_seed000_diminishing_return():
    """Seed 000: replace the non-relevant document at rank 3 of Fig 5 by a relevant one; it is
    read too, so the document at rank 4 moves back in the trailtext and its gain diminishes."""
    chars = {"d1": 9000, "d2": 5000, "d3": 7000, "d4": 20000}
    ranking = ["d1", "d2", "d3", "d4"]
    before = one({"d1": 0, "d2": 1, "d3": 0, "d4": 1}, ranking, ["U"], chars=chars)["U"]
    after = one({"d1": 0, "d2": 1, "d3": 1, "d4": 1}, ranking, ["U"], chars=chars)["U"]
    pos4_before, pos4_after = 800 + 1000 + 4000, 800 + 1000 + 1400 + 4000
    gain4_before = before - 0.5 * (1 - 1400 / L)
    gain4_after = after - 0.5 * (1 - 1400 / L) - 0.5 * (1 - (600 + 1000 + 1400) / L)
    assert gain4_before == pytest.approx(0.5 * (1 - pos4_before / L), abs=1e-12)
    assert gain4_after == pytest.approx(0.5 * (1 - pos4_after / L), abs=1e-12)
    assert gain4_after < gain4_before


def test_graded_gains_decay_limit_and_parameters():
    """g = (2^level - 1)/2^H with H the topic's highest level (or max_level); D(pos) = 0 from
    pos = L on; N divides; snippet and F change the offsets."""
    qrels = {"a": 1, "b": 3, "c": 2}
    chars = {"a": 1000, "b": 3000}
    names = ["U", "U(max_level=4)", "U(norm=2)", "U(l=1000)", "U(snippet=100,f=0.5)",
             "U(missing_length=500)"]
    got = one(qrels, ["b", "a", "c"], names, chars=chars)
    pos = [200 + 600, 400 + 800, 600 + 800]              # c has no length: missing_length 0
    gains = [7 / 8, 1 / 8, 3 / 8]
    want = sum(g * (1 - p / L) for g, p in zip(gains, pos))
    assert got["U"] == pytest.approx(want, abs=1e-15)
    assert got["U(max_level=4)"] == pytest.approx(
        sum(g * 8 / 16 * (1 - p / L) for g, p in zip(gains, pos)), abs=1e-15)
    assert got["U(norm=2)"] == pytest.approx(want / 2, abs=1e-15)
    assert got["U(l=1000)"] == pytest.approx(7 / 8 * (1 - 800 / 1000), abs=1e-15)
    assert got["U(snippet=100,f=0.5)"] == pytest.approx(
        7 / 8 * (1 - 1600 / L) + 1 / 8 * (1 - 2200 / L) + 3 / 8 * (1 - 2300 / L), abs=1e-15)
    assert got["U(missing_length=500)"] == pytest.approx(
        want - 3 / 8 * 100 / L, abs=1e-15)


def test_no_relevant_document_retrieved_and_absent_topics_score_zero():
    got = one({"a": 1}, ["x", "y"], ["U"])
    assert got == {"U": 0.0}


@st.composite
def u_case(draw):
    pool = [f"d{i}" for i in range(12)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=10))
    qrels = {d: draw(st.integers(-1, 3)) for d in judged}
    if max(qrels.values()) < 1:
        qrels[judged[0]] = 1
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=12))
    chars = {d: draw(st.integers(0, 200000)) for d in draw(
        st.lists(st.sampled_from(pool), unique=True, max_size=12))}
    params = draw(st.fixed_dictionaries({
        "snippet": st.sampled_from([200.0, 50.0]), "f": st.sampled_from([0.2, 1.0]),
        "l": st.sampled_from([132000.0, 5000.0]), "max_level": st.sampled_from([0, 5]),
        "missing_length": st.sampled_from([0.0, 4000.0]),
    }))
    opts = draw(st.fixed_dictionaries({
        "judged_only": st.booleans(), "depth": st.one_of(st.none(), st.integers(1, 12))}))
    return qrels, ranking, chars, params, opts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(u_case())
def test_sql_matches_oracle(case):
    qrels, ranking, chars, params, opts = case
    name = "U(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
    printed = parse_measures([name])[0].name
    got = one(qrels, ranking, [name, name + "'"], chars=chars,
              options=EvalOptions(**opts, complete=True))
    listed = ranking[:opts["depth"]] if opts["depth"] is not None else ranking
    condensed = [d for d in listed if qrels.get(d, -1) >= 0]
    used = condensed if opts["judged_only"] else listed
    assert got[printed] == pytest.approx(u_measure(used, qrels, chars, **params), abs=1e-12)
    assert got[printed + "'"] == pytest.approx(u_measure(condensed, qrels, chars, **params),
                                               abs=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(u_case(), st.data())
def test_a_relevant_document_moved_up_past_a_non_relevant_one_never_lowers_u(case, data):
    """Swapping a relevant document with the non-relevant (or unjudged) one just above it moves
    its gain earlier and leaves every other relevant document's offset unchanged."""
    qrels, ranking, chars, params, _ = case
    swaps = [i for i in range(1, len(ranking))
             if qrels.get(ranking[i], 0) >= 1 and qrels.get(ranking[i - 1], 0) < 1]
    if not swaps:
        return
    i = data.draw(st.sampled_from(swaps))
    better = ranking[:i - 1] + [ranking[i], ranking[i - 1]] + ranking[i + 1:]
    name = "U(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
    printed = parse_measures([name])[0].name
    before = one(qrels, ranking, [name], chars=chars)[printed]
    after = one(qrels, better, [name], chars=chars)[printed]
    assert after >= before - 1e-12


def test_u_by_file_with_character_lengths(tmp_path):
    (tmp_path / "qrels").write_text("1 0 d1 0\n1 0 d2 1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    (tmp_path / "chars").write_text("d2\t5000\n")
    result = evaluate_files(tmp_path / "qrels", [tmp_path / "run"], ["U"],
                            doclengths_chars=tmp_path / "chars")
    assert result.summary.to_pylist()[0]["value"] == pytest.approx(0.5 * (1 - 1400 / L))


def test_bad_parameters():
    with pytest.raises(MeasureError, match="l must be > 0"):
        parse_measures(["U(l=0)"])
    with pytest.raises(MeasureError, match="takes no @cutoff"):
        parse_measures(["U@10"])
