"""Condensed-list measures M' (Sakai, PROMISE 2014, eq 21; Sakai SIGIR 2007): `M'` or `condensed:M` computes
M on the list without its unjudged documents, beside the raw M in the same evaluation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.errors import MeasureError
from irwarehouse.measures import NtcirSettings, parse_measures
from irwarehouse.writers.ntcireval import nev_text
from tests.helpers.sql_cases import con, load, one, values


def test_metrics_md_example_condensed_ranks():
    """METRICS.md / Sakai, PROMISE 2014: unjudged at 1, judged non-relevant at 2, relevant at 3 -> the
    condensed list has the non-relevant document at 1 and the relevant one at 2."""
    qrels = {"n": 0, "r": 1}
    got = one(qrels, ["u", "n", "r"], ["AP", "AP'", "RR", "condensed:RR", "P@2", "P@2'",
                                       "ntcir:Q", "ntcir:Q'"])
    assert got["AP"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["AP'"] == pytest.approx(1 / 2, abs=1e-15)      # Induced AP: C(2)/2
    assert got["RR"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["RR'"] == pytest.approx(1 / 2, abs=1e-15)
    assert (got["P@2"], got["P@2'"]) == (0.0, 0.5)
    # Q = BR(r1) with one relevant document: (C + cg)/(r + cg*) = 2/4 raw, 2/3 condensed
    assert got["ntcir:Q"] == pytest.approx(2 / 4, abs=1e-15)
    assert got["ntcir:Q'"] == pytest.approx(2 / 3, abs=1e-15)
    # the condensed context the evaluation ran last: the relevant document at rank 2
    assert con().execute("SELECT rank, rel FROM ev_ranked ORDER BY rank").fetchall() == [
        (1, 0), (2, 1)]


def test_both_spellings_name_the_same_measure_and_sets_keep_their_raw_members():
    reqs = parse_measures(["condensed:map", "AP'", "map", "P.5,10'"])
    assert sorted((r.name, r.condensed) for r in reqs) == [
        ("AP'", True), ("P_10'", True), ("P_5'", True), ("map", False), ("map'", True)]
    assert {r.mdef.name for r in reqs if r.name in ("map'", "AP'")} == {"map"}
    names = [r.name for r in parse_measures(["all_trec", "P.10'"])]
    assert "P_5" in names and "P_10" in names and "P_10'" in names
    for bad in ("AP''", "condensed:", "condensed:AP'"):
        with pytest.raises(MeasureError, match="one measure name"):
            parse_measures([bad])


@st.composite
def judged_case(draw):
    pool = [f"d{i}" for i in range(12)]
    qrels = {d: draw(st.integers(0, 3)) for d in draw(st.lists(st.sampled_from(pool),
                                                                 unique=True, min_size=1))}
    if max(qrels.values()) == 0:
        qrels[next(iter(qrels))] = 2
    ranking = draw(st.lists(st.sampled_from(sorted(qrels)), unique=True))
    unjudged = draw(st.lists(st.sampled_from([d for d in pool if d not in qrels] or ["x"]),
                             unique=True))
    mixed = list(ranking)
    for doc in unjudged:
        mixed.insert(draw(st.integers(0, len(mixed))), doc)
    return qrels, ranking, mixed


FAMILIES = [["all_trec"], ["ntcireval-j"], ["TBG", "U", "bpref-10", "RBP(p=0.8)", "nDCG@5"]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judged_case(), st.sampled_from(FAMILIES))
def test_condensed_equals_raw_on_fully_judged_lists_and_raw_on_the_judged_list(case, names):
    """M' = M when every retrieved document is judged; and M' of a list with unjudged
    documents = M of the list without them (Sakai, PROMISE 2014: condensing drops them first)."""
    qrels, ranking, mixed = case
    primed = [n + "'" for n in names]
    lengths = {"words": {d: 10 * i for i, d in enumerate(sorted(qrels))},
               "chars": {d: 900 * i for i, d in enumerate(sorted(qrels))}}
    every = EvalOptions(complete=True)
    judged = values({"T": qrels}, {"run": {"T": ranking}}, names + primed, options=every,
                    **lengths)
    raw = {k: v for k, v in judged[("run", "T")].items() if not k.endswith("'")}
    assert raw
    for name, value in raw.items():
        assert judged[("run", "T")][name + "'"] == pytest.approx(value, abs=1e-12, nan_ok=True)
    if not ranking:        # trec_eval -J: an in-run list that condenses to nothing prints
        return             # -nan for some measures, where an absent topic scores 0
    with_unjudged = values({"T": qrels}, {"run": {"T": mixed}}, primed, options=every,
                           **lengths)
    for name, value in raw.items():
        assert with_unjudged[("run", "T")][name + "'"] == pytest.approx(value, abs=1e-12,
                                                                        nan_ok=True), name


def test_cli_prints_raw_and_condensed_and_stores_both(tmp_path):
    (tmp_path / "qrels").write_text("1 0 n 0\n1 0 r 1\n")
    (tmp_path / "run").write_text("1 Q0 u 1 3.0 r\n1 Q0 n 2 2.0 r\n1 Q0 r 3 1.0 r\n")
    out = CliRunner().invoke(app, ["eval", "-m", "map", "-m", "map'", "-m", "condensed:P.2",
                                   str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    assert [line.split() for line in out.stdout.splitlines()] == [
        ["map", "all", "0.3333"], ["map'", "all", "0.5000"], ["P_2'", "all", "0.5000"]]
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(tmp_path / "qrels", "c")
        wh.ingest_run(tmp_path / "run", "c")
        wh.evaluate(["AP", "AP'"], campaign="c", store=True)
        # both stored as map, the condensed one with judged_only (AP' is map on the condensed
        # list, which -J makes); the spelling kept beside
        stored = wh.con.execute("SELECT measure, judged_only, spelling, value FROM score "
                                "ORDER BY judged_only").fetchall()
    assert stored == [("map", False, "AP", pytest.approx(1 / 3)),
                      ("map", True, "AP'", pytest.approx(1 / 2))]


def test_nev_layout_labels_condensed_measures_apart():
    qid, run_ids = load({"T": {"n": 0, "r": 1}}, {"run": {"T": ["u", "n", "r"]}})
    settings_ = NtcirSettings(prefer=True)
    reqs = parse_measures(["Q", "Q'"], ntcir=settings_)
    result = evaluate(con(), run_ids, qid, reqs, EvalOptions(order="file"))
    lines = nev_text(result).splitlines()
    assert [line.split()[1] for line in lines if "Q-measure" in line] == ["Q-measure=",
                                                                         "Q-measure'="]
