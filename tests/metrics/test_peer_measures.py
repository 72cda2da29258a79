"""The measures taken from irw's peers (sql/metrics/gdeval.sql, irmeasures.sql, ndcg_gains.sql,
ranx.sql, cwl.sql, trectools.sql):

* gdeval's ERR@20 and nDCG@20 reproduce gdeval.pl 1.2's output for the 8 TREC 2012 Web runs
  (../shared/realdata, every topic and the amean line, at gdeval's 5 printed decimals);
* every measure equals a slow loop-for-loop oracle (tests/oracles/peers_oracle.py) on random
  topics with graded, non-relevant, unjudged and negative levels and tied scores (hypothesis,
  derandomised);
* the measures' parameter checks and gdeval's refusal of levels above MAX_JUDGMENT.

The peers' own test cases are in tests/peers/."""

from __future__ import annotations

import csv
import itertools
import math

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.api import evaluate_files
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import MeasureRequest, registry
from irwarehouse.measures.values import header_default
from irwarehouse.store.connection import connect
from tests.oracles import peers_oracle as oracle

PROPERTY = settings(derandomize=True, max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
WEB2012 = "trec2012_web_diversity"
WEB2012_RUNS = ["ql.results-cata", "ql.results-cata-filtered", "ql.results-catb",
                "ql.results-catb-filtered", "rm.results-cata", "rm.results-cata-filtered",
                "rm.results-catb", "rm.results-catb-filtered"]


# ------------------------------------------------------------------------- gdeval, real data

@pytest.mark.realdata
@pytest.mark.parametrize("run", WEB2012_RUNS)
def test_gdeval_reproduces_the_trec_2012_web_track_outputs(realdata, run):
    """gdeval.pl qrels.adhoc.txt <run>: ndcg@20 and err@20 per topic and the amean line. The
    scores are compared as doubles (trec_eval 10's reading), as gdeval's Perl does."""
    folder = realdata / WEB2012
    result = evaluate_files(folder / "qrels" / "qrels.adhoc.txt",
                            [folder / "runs" / f"{run}.txt.gz"],
                            ["gdeval_nDCG@20", "gdeval_ERR@20"], options=EvalOptions(version=10))
    got = {(r["topic"], r["measure"]): r["value"] for r in result.per_topic.to_pylist()}
    got |= {("amean", r["measure"]): r["value"] for r in result.summary.to_pylist()}
    with open(folder / "expected_gdeval" / f"{run}.gdeval2012.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 51 and len(got) == 2 * 51
    for row in rows:
        for measure, column in (("gdeval_nDCG@20", "ndcg@20"), ("gdeval_ERR@20", "err@20")):
            assert f"{got[(row['topic'], measure)]:.5f}" == row[column], (row["topic"], measure)


def test_gdeval_err_and_ndcg_on_ir_measures_example():
    """ir_measures' tests/test_gdeval.py example, worked by hand: topic 0 ranks D0 (0), D2 (1),
    D3 (2), D1 (1), D4 (0), so ERR@20 = 1/16/2 + 15/16 3/16/3 + 15/16 13/16 1/16/4."""
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}}
    run = {"0": [("D0", 0.8), ("D2", 0.7), ("D1", 0.3), ("D3", 0.4), ("D4", 0.1)]}
    expected = 1 / 32 + 15 / 16 * 3 / 16 / 3 + 15 / 16 * 13 / 16 / 16 / 4
    assert values(qrels, run, "gdeval_ERR", cutoff=20)["0"] == pytest.approx(expected, abs=1e-15)
    assert values(qrels, run, "gdeval_ERR", cutoff=2)["0"] == pytest.approx(1 / 32, abs=1e-15)


def test_gdeval_refuses_a_level_above_max_judgment():
    with pytest.raises(duckdb.Error, match="relevance level 5 exceeds max_judgment 4"):
        values({"T": {"a": 5}}, {"T": [("a", 1.0)]}, "gdeval_ERR", cutoff=20)
    assert values({"T": {"a": 5}}, {"T": [("a", 1.0)]}, "gdeval_ERR", cutoff=20,
                  max_judgment=5)["T"] == pytest.approx(31 / 32)


def test_a_topic_without_a_relevant_document_has_no_gdeval_value():
    qrels = {"A": {"a": 1}, "B": {"b": 0}}
    run = {"A": [("a", 1.0)], "B": [("b", 1.0)]}
    assert set(values(qrels, run, "gdeval_nDCG", cutoff=20)) == {"A"}
    assert values(qrels, run, "ndcg_burges", cutoff=20) == {"A": 1.0, "B": 0.0}


@pytest.mark.parametrize("measure, params, message", [
    ("judged", {"cutoff": -1}, "cutoff must be >= 0"),
    ("cwl_INST", {"min_rel": 2, "max_rel": 2}, "max_rel must be greater than min_rel"),
    ("cwl_RBP", {"stat": 6}, "stat must be 1"),
    ("trectools_RBP", {"p": 1.0}, "p must be between 0 and 1"),
    ("uRBP", {"other_qrels": 999}, "other_qrels: no qrels with id 999"),
])
def test_bad_parameters_are_errors(measure, params, message):
    with pytest.raises(duckdb.Error, match=message):
        values({"T": {"a": 1}}, {"T": [("a", 1.0)]}, measure, **params)


