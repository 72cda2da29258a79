"""The diversity SQL macros (sql/metrics/diversity_*.sql) against ndeval's outputs on real data,
the pure-Python oracle (tests/oracles/diversity_oracle.py) and pyndeval on random data."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse import diversity
from irwarehouse.api import evaluate_files
from irwarehouse.errors import MeasureError
from irwarehouse.evaluate import EvalOptions, evaluate
from irwarehouse.measures import parse_measures
from irwarehouse.output import render
from irwarehouse.warehouse import connect
from tests.oracles import diversity_oracle as oracle

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
TREC2012 = REALDATA / "trec2012_web_diversity"
RUNS = [f"{s}.results-{c}{f}" for s in ("ql", "rm") for c in ("cata", "catb")
        for f in ("", "-filtered")]
MODES = {"c.traditional": EvalOptions(complete=True, order="score"),
         "default": EvalOptions(order="rank")}
needs_trec2012 = pytest.mark.skipif(not TREC2012.is_dir(), reason="shared realdata absent")
PROPERTY = settings(derandomize=True, deadline=None, max_examples=30,
                    suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- helpers


class Loaded:
    """A private warehouse whose tables are refilled directly for each random case."""

    def __init__(self):
        self.con = connect(None)

    def load(self, qrels: dict, runs: dict) -> None:
        """qrels {topic: {subtopic: {doc: level}}}; runs {topic: [(doc, score, rank)]}."""
        con = self.con
        for table in ("judgment", "run_row", "run", "qrels", "campaign"):
            con.execute(f"DELETE FROM {table}")
        con.execute("INSERT INTO campaign (campaign_id, name) VALUES (1, 'p')")
        con.execute("INSERT INTO qrels (qrels_id, campaign_id, name) VALUES (1, 1, 'q')")
        con.execute("INSERT INTO run (run_id, campaign_id, name) VALUES (1, 1, 'r')")
        j = [(str(t), str(s), d, lv) for t, subs in qrels.items() for s, docs in subs.items()
             for d, lv in docs.items()]
        r = [(str(t), d, float(score), rank, k) for t, rows in runs.items()
             for k, (d, score, rank) in enumerate(rows)]
        con.register("j_in", pa.table({"topic": [x[0] for x in j], "intent": [x[1] for x in j],
                                       "doc": [x[2] for x in j],
                                       "rel": pa.array([x[3] for x in j], pa.int32())}))
        con.register("r_in", pa.table({"topic": [x[0] for x in r], "doc": [x[1] for x in r],
                                       "score": [x[2] for x in r],
                                       "rank": pa.array([x[3] for x in r], pa.int64()),
                                       "file_order": pa.array([x[4] for x in r], pa.int64())}))
        con.execute("INSERT INTO judgment SELECT 1, topic, intent, doc, rel FROM j_in")
        con.execute("INSERT INTO run_row SELECT 1, topic, doc, score, rank, file_order FROM r_in")
        con.unregister("j_in")
        con.unregister("r_in")

    def values(self, measures: list[str], opts: EvalOptions) -> dict[tuple[str, str], float]:
        result = evaluate(self.con, [1], 1, parse_measures(measures), opts)
        return {(row["topic"], row["measure"]): row["value"]
                for row in result.per_topic.to_pylist()}


@pytest.fixture(scope="module")
def loaded():
    wh = Loaded()
    yield wh
    wh.con.close()


def _same(a: float, b: float) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


def _random_case(rng: random.Random, *, tied_scores: bool = False):
    qrels, runs = {}, {}
    for topic in range(1, rng.randint(1, 4) + 1):
        docs = [f"d{k:03d}" for k in range(rng.randint(1, 25))]
        subs = {}
        for s in range(1, rng.randint(1, 5) + 1):
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            subs[s] = {d: rng.choice([0, 0, 1, 2, 4]) for d in judged}
        qrels[topic] = subs
        pool = docs + [f"u{k}" for k in range(5)]
        ranking = rng.sample(pool, rng.randint(1, len(pool)))
        if tied_scores:
            scores = [float(rng.randint(0, 4)) for _ in ranking]
        else:
            scores = [float(len(ranking) - k) for k in range(len(ranking))]
        ranks = list(range(1, len(ranking) + 1))
        rng.shuffle(ranks)
        runs[topic] = list(zip(ranking, scores, ranks))
    return qrels, runs


def _measures(alpha: float, beta: float) -> list[str]:
    return diversity.with_params(list(diversity.NDEVAL_COLUMNS), alpha=alpha, beta=beta)


def _column(name: str) -> str:
    """The ndeval column of a printed measure name (parameters dropped)."""
    base, _, rest = name.partition("(")
    return base + (rest[rest.index(")") + 1:] if rest else "")


# ----------------------------------------------------------------------------- ndeval goldens


@pytest.fixture(scope="module")
def ndeval_outputs():
    """Per mode, the --format ndeval text of each of the 8 runs (one evaluation per mode)."""
    if not TREC2012.is_dir():
        pytest.skip("shared realdata absent")
    out = {}
    for mode, opts in MODES.items():
        result = evaluate_files(TREC2012 / "qrels" / "qrels-for-ndeval.txt",
                                [TREC2012 / "runs" / f"{run}.txt.gz" for run in RUNS],
                                list(diversity.NDEVAL_COLUMNS), options=opts,
                                qrels_format="diversity")
        lines = render(result, "ndeval", per_topic=True).splitlines()
        header, body, texts = lines[0], lines[1:], []
        current: list[str] = []
        for line in body:                         # runs in input order, each ends with amean
            current.append(line)
            if line.split(",")[1] == "amean":
                texts.append("\n".join([header] + current) + "\n")
                current = []
        out[mode] = dict(zip(RUNS, texts))
    return out


@pytest.mark.realdata
@pytest.mark.slow
@needs_trec2012
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("run", RUNS)
def test_ndeval_csv_reproduced_by_sql(ndeval_outputs, run, mode):
    """Every row of ndeval 2012's CSV, byte for byte (%.6f): `-c -traditional` = `-c --order
    score`, ndeval's default = `--order rank`."""
    expected = (TREC2012 / "expected_ndeval" / f"{run}.ndeval2012.{mode}.csv").read_text()
    produced = ndeval_outputs[mode][run]
    assert produced.splitlines()[0] == expected.splitlines()[0]
    assert len(produced.splitlines()) == len(expected.splitlines()) == 52
    for got, want in zip(produced.splitlines(), expected.splitlines()):
        assert got == want
    assert produced == expected


@pytest.mark.realdata
@pytest.mark.slow
@needs_trec2012
def test_ndeval_cli_reproduces_traditional(capsys):
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    run = "rm.results-cata-filtered"
    res = CliRunner().invoke(app, ["eval", "--format", "ndeval", "-c", "--order", "score",
                                   "--qrels-format", "diversity",
                                   str(TREC2012 / "qrels" / "qrels-for-ndeval.txt"),
                                   str(TREC2012 / "runs" / f"{run}.txt.gz")])
    assert res.exit_code == 0, res.output
    expected = (TREC2012 / "expected_ndeval" / f"{run}.ndeval2012.c.traditional.csv").read_text()
    assert res.output == expected


# ----------------------------------------------------------------------------- hand examples


def test_hand_example(loaded):
    # two subtopics; d1 covers both, d2 covers 1, d3 covers 2 (tests/test_diversity_oracle.py)
    judgments = {1: {"d1": 1, "d2": 2, "x": 0}, 2: {"d1": 1, "d3": 1}}
    loaded.load({7: judgments}, {7: [("d2", 3.0, 1), ("x", 2.0, 2), ("d1", 1.0, 3)]})
    got = loaded.values(list(diversity.NDEVAL_COLUMNS), EvalOptions(order="rank"))
    assert got[("7", "strec@5")] == 1.0
    assert got[("7", "P-IA@5")] == pytest.approx(3 / 10)
    dcg = 1 + 0 + 1.5 / math.log2(4)
    idcg = 2 + 0.5 / math.log2(3) + 0.5 / math.log2(4)
    assert got[("7", "alpha-nDCG@5")] == pytest.approx(dcg / idcg)
    assert got[("7", "MAP-IA")] == pytest.approx(((1 + 2 / 3) / 2 + (1 / 3) / 2) / 2)
    want = oracle.ndeval_topic(["d2", "x", "d1"], judgments)
    for column in diversity.NDEVAL_COLUMNS:
        assert _same(got[("7", column)], want[column]), column


def test_greedy_ideal_ties_go_to_larger_docno():
    # d1 covers both; then d2 (subtopic 1) and d3 (subtopic 2) tie at 0.5: d3 wins
    assert diversity.greedy_ideal({"d1": ["1", "2"], "d2": ["1"], "d3": ["2"]}, 0.5) == \
        ["d1", "d3", "d2"]
    assert diversity.greedy_ideal({"b": ["1"], "a": ["1"], "c": ["2"]}, 0.5) == ["c", "b", "a"]
    # subtopics are numbers: 10 after 9
    assert diversity.greedy_ideal({"x": ["10"], "y": ["9", "10"]}, 1.0) == ["y", "x"]


def test_topic_without_relevant_documents(loaded):
    loaded.load({1: {1: {"a": 0}}, 2: {1: {"b": 1}}}, {1: [("a", 1.0, 1)], 2: [("b", 1.0, 1)]})
    got = loaded.values(list(diversity.NDEVAL_COLUMNS), EvalOptions())
    for column in diversity.NDEVAL_COLUMNS:
        if column == "nNRBP":
            assert math.isnan(got[("1", column)])
        else:
            assert got[("1", column)] == 0.0, column
    assert got[("2", "alpha-nDCG@5")] == 1.0 and got[("2", "nNRBP")] == 1.0


def test_complete_and_depth(loaded):
    qrels = {1: {1: {"a": 1, "b": 1}}, 2: {1: {"c": 1}}}
    loaded.load(qrels, {1: [("x", 3.0, 1), ("a", 2.0, 2), ("b", 1.0, 3)]})
    result = evaluate(loaded.con, [1], 1, parse_measures(["MAP-IA", "strec@5"]),
                      EvalOptions(complete=True))
    summary = {r["measure"]: r["value"] for r in result.summary.to_pylist()}
    assert summary["MAP-IA"] == pytest.approx((1 / 2 + 2 / 3) / 2 / 2)   # topic 2 counts 0
    got = loaded.values(["MAP-IA", "strec@5"], EvalOptions(depth=2))
    assert got[("1", "MAP-IA")] == pytest.approx((1 / 2) / 2)
    got = loaded.values(["MAP-IA", "P-IA@5"], EvalOptions(judged_only=True))
    assert got[("1", "MAP-IA")] == pytest.approx(1.0)
    assert got[("1", "P-IA@5")] == pytest.approx(2 / 5)


def test_measure_names():
    reqs = parse_measures(["alpha_nDCG@20", "ERR-IA", "NRBP(beta=0.8)", "AP_IA", "StRecall@5"])
    names = [r.name for r in reqs]
    assert {"alpha-nDCG@20", "ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "NRBP(beta=0.8)", "MAP-IA",
            "strec@5"} == set(names)
    nrbp = next(r for r in reqs if r.mdef.name == "NRBP")
    assert nrbp.args == (0.5, 0.8)
    assert diversity.with_params(["alpha-nDCG@10 MAP-IA", "map"], alpha=0.3) == \
        ["alpha-nDCG(alpha=0.3)@10", "MAP-IA", "map"]
    for bad in ("NRBP@10", "alpha-nDCG(gamma=1)@10", "alpha-nDCG@0", "P-IA(cutoff=3)"):
        with pytest.raises(MeasureError):
            parse_measures([bad])


# ----------------------------------------------------------------------------- properties


@PROPERTY
@given(rng=st.randoms(use_true_random=False),
       alpha=st.sampled_from([0.5, 0.0, 0.25, 0.3, 0.7, 1.0]),
       beta=st.sampled_from([0.5, 0.2, 0.8, 1.0]),
       order=st.sampled_from(["rank", "score"]))
def test_sql_matches_oracle(loaded, rng, alpha, beta, order):
    qrels, runs = _random_case(rng, tied_scores=order == "score")
    loaded.load(qrels, runs)
    got = loaded.values(_measures(alpha, beta), EvalOptions(order=order))
    for topic, subs in qrels.items():
        rows = [(d, rank, score) for d, score, rank in runs[topic]]
        ranking = oracle.ndeval_order(rows, traditional=order == "score")
        want = oracle.ndeval_topic(ranking, subs, alpha=alpha, beta=beta)
        for (t, name), value in got.items():
            if t == str(topic):
                assert _same(value, want[_column(name)]), (topic, name, value, want)


pyndeval = None
try:  # optional test-only reference
    import pyndeval  # type: ignore[no-redef]
except ImportError:
    pass


@pytest.mark.skipif(pyndeval is None, reason="pyndeval not installed")
@PROPERTY
@given(rng=st.randoms(use_true_random=False),
       alpha=st.sampled_from([0.5, 0.25, 0.7]), beta=st.sampled_from([0.5, 0.8]))
def test_sql_matches_pyndeval(loaded, rng, alpha, beta):
    qrels, runs = _random_case(rng)       # distinct scores: pyndeval breaks ties differently
    loaded.load(qrels, runs)
    got = loaded.values(_measures(alpha, beta), EvalOptions(order="score"))
    q = [pyndeval.SubtopicQrel(str(t), str(s), d, lv) for t, subs in qrels.items()
         for s, docs in sorted(subs.items()) for d, lv in docs.items()]
    run = [pyndeval.ScoredDoc(str(t), d, score) for t, rows in runs.items()
           for d, score, _ in rows]
    theirs = pyndeval.ndeval(q, run, measures=list(diversity.NDEVAL_COLUMNS), alpha=alpha,
                             beta=beta)
    compared = 0
    for (t, name), value in got.items():
        if t in theirs and not math.isnan(value):
            assert value == pytest.approx(theirs[t][_column(name)], rel=1e-9, abs=1e-12), \
                (t, name)
            compared += 1
    assert compared > 0
