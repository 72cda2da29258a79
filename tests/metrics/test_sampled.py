"""Measures for sampled and incomplete judgments (sql/metrics/sampled.sql) and their qrels
formats (irwarehouse/formats/sampled.py):

* golden: NIST's sample_eval.pl (infAP = xinfAP, infNDCG) and statAP_MQ_eval_v3.pl (statAP)
  run on random stratified samples (tests/data/sampled, PROVENANCE.md), compared as printed;
* worked examples computed by hand;
* the slow oracles of tests/oracles/sampled_oracle.py on random samples;
* bad sampled qrels: one line naming file and line, nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions
from irwarehouse.errors import InputError
from tests.helpers.paths import TEST_DATA
from tests.helpers.sql_cases import one
from tests.oracles import sampled_oracle as oracle

DATA = TEST_DATA / "sampled"
PROPERTY = settings(derandomize=True, max_examples=25, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
PRINTED = {"infAP": "{:6.4f}", "infNDCG": "{:6.4f}", "statAP": "{:f}"}
IRW_NAME = {"infAP": "xinfAP", "infNDCG": "infNDCG", "statAP": "statAP"}


def _expected(run: Path) -> dict[tuple[str, str], str]:
    return {(m, t): v for m, t, v in (line.split() for line in
                                      (DATA / f"{run.stem}.expected").read_text().splitlines())}


@pytest.mark.parametrize("run", sorted(DATA.glob("run*.txt")), ids=lambda p: p.stem)
def test_the_reference_scripts_outputs(run):
    """Every per-topic value and sample_eval.pl's `all` line, as the scripts print them
    (sample_eval.pl %6.4f; statAP_MQ_eval %f). trec_eval 10's order reads scores as doubles,
    as both scripts do."""
    expected = _expected(run)
    options = EvalOptions(version=10)
    got = {}
    for qrels, fmt, names in (("sampleval.qrels", "sampleval", ["xinfAP", "infNDCG"]),
                              ("mq.prels", "prels", ["statAP"])):
        result = evaluate_files(DATA / qrels, [run], names, qrels_format=fmt, options=options)
        rows = [(r["measure"], r["topic"], r["value"]) for r in result.per_topic.to_pylist()]
        rows += [(r["measure"], "all", r["value"]) for r in result.summary.to_pylist()]
        for measure, topic, value in rows:
            name = {"xinfAP": "infAP"}.get(measure, measure)
            got[(name, topic)] = PRINTED[name].format(value)
    compared = {k: got.get(k) for k in expected}
    assert compared == expected
    assert len(expected) == 2 * 9 + 8


# -- worked examples ---------------------------------------------------------------------------


def _sampleval(tmp_path, lines: list[str]) -> Path:
    path = tmp_path / "s.qrels"
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


def _run(tmp_path, docs: list[str]) -> Path:
    path = tmp_path / "run"
    path.write_text("".join(f"T Q0 {d} {k} {100 - k} r\n" for k, d in enumerate(docs, start=1)))
    return path


def _values(qrels, run, names, fmt) -> dict[str, float]:
    result = evaluate_files(qrels, [run], names, qrels_format=fmt)
    return {r["measure"]: r["value"] for r in result.per_topic.to_pylist()}


def test_xinfap_and_infndcg_worked_example(tmp_path):
    """Stratum A: a (relevant, level 2), b (non-relevant), both sampled; stratum B: c
    (relevant, level 1) sampled, d and e pooled but not sampled (1 of 3 sampled). R^ = 1 +
    1 * 3/1 = 4. Run: a, d, c.
    a at 1: prec = 1. c at 3: two pooled documents above, a (A: 1 of 1 sampled relevant) and
    d (B: 0 sampled): prec = 1/3 + (2/3) [1/2 (1 + 1e-5)/(1 + 3e-5) + 1/2 (0 + 1e-5)/(0 + 3e-5)].
    xinfAP = (1/4)(SAP_A / 1) + (3/4)(SAP_B / 1).
    infNDCG: the list's pooled documents a (A), d, c (B): D = 3; sampled in the list: A 1, B 1;
    G_A = 2/log2 2 = 2, G_B = 1/log2 4 = 1/2; DCG = 3 [1/3 * 2/1 + 2/3 * (1/2)/1] = 3; the
    ideal: round(1) level-2 and round(3) level-1 documents, 2 + 1/log2 3 + 1/2 + 1/log2 5."""
    qrels = _sampleval(tmp_path, ["T 0 a A 2", "T 0 b A 0", "T 0 c B 1", "T 0 d B -1",
                                  "T 0 e B -1"])
    got = _values(qrels, _run(tmp_path, ["a", "d", "c"]), ["xinfAP", "infNDCG"], "sampleval")
    prec_c = 1 / 3 + (2 / 3) * (0.5 * (1 + 1e-5) / (1 + 3e-5) + 0.5 * (1e-5 / 3e-5))
    assert got["xinfAP"] == pytest.approx(0.25 * 1 + 0.75 * prec_c, abs=1e-12)
    import math
    ideal = 2 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert got["infNDCG"] == pytest.approx(3 / ideal, abs=1e-12)


def test_statap_worked_example(tmp_path):
    """Aslam, Pavlu & Yilmaz (2006): relevant a (pi = 1/2) and c (pi = 1/4), non-relevant b
    (pi = 1): R^ = 2 + 4 = 6. Run a, b, c: a at 1 adds (1 + 0)/1 * 2 = 2; c at 3 adds
    (1 + 2)/3 * 4 = 4: statAP = 6/6 = 1 (each sampled relevant document stands for 1/pi)."""
    prels = tmp_path / "p"
    prels.write_text("T a 1 1 0.5\nT b 0 1 1\nT c 2 1 0.25\nT z 1 1 NA\nT y -999 1 0.5\n")
    got = _values(prels, _run(tmp_path, ["a", "b", "c"]), ["statAP"], "prels")
    assert got["statAP"] == pytest.approx(1.0, abs=1e-15)
    got = _values(prels, _run(tmp_path, ["b", "c", "a"]), ["statAP"], "prels")
    # c at 2: (1 + 0)/2 * 4 = 2; a at 3: (1 + 4)/3 * 2 = 10/3
    assert got["statAP"] == pytest.approx((2 + 10 / 3) / 6, abs=1e-15)


def test_pres_worked_example():
    """Magdy & Jones (2010): n = 4 relevant, N_max = 10, found at ranks 1, 3, 4; the fourth
    is counted at N_max + 4 = 14: PRES = 1 - ((1 + 3 + 4 + 14)/4 - 5/2)/10 = 0.7. All found
    first: 1; none found: 0."""
    qrels = {"a": 3, "b": 1, "c": 2, "d": 0, "e": 1}
    got = one(qrels, ["a", "x", "c", "b", "d"], ["PRES@10", "PRES@2"])
    assert got["PRES@10"] == pytest.approx(0.7, abs=1e-15)
    # N_max = 2: a found; b, c, e at 2 + 2, 2 + 3, 2 + 4
    assert got["PRES@2"] == pytest.approx(1 - ((1 + 4 + 5 + 6) / 4 - 2.5) / 2, abs=1e-15)
    assert one(qrels, ["a", "b", "c", "e"], ["PRES@10"])["PRES@10"] == pytest.approx(1.0)
    assert one(qrels, ["x", "y"], ["PRES@10"])["PRES@10"] == pytest.approx(0.0, abs=1e-15)


def test_adm_worked_example():
    """Della Mea & Mizzaro (2004): URE = level/3 (a 1, c 2/3, b and e 1/3, d 0); SRE the
    scores 9999..9994 of a, x, c, b, d, f normalised: 1, .8, .6, .4, .2, 0. D = the six
    retrieved and e: distances 0, .8, 1/15, 1/15, .2, 0 and e's 1/3; ADM = 1 - 22/15/7."""
    got = one({"a": 3, "b": 1, "c": 2, "d": 0, "e": 1, "f": -1},
              ["a", "x", "c", "b", "d", "f"], ["ADM"])
    assert got["ADM"] == pytest.approx(1 - (0.8 + 2 / 15 + 0.2 + 1 / 3) / 7, abs=1e-12)