# ---------------------------------------------------------------- the SQL harness and oracle

_CON = None
_SEQ = itertools.count()


def _con():
    global _CON
    if _CON is None:
        _CON = connect(None)
    return _CON


def load(qrels: dict, run: dict, other: dict | None = None) -> tuple[int, int, int | None]:
    """qrels {topic: {doc: level}}, run {topic: [(doc, score)]} (and a second qrels `other`) in
    a fresh campaign of the shared in-memory warehouse: (qrels_id, run_id, other qrels_id)."""
    c = _con()
    cid = c.execute("INSERT INTO campaign (name) VALUES (?) RETURNING campaign_id",
                    [f"p{next(_SEQ)}"]).fetchone()[0]
    ids = []
    for name, judged in (("q", qrels), ("other", other)):
        if judged is None:
            ids.append(None)
            continue
        qid = c.execute("INSERT INTO qrels (campaign_id, name) VALUES (?, ?) RETURNING qrels_id",
                        [cid, name]).fetchone()[0]
        rows = [(t, d, lv) for t, docs in judged.items() for d, lv in docs.items()]
        c.register("t_judged", pa.table({"topic": [r[0] for r in rows],
                                         "doc": [r[1] for r in rows],
                                         "rel": pa.array([r[2] for r in rows], pa.int32())}))
        c.execute("INSERT INTO judgment (qrels_id, topic, intent, doc, rel) "
                  "SELECT ?, topic, '', doc, rel FROM t_judged", [qid])
        c.unregister("t_judged")
        ids.append(qid)
    rid = c.execute("INSERT INTO run (campaign_id, name) VALUES (?, 'run') RETURNING run_id",
                    [cid]).fetchone()[0]
    rows = [(t, d, s, i) for t, docs in run.items() for i, (d, s) in enumerate(docs, start=1)]
    c.register("t_rows", pa.table({"topic": [r[0] for r in rows], "doc": [r[1] for r in rows],
                                   "score": [float(r[2]) for r in rows],
                                   "pos": pa.array([r[3] for r in rows], pa.int64())}))
    c.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order) "
              "SELECT ?, topic, doc, score, pos, pos FROM t_rows", [rid])
    c.unregister("t_rows")
    return ids[0], rid, ids[1]


def values(qrels, run, measure, *, other=None, options=None, **params) -> dict:
    """{topic: value} of one measure with some parameters, through evaluate()."""
    qid, rid, other_id = load(qrels, run, other)
    if other is not None:
        params["other_qrels"] = other_id
    mdef = registry()[measure]
    args = tuple(params.get(p.name, header_default(p)) for p in mdef.params)
    result = evaluate(_con(), [rid], qid, [MeasureRequest(mdef, args, measure)],
                      options or EvalOptions())
    return {r["topic"]: r["value"] for r in result.per_topic.to_pylist()}


DOCS = [f"d{i:02d}" for i in range(14)]
LEVEL = st.sampled_from([None, None, -1, 0, 0, 1, 1, 2, 3, 4])
SCORE = st.sampled_from([1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 4.0])     # exact in float32: ties only


@st.composite
def topics(draw):
    """Two topics: judgments (None = not in the qrels) and a list with tied scores."""
    qrels, run = {}, {}
    for topic in ("A", "B"):
        judged = {d: draw(LEVEL) for d in DOCS}
        qrels[topic] = {d: lv for d, lv in judged.items() if lv is not None}
        if not qrels[topic]:
            qrels[topic] = {DOCS[0]: 0}
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        run[topic] = [(d, draw(SCORE)) for d in docs]
    return qrels, run


def check(qrels, run, measure, expected, tol=1e-9, **params):
    got = values(qrels, run, measure, **params)
    for topic in qrels:
        want = expected(qrels[topic], oracle.rank(run[topic]))
        if want is None:
            assert topic not in got, (measure, params, topic)
        else:
            assert math.isclose(got[topic], want, rel_tol=tol, abs_tol=tol), \
                (measure, params, topic, got[topic], want)


@PROPERTY
@given(topics(), st.sampled_from([1, 3, 20]))
def test_gdeval_equals_the_oracle(data, k):
    qrels, run = data
    check(qrels, run, "gdeval_ERR", lambda q, r: oracle.gdeval_err(q, r, k), cutoff=k)
    check(qrels, run, "gdeval_nDCG", lambda q, r: oracle.gdeval_ndcg(q, r, k), cutoff=k)


