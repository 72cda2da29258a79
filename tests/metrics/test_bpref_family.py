"""bpref as trec_eval computes it, the forms bpref_R / bpref_N of Sakai (PROMISE 2014, eq 22-23;
NTCIREVAL's `compute -j`, sql/metrics/ntcir_bpref.sql) and bpref-10 (Baeza-Yates & Ribeiro-Neto,
Modern Information Retrieval 2011, sql/metrics/bpref.sql): Sakai's top-heaviness check,
hand-computed bpref-10 examples and the oracle; the `compute -j` family on the condensed list
whatever -J (issue 25), and its undefined cases (R = 0, N = 0) through every output format,
run_score and the metric macros."""

from __future__ import annotations

import csv
import io
import json

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions
from tests.helpers.sql_cases import one
from tests.metrics.test_ntcireval import request, sql_values
from tests.oracles.ntcireval_oracle import evaluate_topic
from tests.oracles.user_model_oracle import bpref_10

R = N = 500
RELEVANT = {f"r{i:03d}": 1 for i in range(R)}
NONREL = {f"n{i:03d}": 0 for i in range(N)}
QRELS = {**RELEVANT, **NONREL}
BPREFS = ["bpref", "ntcir:bpref", "ntcir:bpref_R", "ntcir:bpref_N"]


def contribution(nonrel_above: int) -> dict:
    """The bpref contribution of the one relevant document retrieved, below `nonrel_above`
    judged non-relevant documents (condensed list, -J): value * R."""
    ranking = list(NONREL)[:nonrel_above] + ["r000"]
    got = one(QRELS, ranking, BPREFS, options=EvalOptions(judged_only=True))
    return {name: value * R for name, value in got.items()}


@pytest.mark.parametrize("rank_before, rank_after, before, after", [
    (2, 1, 0.998, 1.0),
    (100, 99, 0.802, 0.804),
])
def test_seed000_bpref_is_not_top_heavy(rank_before, rank_after, before, after):
    """Seed 000 (after eq 23): with R = N = 500, bpref = bpref_R = bpref_N, and moving a relevant
    document up from rank 2 to 1 of the condensed list changes its contribution
    1 - (r' - C(r'))/N from 0.998 to 1; from 100 to 99, from 0.802 to 0.804: 0.002 both times."""
    got_before = contribution(rank_before - 1)
    got_after = contribution(rank_after - 1)
    for name in BPREFS:
        assert got_before[name] == pytest.approx(before, abs=1e-12), name
        assert got_after[name] == pytest.approx(after, abs=1e-12), name
        assert got_after[name] - got_before[name] == pytest.approx(0.002, abs=1e-12)


def test_bpref_10_by_hand():
    """Seed 003's bpref-10: R = 2; denominators min(R + 10, judged non-relevant retrieved)."""
    qrels = {"a": 1, "b": 1, **{f"n{i:02d}": 0 for i in range(20)}}
    # 3 judged non-relevant retrieved: a has 1 above (1 - 1/3), b has 3 (1 - 3/3 = 0)
    got = one(qrels, ["n00", "a", "n01", "n02", "b"], ["bpref-10", "bpref"])
    assert got["bpref-10"] == pytest.approx((1 - 1 / 3) / 2, abs=1e-15)
    assert got["bpref"] == pytest.approx((1 - 1 / 2) / 2, abs=1e-15)   # trec_eval: min(R, N)
    # 15 retrieved above b: C10(b) = min(15, 12) = 12 over min(12, 15) = 12 -> 0; a: 1 - 1/12
    ranking = ["n00", "a"] + [f"n{i:02d}" for i in range(1, 15)] + ["b"]
    got = one(qrels, ranking, ["bpref-10"])
    assert got["bpref-10"] == pytest.approx((1 - 1 / 12) / 2, abs=1e-15)
    # nothing non-relevant above a relevant document: it scores 1; unretrieved ones 0
    assert one(qrels, ["a", "u1", "u2"], ["bpref-10"])["bpref-10"] == 0.5