# -- the oracles -------------------------------------------------------------------------------


@st.composite
def stratified(draw):
    docs = [f"d{i:02d}" for i in range(24)]
    pooled = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=20))
    pool = {d: (draw(st.sampled_from("ABC")), draw(st.sampled_from([-1, -1, 0, 0, 1, 2])))
            for d in pooled}
    ranking = draw(st.lists(st.sampled_from(docs), unique=True, max_size=24))
    return pool, ranking, draw(st.sampled_from([1000, 5]))


@PROPERTY
@given(stratified())
def test_xinf_matches_the_oracle(tmp_path, case):
    pool, ranking, depth = case
    qrels = _sampleval(tmp_path, [f"T 0 {d} {c} {v}" for d, (c, v) in pool.items()])
    if not ranking:
        return
    got = _values(qrels, _run(tmp_path, ranking), [f"xinfAP@{depth}",
                                                   f"infNDCG@{depth}"], "sampleval")
    ap, ndcg = oracle.xinf(ranking, pool, depth)
    assert got[f"xinfAP@{depth}"] == pytest.approx(ap, abs=1e-12)
    assert got[f"infNDCG@{depth}"] == pytest.approx(ndcg, abs=1e-12)


@st.composite
def sampled(draw):
    docs = [f"d{i:02d}" for i in range(20)]
    judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=15))
    sample = {d: (draw(st.sampled_from([0, 1, 2])),
                  draw(st.sampled_from([1.0, 0.5, 0.3, 0.05]))) for d in judged}
    ranking = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=20))
    return sample, ranking