@pytest.mark.slow
@PROPERTY
@given(topics(), st.sampled_from([0, 1, 3, 20]))
def test_ir_measures_and_ranx_measures_equal_the_oracle(data, k):
    qrels, run = data
    check(qrels, run, "judged", lambda q, r: oracle.judged(q, r, k), cutoff=k)
    check(qrels, run, "recip_rank_cut", lambda q, r: oracle.recip_rank_cut(q, r, k), cutoff=k)
    check(qrels, run, "accuracy", lambda q, r: oracle.accuracy(q, r, k), cutoff=k)
    check(qrels, run, "dcg", lambda q, r: oracle.dcg(q, r, k), cutoff=k)
    check(qrels, run, "dcg_burges", lambda q, r: oracle.dcg(q, r, k, exponential=True),
          cutoff=k)
    check(qrels, run, "ndcg_burges", lambda q, r: oracle.ndcg_burges(q, r, k), cutoff=k)
    check(qrels, run, "hits", lambda q, r: oracle.hits(q, r, k), cutoff=k)
    check(qrels, run, "f1", lambda q, r: oracle.f1(q, r, k), cutoff=k)
    if k:
        gains = {0: 0.5, 2: 5.0}
        check(qrels, run, "ndcg_cut_gains", lambda q, r: oracle.ndcg_cut_gains(q, r, k, gains),
              cutoff=k, gains=gains)


@PROPERTY
@given(topics(), st.sampled_from([0.5, 0.8, 0.95]), st.sampled_from([0, 1]))
def test_compat_equals_the_oracle(data, p, normalize):
    qrels, run = data
    check(qrels, run, "compat", lambda q, r: oracle.compat(q, r, p, normalize), p=p,
          normalize=normalize)


CWL = [("cwl_P", "P", {"cutoff": 3}), ("cwl_RR", "RR", {}), ("cwl_RBP", "RBP", {"p": 0.8}),
       ("cwl_INST", "INST", {"T": 2.0}), ("cwl_INSQ", "INSQ", {"T": 1.5}),
       ("cwl_BPM", "BPM", {"T": 1.2, "cutoff": 4}), ("cwl_SDCG", "SDCG", {"cutoff": 5}),
       ("cwl_NERR8", "NERR8", {"cutoff": 4}), ("cwl_NERR9", "NERR9", {"cutoff": 4}),
       ("cwl_NERR10", "NERR10", {"p": 0.7}), ("cwl_NERR11", "NERR11", {"T": 2.0})]
_ORACLE_NAMES = {"cutoff": "k", "p": "p", "T": "T"}


@PROPERTY
@given(topics(), st.sampled_from(CWL), st.sampled_from([(0, 1), (0, 4), (1, 3)]),
       st.integers(min_value=1, max_value=5))
def test_cwl_measures_equal_the_oracle(data, metric, scale, stat):
    qrels, run = data
    measure, kind, params = metric
    min_rel, max_rel = scale
    kw = {_ORACLE_NAMES[k]: v for k, v in params.items()}
    check(qrels, run, measure,
          lambda q, r: oracle.cwl(kind, q, r, min_rel=min_rel, max_rel=max_rel, depth=50,
                                  **kw)[stat - 1],
          min_rel=min_rel, max_rel=max_rel, depth=50, stat=stat, **params)


@pytest.mark.slow
@PROPERTY
@given(topics(), st.sampled_from([0.5, 0.8]), st.sampled_from([3, 1000]),
       st.sampled_from([0, 1]), st.sampled_from([0, 1]))
def test_trectools_rbp_family_equals_the_oracle(data, p, depth, graded, ties):
    qrels, run = data
    check(qrels, run, "trectools_RBP",
          lambda q, r: oracle.trectools_rbp(q, r, p, depth, graded, ties), p=p, depth=depth,
          graded=graded, ties=ties)
    check(qrels, run, "trectools_RBP_resid",
          lambda q, r: oracle.trectools_rbp_resid(q, r, p, depth, ties), p=p, depth=depth,
          ties=ties)
    other = {t: {d: (i * 37) % 101 for i, d in enumerate(sorted(docs))}
             for t, docs in qrels.items()}
    for docs in other.values():          # a document the second qrels lacks counts nothing
        docs.pop(min(docs), None)
    got = values(qrels, run, "uRBP", other=other, p=p, depth=depth, scale=0.01,
                 graded=graded, ties=ties)
    for topic in qrels:
        want = oracle.trectools_rbp(qrels[topic], oracle.rank(run[topic]), p, depth, graded,
                                    ties, other=other[topic], utility=lambda u: u * 0.01)
        assert got[topic] == pytest.approx(want, abs=1e-12)
    got = values(qrels, run, "alpha_uRBP", other=other, p=p, depth=depth, goal=50.0, sd=20.0,
                 graded=graded, ties=ties)
    for topic in qrels:
        want = oracle.trectools_rbp(
            qrels[topic], oracle.rank(run[topic]), p, depth, graded, ties, other=other[topic],
            utility=lambda u: 100 * math.exp(-(u - 50) ** 2 / (2 * 20 ** 2)))
        assert got[topic] == pytest.approx(want, abs=1e-12)