@st.composite
def bpref_case(draw):
    pool = [f"d{i}" for i in range(30)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=28))
    qrels = {d: draw(st.integers(-1, 2)) for d in judged}
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=30))
    opts = draw(st.fixed_dictionaries({
        "threshold": st.integers(1, 2), "depth": st.one_of(st.none(), st.integers(1, 30))}))
    return qrels, ranking, opts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bpref_case())
def test_bpref_10_matches_the_oracle_and_ignores_unjudged_documents(case):
    qrels, ranking, opts = case
    got = one(qrels, ranking, ["bpref-10", "bpref-10'"],
              options=EvalOptions(**opts, complete=True))
    listed = ranking[:opts["depth"]] if opts["depth"] is not None else ranking
    want = bpref_10(listed, qrels, threshold=opts["threshold"])
    assert got["bpref-10"] == pytest.approx(want, abs=1e-12)
    assert got["bpref-10'"] == pytest.approx(want, abs=1e-12)


# ---------------------------------------------------------- the compute -j family, condensed

FAMILY = ["bpref", "bpref_R", "bpref_N", "bpref_relative", "rpref_N", "rpref_relative",
          "rpref_relative2"]
NEEDS_NONREL = {"bpref", "bpref_N", "rpref_N"}       # undefined when N = 0
G123 = {1: 1.0, 2: 2.0, 3: 3.0}


def test_issue_example_is_computed_on_the_condensed_list_whatever_j():
    """Issue 25: five unjudged documents, then the only relevant one; N = 2. On the raw list
    the five would count as judged non-relevant documents above it (ntcir_eval `compute -j` fed
    an uncondensed list: 1 - 5/2 = -1.5, what irw printed without -J before); Sakai 2014 eq
    22-23 read r' in the condensed list, where the relevant document is at r' = 1: 1.0."""
    qrels = {"rel": 1, "n1": 0, "n2": 0}
    ranking = ["u1", "u2", "u3", "u4", "u5", "rel"]
    raw = evaluate_topic(ranking, qrels, [1], condensed=False, bpref=True)
    assert raw["bpref_N"] == -1.5 and raw["bpref_R"] == 0.0      # the raw-list values
    names = ["ntcir:bpref_R", "ntcir:bpref_N", "ntcir:bpref"]
    for judged_only in (False, True):
        got = one(qrels, ranking, names, options=EvalOptions(judged_only=judged_only))
        assert got == {"ntcir:bpref_R": 1.0, "ntcir:bpref_N": 1.0, "ntcir:bpref": 1.0}
    # the rest of the evaluation keeps the raw list without -J: AP = 1/6
    assert one(qrels, ranking, ["map"])["map"] == pytest.approx(1 / 6, abs=1e-15)


@st.composite
def raw_list_case(draw):
    """A topic judged over d0..d11 with levels -1 (in the pool, unjudged), 0..3 and at least
    one relevant document; a run mixing judged, pool-unjudged and unjudged (u*) documents in
    file order; an optional -M depth."""
    pool = [f"d{i}" for i in range(12)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=12))
    qrels = {d: draw(st.integers(-1, 3)) for d in judged}
    qrels[judged[0]] = draw(st.integers(1, 3))
    docs = pool + [f"u{i}" for i in range(6)]
    ranking = draw(st.lists(st.sampled_from(docs), unique=True, max_size=18))
    depth = draw(st.one_of(st.none(), st.integers(1, 18)))
    return qrels, ranking, depth


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw_list_case())
def test_family_on_the_condensed_list_matches_the_oracle_with_and_without_j(case):
    """Every `compute -j` value, with or without -J and at any -M, is the oracle's `label -j |
    compute -j` value (ntcir_eval on the condensed list of the top M documents; a level -1
    document is unjudged); with N = 0, bpref, bpref_N and rpref_N have no value."""
    qrels, ranking, depth = case
    reqs = [request(label, gains=G123) for label in FAMILY]
    judged = {d: lv for d, lv in qrels.items() if lv >= 0}
    listed = ranking[:depth] if depth is not None else ranking
    n_nonrel = sum(1 for lv in judged.values() if lv == 0)
    want = evaluate_topic(listed, judged, [1, 2, 3], condensed=True, bpref=True) \
        if n_nonrel else None
    for judged_only in (False, True):
        got = sql_values({"T": qrels}, {"run": {"T": ranking}}, reqs, judged_only=judged_only,
                         depth=depth)[("run", "T")]
        for label in FAMILY:
            if label in NEEDS_NONREL and not n_nonrel:
                assert label not in got, label
                continue
            assert got[label] is not None, label
            if want is not None:
                assert got[label] == pytest.approx(want[label], abs=1e-12), (label, judged_only)
        if want is not None:
            assert 0.0 <= got["bpref_N"] <= 1.0 and 0.0 <= got["bpref_R"] <= 1.0