@PROPERTY
@given(sampled())
def test_statap_matches_the_oracle(tmp_path, case):
    sample, ranking = case
    prels = tmp_path / "p"
    prels.write_text("".join(f"T {d} {v} 1 {p}\n" for d, (v, p) in sample.items()))
    got = _values(prels, _run(tmp_path, ranking), ["statAP"], "prels")
    want = oracle.statap(ranking, sample)
    if want is None:
        assert "statAP" not in got
    else:
        assert got["statAP"] == pytest.approx(want, rel=1e-12)


@PROPERTY
@given(st.lists(st.sampled_from([f"d{i}" for i in range(15)]), unique=True, max_size=15),
       st.dictionaries(st.sampled_from([f"d{i}" for i in range(15)]), st.integers(-1, 3),
                       min_size=1),
       st.sampled_from([1, 3, 10, 1000]))
def test_pres_and_adm_match_the_oracles(ranking, qrels, n_max):
    got = one(qrels, ranking, [f"PRES@{n_max}", "ADM"], options=EvalOptions(complete=True))
    assert got[f"PRES@{n_max}"] == pytest.approx(oracle.pres(ranking, qrels, n_max), abs=1e-12)
    scored = [(d, 10000.0 - k) for k, d in enumerate(ranking, start=1)]
    assert got["ADM"] == pytest.approx(oracle.adm(scored, qrels), abs=1e-12)