# ------------------------------------------------- undefined cases, through every output path

# T: R = 1, N = 2, five unjudged documents then the relevant one: bpref_R = bpref_N = 1
# W: R = 1, N = 0: bpref_R = 1, bpref_N undefined
# Y: R = 1, N = 2, L0 then the relevant one: bpref_R = 1 - 1/1 = 0, bpref_N = 1 - 1/2 = 0.5
# Z: R = 0: bpref_R and bpref_N undefined (map = 0)
UNDEFINED_QRELS = """T 0 rel 1
T 0 n1 0
T 0 n2 0
W 0 w1 1
Y 0 y1 1
Y 0 y2 0
Y 0 y3 0
Z 0 a 0
Z 0 b 0
"""
UNDEFINED_RUN = "".join(f"{t} Q0 {d} {i} {100 - i} run\n" for t, docs in [
    ("T", ["u1", "u2", "u3", "u4", "u5", "rel"]), ("W", ["w1"]), ("Y", ["y2", "y1"]),
    ("Z", ["a"])] for i, d in enumerate(docs, start=1))
DEFINED = {"ntcir:bpref_R": {"T": 1.0, "W": 1.0, "Y": 0.0},
           "ntcir:bpref_N": {"T": 1.0, "Y": 0.5},
           "map": {"T": 1 / 6, "W": 1.0, "Y": 0.5, "Z": 0.0}}
RUN_VALUE = {m: sum(v.values()) / len(v) for m, v in DEFINED.items()}
MEASURES = ["-m", "map", "-m", "ntcir:bpref_R", "-m", "ntcir:bpref_N"]


@pytest.fixture(scope="module")
def undefined_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("undefined")
    (folder / "qrels").write_text(UNDEFINED_QRELS)
    (folder / "run").write_text(UNDEFINED_RUN)
    return folder / "qrels", folder / "run"


def irw_ok(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def rows_of(fmt: str, text: str) -> dict:
    """{(measure, topic): value} of `irw eval -q` output in a layout; fails on a value that is
    not a number (None, nan, null)."""
    if fmt == "trec_eval":
        rows = [line.split("\t") for line in text.splitlines()]
        return {(m.strip(), t): float(v) for m, t, v in rows if m.strip() != "runid"}
    if fmt == "json":
        rows = [(r["measure"], r["topic"], r["value"]) for r in json.loads(text)]
    else:
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",")
        rows = [(r["measure"], r["topic"], r["value"]) for r in reader]
    out = {}
    for measure, topic, value in rows:
        assert isinstance(value, float) or value not in (None, "None", "nan", "null"), \
            (measure, topic, value)
        out[(measure, topic)] = float(value)
    return out


def expected_rows() -> dict:
    rows = {(m, t): v for m, by_topic in DEFINED.items() for t, v in by_topic.items()}
    return {**rows, **{(m, "all"): v for m, v in RUN_VALUE.items()}}


@pytest.mark.parametrize("fmt", ["trec_eval", "tsv", "csv", "json"])
@pytest.mark.parametrize("judged_only", [False, True])
def test_undefined_topics_are_left_out_in_every_layout(undefined_files, fmt, judged_only):
    """R = 0 (Z) and N = 0 (W) give no row, never None/nan/null, and the `all` value is the
    mean over the topics that have one: bpref_R over 3 topics, bpref_N over 2, map over 4."""
    qrels, run = undefined_files
    text = irw_ok("eval", "-q", "--format", fmt, *MEASURES, *(["-J"] if judged_only else []),
                  qrels, run)
    got = rows_of(fmt, text)
    ntcir = {k: v for k, v in got.items() if k[0] != "map"}
    want = {k: v for k, v in expected_rows().items() if k[0] != "map"}
    assert ntcir.keys() == want.keys()
    for key, value in want.items():
        assert ntcir[key] == pytest.approx(value, abs=5e-5 if fmt == "trec_eval" else 1e-12)
    if not judged_only:                        # map is raw-list AP without -J (T: 1/6)
        assert got[("map", "all")] == pytest.approx(RUN_VALUE["map"], abs=5e-5)


def test_undefined_topics_in_the_ntcireval_layout(undefined_files):
    """`--format ntcireval` prints per-topic .nev blocks: Z (R = 0) prints nothing, as
    ntcir_eval; W (N = 0) has its bpref_R line and no bpref_N line (ntcir_eval needs N > 0
    for -j); no `nan` anywhere; with or without -J the same values (the facts lines differ:
    syslen and r1 are those of the list evaluated)."""
    qrels, run = undefined_files
    want = {(t, m.removeprefix("ntcir:")): v for m, by_topic in DEFINED.items()
            if m != "map" for t, v in by_topic.items()}
    for extra in ([], ["-J"]):
        text = irw_ok("eval", "--format", "ntcireval", "-m", "ntcir:bpref_R", "-m",
                      "ntcir:bpref_N", *extra, qrels, run)
        lines = text.splitlines()
        assert "nan" not in text and not any(line.startswith("Z ") for line in lines)
        assert {line.split()[0] for line in lines} == {"T", "W", "Y"}
        values = {tuple(line.split("=")[0].split()): float(line.split("=")[1])
                  for line in lines if "#" not in line}
        assert values == want


@pytest.fixture(scope="module")
def undefined_warehouse(tmp_path_factory, undefined_files):
    qrels, run = undefined_files
    path = tmp_path_factory.mktemp("undefined_wh") / "irw.duckdb"
    irw_ok("init", "-w", path)
    irw_ok("ingest", "qrels", qrels, "-C", "c", "-w", path)
    irw_ok("ingest", "run", run, "-C", "c", "-w", path)
    irw_ok("eval", "--campaign", "c", *MEASURES, "--store", "-w", path)
    return path


def test_undefined_topics_in_run_score_and_the_metric_macros(undefined_warehouse):
    """run_score (irw_summarise over the stored rows) gives the `all` values of `irw eval` over
    the same topics; the metric macros return the same rows, -J or not, and no NULL."""
    stored_as = {"ntcir:bpref_R": "bpref_R", "ntcir:bpref_N": "bpref_N", "map": "map"}
    with duckdb.connect(str(undefined_warehouse), read_only=True) as con:
        # stored under their canonical names (ntcir:bpref_R: bpref_R)
        scores = {m: (n, mean) for m, n, mean in con.execute(
            "SELECT measure, num_topics, mean FROM run_score").fetchall()}
        scores = {name: scores[stored_as[name]] for name in stored_as if stored_as[name] in scores}
        assert scores.keys() == RUN_VALUE.keys()
        for measure, value in RUN_VALUE.items():
            assert scores[measure][0] == len(DEFINED[measure])
            assert scores[measure][1] == pytest.approx(value, abs=1e-12)
        assert con.execute("SELECT count(*) FROM topic_score WHERE value IS NULL "
                           "OR isnan(value)").fetchone()[0] == 0
        for macro, measure in [("irw_ntcir_bpref_r", "ntcir:bpref_R"),
                               ("irw_ntcir_bpref_n", "ntcir:bpref_N")]:
            for judged_only in (False, True):
                rows = dict(con.execute(f"SELECT topic, value FROM {macro}('c', "
                                        "judged_only := ?)", [judged_only]).fetchall())
                assert rows == pytest.approx(DEFINED[measure], abs=1e-12)
            mean = con.execute(f"SELECT irw_summarise('mean', list(value ORDER BY topic), NULL) "
                               f"FROM {macro}('c')").fetchone()[0]
            assert mean == pytest.approx(RUN_VALUE[measure], abs=1e-12)