# -- the formats ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt, text, message", [
    ("sampleval", "1 0 a s1 1\n1 0 b 1\n", ":2: expected 5 fields (topic iteration doc "
     "stratum rel), found 4 (a line without its stratum)"),
    ("sampleval", "1 0 a s1 x\n", ":1: relevance level 'x' is not a number"),
    ("sampleval", "1 0 a s1 1\n1 0 a s2 0\n", ":2: document 'a' appears twice"),
    ("prels", "1 a 1 1 0.5\n1 b 1 1 0\n", ":2: probability '0' is not in (0, 1]"),
    ("prels", "1 a 1 1 1.5\n", ":1: probability '1.5' is not in (0, 1]"),
    ("prels", "1 a 1 1 -0.2\n", ":1: probability '-0.2' is not in (0, 1]"),
    ("prels", "1 a 1 1 x\n", ":1: probability 'x' is not a number"),
    ("prels", "1 a 1 0.5\n", ":1: expected 5 fields (topic doc rel method probability)"),
])
def test_bad_sampled_qrels_are_one_line_and_store_nothing(tmp_path, fmt, text, message):
    path = tmp_path / "bad"
    path.write_text(text)
    with Warehouse(tmp_path / "w.duckdb") as wh:
        with pytest.raises(InputError) as err:
            wh.ingest_qrels(path, "c", fmt=fmt)
        assert str(path) in str(err.value) and message in str(err.value)
        assert "\n" not in str(err.value)
        for table in ("qrels", "judgment", "judgment_sample", "campaign"):
            assert wh.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_cli_ingests_and_evaluates_sampled_qrels(tmp_path):
    """`irw ingest qrels FILE --format prels` (and sampleval) store the sample; `irw eval QRELS
    RUN -m statAP` reads the format from the file; `irw eval -C C -m NAME` evaluates it."""
    runner = CliRunner()
    db = str(tmp_path / "w.duckdb")
    run = DATA / "run1.txt"
    expected = _expected(run)
    out = runner.invoke(app, ["eval", str(DATA / "mq.prels"), str(run), "-m", "statAP", "-q",
                              "--trec-eval-version", "10"])
    assert out.exit_code == 0, out.output
    rows = {(p[1], p[0]): p[2] for p in (line.split() for line in out.output.splitlines())}
    assert float(rows[("1", "statAP")]) == pytest.approx(float(expected[("statAP", "1")]),
                                                         abs=5e-5)
    for fmt, qrels in (("prels", "mq.prels"), ("sampleval", "sampleval.qrels")):
        out = runner.invoke(app, ["ingest", "qrels", str(DATA / qrels), "-C", "c", "--name",
                                  fmt, "--format", fmt, "-w", db])
        assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["ingest", "run", str(run), "-C", "c", "-w", db])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["eval", "-C", "c", "--qrels", "sampleval", "-m", "xinfAP",
                              "-m", "infNDCG", "-w", db, "--trec-eval-version", "10"])
    assert out.exit_code == 0, out.output
    alls = {p[0]: p[2] for p in (line.split() for line in out.output.splitlines()) if len(p) == 3}
    assert alls["xinfAP"] == expected[("infAP", "all")]
    assert alls["infNDCG"] == expected[("infNDCG", "all")]



def test_sampled_measures_are_bit_reproducible_and_their_macros_agree(tmp_path):
    """The catalog walks (tests/store/test_macros.py, tests/engine/test_bit_reproducible.py)
    see these measures on qrels without strata; here on the golden sampled qrels: a run, its
    renamed copy and its shuffled copy get the same bits under 1, 2 and 4 threads, and the
    macros an analyst calls (irw_xinfap, ...) give evaluate()'s values."""
    import random
    import struct

    from irwarehouse.engine.evaluate import evaluate
    from tests.helpers.macro_calls import macro_call
    from irwarehouse.measures import parse_measures
    lines = (DATA / "run1.txt").read_text().splitlines(keepends=True)
    shuffled = list(lines)
    random.Random(1).shuffle(shuffled)
    copies = {"A": lines, "TWIN": lines, "SHUF": shuffled}
    opts = EvalOptions(version=10)
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(DATA / "sampleval.qrels", "strata", fmt="sampleval")
        wh.ingest_qrels(DATA / "mq.prels", "probs", fmt="prels")
        for name, text in copies.items():
            path = tmp_path / name
            path.write_text("".join(text))
            for campaign in ("strata", "probs"):
                wh.ingest_run(path, campaign, name=name)
        for campaign, names in (("strata", ["xinfAP", "infNDCG"]), ("probs", ["statAP"])):
            requests = parse_measures(names)
            seen = set()
            for threads in (1, 2, 4):
                wh.con.execute(f"SET threads = {threads}")
                result = evaluate(wh.con, wh.run_ids(campaign), wh.qrels_id(campaign), requests,
                                  opts)
                rows = result.per_topic.to_pylist()
                by_run = {run: frozenset((r["topic"], r["measure"],
                                          struct.pack(">d", r["value"]).hex())
                                         for r in rows if r["run"] == run) for run in copies}
                assert by_run["A"] == by_run["TWIN"] == by_run["SHUF"] and by_run["A"]
                seen.add(by_run["A"])
                for req in requests:
                    sql, values = macro_call(req, opts)
                    values.update(campaign=campaign, qrels=None, run=None)
                    macro = {(r, t): v for r, t, v, _ in wh.con.execute(sql, values).fetchall()}
                    engine = {(r["run"], r["topic"]): r["value"] for r in rows
                              if r["measure"] == req.name}
                    assert macro.keys() == engine.keys()
                    assert all(abs(macro[k] - engine[k]) <= 1e-12 for k in engine), req.name
            assert len(seen) == 1
