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

from irwarehouse.api import evaluate_files
from irwarehouse.request import layouts as measure_names
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.errors import MeasureError
from irwarehouse.formats.intents import scheme_probabilities
from irwarehouse.measures import parse_measures
from irwarehouse.store.connection import connect
from irwarehouse.writers import render
from irwarehouse.writers.ndeval import NDEVAL_COLUMNS
from tests.helpers.paths import REALDATA
from tests.oracles import diversity_oracle as oracle

TREC2012 = REALDATA / "trec2012_web_diversity"
NTCIR = REALDATA / "ntcireval_190111_sample"
RUNS = [f"{s}.results-{c}{f}" for s in ("ql", "rm") for c in ("cata", "catb")
        for f in ("", "-filtered")]
MODES = {"c.traditional": EvalOptions(complete=True, order="score"),
         "default": EvalOptions(order="rank")}
needs_trec2012 = pytest.mark.skipif(not TREC2012.is_dir(), reason="shared realdata absent")
needs_ntcir = pytest.mark.skipif(not NTCIR.is_dir(), reason="shared realdata absent")
PROPERTY = settings(derandomize=True, deadline=None, max_examples=20,
                    suppress_health_check=[HealthCheck.too_slow])
NTCIR_PROPERTY = settings(PROPERTY, max_examples=12)


# ----------------------------------------------------------------------------- helpers


class Loaded:
    """A private warehouse whose tables are refilled directly for each random case."""

    def __init__(self):
        self.con = connect(None)

    def load(self, qrels: dict, runs: dict, intents: dict | None = None) -> None:
        """qrels {topic: {subtopic: {doc: level}}}; runs {topic: [(doc, score, rank)]};
        intents {topic: {subtopic: (probability, 'inf'|'nav')}}."""
        con = self.con
        for table in ("judgment", "run_row", "run", "qrels", "campaign", "intent"):
            con.execute(f"DELETE FROM {table}")
        for t, subs in (intents or {}).items():
            for s, (prob, kind) in subs.items():
                con.execute("INSERT INTO intent VALUES (1, ?, ?, ?, ?)", [str(t), str(s), prob,
                                                                         kind])
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
        con.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order) SELECT 1, topic, doc, score, rank, file_order FROM r_in")
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
    return measure_names.with_params(list(NDEVAL_COLUMNS), alpha=alpha, beta=beta)


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
                                list(NDEVAL_COLUMNS), options=opts,
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
    # two subtopics; d1 covers both, d2 covers 1, d3 covers 2 (tests/oracles/test_diversity_oracle.py)
    judgments = {1: {"d1": 1, "d2": 2, "x": 0}, 2: {"d1": 1, "d3": 1}}
    loaded.load({7: judgments}, {7: [("d2", 3.0, 1), ("x", 2.0, 2), ("d1", 1.0, 3)]})
    got = loaded.values(list(NDEVAL_COLUMNS), EvalOptions(order="rank"))
    assert got[("7", "strec@5")] == 1.0
    assert got[("7", "P-IA@5")] == pytest.approx(3 / 10)
    dcg = 1 + 0 + 1.5 / math.log2(4)
    idcg = 2 + 0.5 / math.log2(3) + 0.5 / math.log2(4)
    assert got[("7", "alpha-nDCG@5")] == pytest.approx(dcg / idcg)
    assert got[("7", "MAP-IA")] == pytest.approx(((1 + 2 / 3) / 2 + (1 / 3) / 2) / 2)
    want = oracle.ndeval_topic(["d2", "x", "d1"], judgments)
    for column in NDEVAL_COLUMNS:
        assert _same(got[("7", column)], want[column]), column


def _greedy_ideal(doc_intents: dict[str, list[str]], alpha: float) -> list[str]:
    """ndeval's greedy ideal list of one topic by the context macro ev_make_div_ideal."""
    from irwarehouse.store.connection import connect
    con = connect(None, macros=False)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_div_judgment AS SELECT '7' AS topic, "
                "unnest(?) AS intent, unnest(?) AS doc, 1 AS rel, 1.0 AS gain, true AS is_rel",
                [[i for ints in doc_intents.values() for i in ints],
                 [d for d, ints in doc_intents.items() for _ in ints]])
    return [d for (d,) in con.execute("SELECT doc FROM ev_make_div_ideal(?) ORDER BY rank",
                                      [alpha]).fetchall()]


def test_greedy_ideal_ties_go_to_larger_docno():
    # d1 covers both; then d2 (subtopic 1) and d3 (subtopic 2) tie at 0.5: d3 wins
    assert _greedy_ideal({"d1": ["1", "2"], "d2": ["1"], "d3": ["2"]}, 0.5) == \
        ["d1", "d3", "d2"]
    assert _greedy_ideal({"b": ["1"], "a": ["1"], "c": ["2"]}, 0.5) == ["c", "b", "a"]
    # subtopics are numbers: 10 after 9
    assert _greedy_ideal({"x": ["10"], "y": ["9", "10"]}, 1.0) == ["y", "x"]


def test_topic_without_relevant_documents(loaded):
    loaded.load({1: {1: {"a": 0}}, 2: {1: {"b": 1}}}, {1: [("a", 1.0, 1)], 2: [("b", 1.0, 1)]})
    got = loaded.values(list(NDEVAL_COLUMNS), EvalOptions())
    for column in NDEVAL_COLUMNS:
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
    assert measure_names.with_params(["alpha-nDCG@10 MAP-IA", "map"], alpha=0.3) == \
        ["alpha-nDCG(alpha=0.3)@10", "MAP-IA", "map"]
    for bad in ("NRBP@10", "alpha-nDCG(gamma=1)@10", "alpha-nDCG@0", "P-IA(cutoff=3)"):
        with pytest.raises(MeasureError):
            parse_measures([bad])


# ----------------------------------------------------------------------------- properties


@PROPERTY
@given(rng=st.randoms(use_true_random=False),
       alpha=st.sampled_from([0.5, 0.0, 0.25, 0.3, 0.7, 1.0]),
       beta=st.sampled_from([0.5, 0.2, 0.8, 1.0]),
       order=st.sampled_from(["rank", "score"]), depth=st.sampled_from([None, None, 1, 3, 10]))
def test_sql_matches_oracle(loaded, rng, alpha, beta, order, depth):
    qrels, runs = _random_case(rng, tied_scores=order == "score")
    loaded.load(qrels, runs)
    got = loaded.values(_measures(alpha, beta), EvalOptions(order=order, depth=depth))
    for topic, subs in qrels.items():
        rows = [(d, rank, score) for d, score, rank in runs[topic]]
        ranking = oracle.ndeval_order(rows, traditional=order == "score")[:depth]   # ndeval -M
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
    theirs = pyndeval.ndeval(q, run, measures=list(NDEVAL_COLUMNS), alpha=alpha,
                             beta=beta)
    compared = 0
    for (t, name), value in got.items():
        if t in theirs and not math.isnan(value):
            assert value == pytest.approx(theirs[t][_column(name)], rel=1e-9, abs=1e-12), \
                (t, name)
            compared += 1
    assert compared > 0


# ----------------------------------------------------------------------------- NTCIREVAL goldens

NTCIR_LAYOUT = {  # our measure -> the name NTCIREVAL prints it under (D / DIN files)
    "Dnev": {"D-nDCG": "MSnDCG", "D-Q": "Q", "I-rec": "I-rec", "D#-Q": "D#-Q",
             "D#-nDCG": "D#-nDCG"},
    "DINnev": {"DIN-nDCG": "MSnDCG", "DIN-Q": "Q", "I-rec": "I-rec", "DIN#-Q": "DIN#-Q",
               "DIN#-nDCG": "DIN#-nDCG"},
}
IA_LAYOUT = {"IA-ERR": "IA-ERR", "IA-nERR": "IA-nERR", "IA-nDCG": "IA-MSnDCG"}


@pytest.fixture(scope="module")
def ntcir_values():
    """SQL values of every NTCIREVAL layout measure at l = 10 and 20 on the sample."""
    if not NTCIR.is_dir():
        pytest.skip("shared realdata absent")
    out = {}
    for cutoff in (10, 20):
        names = sorted({f"{m}@{cutoff}" for lay in NTCIR_LAYOUT.values() for m in lay}
                       | {f"{m}@{cutoff}" for m in IA_LAYOUT} | {"SUMp"})
        result = evaluate_files(NTCIR / "Dtest.Dqrels", [NTCIR / "TRECRUN"], names,
                                options=EvalOptions(order="file"), qrels_format="diversity",
                                intents=NTCIR / "Dtest.DINprob")
        out[cutoff] = {(r["topic"], r["measure"]): r["value"]
                       for r in result.per_topic.to_pylist()}
    return out


def _nev_lines(path: Path) -> dict[tuple[str, str], str]:
    out = {}
    for line in path.read_text().splitlines():
        tid, rest = line.split(None, 1)
        if not rest.startswith("#"):
            key, value = rest.rsplit(None, 1)
            out[(tid, key.rstrip("=").strip())] = value
    return out


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
@pytest.mark.parametrize("family", ["Dnev", "DINnev"])
def test_ntcireval_d_din_values(ntcir_values, family, cutoff):
    """D-/DIN-nDCG (MSnDCG@l), D-/DIN-Q (Q@l) and I-rec@l equal the printed %.4f values; the #
    measures are exact arithmetic, within 1e-4 of NTCIREVAL's sums of printed components."""
    expected = _nev_lines(NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.{family}")
    got = ntcir_values[cutoff]
    checked = exact = 0
    for (tid, measure), value in got.items():
        base = measure.rsplit("@", 1)[0]
        if base not in NTCIR_LAYOUT[family]:
            continue
        want = expected[(tid, f"{NTCIR_LAYOUT[family][base]}@{cutoff:04d}")]
        if "#" in base:
            assert abs(value - float(want)) <= 1e-4 + 1e-12, (tid, measure)
        else:
            assert f"{value:.4f}" == want, (tid, measure)
        exact += f"{value:.4f}" == want
        checked += 1
    assert checked == 3 * 5 and exact >= 10


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
def test_ntcireval_ia_values(ntcir_values, cutoff):
    lines = (NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.nevIA").read_text().splitlines()
    summary = {}
    for line in lines:
        parts = line.split()
        if parts[1] == "SUMp=":
            summary[(parts[0], "SUMp")] = parts[2]
            summary[(parts[0], parts[3].rstrip("="))] = parts[4]
    got = ntcir_values[cutoff]
    checked = 0
    for (tid, measure), value in got.items():
        base = measure.rsplit("@", 1)[0]
        if base == "SUMp":
            assert f"{value:.4f}" == summary[(tid, "SUMp")]
        elif base in IA_LAYOUT:   # sums of %.4f-printed per-intent values in NTCIREVAL
            assert abs(value - float(summary[(tid, f"{IA_LAYOUT[base]}@{cutoff:04d}")])) \
                <= 1e-4, (tid, measure)
        else:
            continue
        checked += 1
    assert checked == 3 * 4


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
@pytest.mark.parametrize("kind", ["D", "DIN", "IA"])
def test_ntcireval_cli_lines(kind, cutoff):
    """`irw eval --format ntcireval --diversity K --intents Dtest.DINprob --cutoffs l --order
    file Dtest.Dqrels TRECRUN`: every line printed is a line of NTCIREVAL's file (the #
    measures and the IA sums formed from printed components as its scripts do)."""
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    res = CliRunner().invoke(app, ["eval", "--format", "ntcireval", "--diversity", kind,
                                   "--intents", str(NTCIR / "Dtest.DINprob"), "--cutoffs",
                                   str(cutoff), "--order", "file", "--qrels-format",
                                   "diversity", str(NTCIR / "Dtest.Dqrels"),
                                   str(NTCIR / "TRECRUN")])
    assert res.exit_code == 0, res.output
    suffix = {"D": "Dnev", "DIN": "DINnev", "IA": "nevIA"}[kind]
    file_lines = (NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.{suffix}").read_text() \
        .splitlines()
    expected = set(file_lines)
    printed = res.output.splitlines()
    assert len(printed) == len(file_lines)          # the whole file (test_diversity_gcompute)
    assert [line for line in printed if line not in expected] == []
    positions = [file_lines.index(line) for line in printed]
    assert positions == sorted(positions)            # in the file's order


@pytest.mark.realdata
@needs_ntcir
def test_readme_diversity_examples(ntcir_values):
    got = ntcir_values[10]
    assert f"{got[('0001', 'D#-Q@10')]:.4f}" == "0.3965"
    assert f"{got[('0001', 'D#-nDCG@10')]:.4f}" == "0.4376"
    assert f"{got[('0001', 'DIN#-nDCG@10')]:.4f}" == "0.3892"
    assert f"{got[('0001', 'DIN#-Q@10')]:.4f}" == "0.3647"
    assert f"{got[('0002', 'SUMp')]:.4f}" == "0.2000"
    assert f"{got[('0002', 'IA-ERR@10')]:.4f}" == "0.0167"
    assert f"{got[('0002', 'IA-nERR@10')]:.4f}" == "0.0241"
    assert f"{got[('0002', 'IA-nDCG@10')]:.4f}" == "0.0116"


# ----------------------------------------------------------------------------- Sakai, IPSJ JIP 2013, Fig 1

FIG1_QRELS = {1: {1: {"a": 1, "b": 3, "e": 1}, 2: {"b": 1, "d": 3}}}
FIG1_RUN = {1: [("a", 5.0, 1), ("b", 4.0, 2), ("c", 3.0, 3), ("d", 2.0, 4), ("e", 1.0, 5)]}


def test_seed001_fig1(loaded):
    """Rank 1: L1 to i; rank 2: L3 to i, L1 to j; rank 3: non-relevant; rank 4: L3 to j;
    rank 5: L1 to i; i informational, j navigational, Pr = 1/2 each."""
    loaded.load(FIG1_QRELS, FIG1_RUN, {1: {1: (0.5, "inf"), 2: (0.5, "nav")}})
    names = ["Ef-P@5", "P+Q@5", "IA-Q@5", "D-nDCG@5", "DIN-nDCG@5", "D-Q@5", "DIN-Q@5",
             "I-rec@5", "D#-nDCG@5", "D#-Q@5", "DIN#-nDCG@5", "DIN#-Q@5", "PMP@5"]
    got = {m: v for (_, m), v in loaded.values(names, EvalOptions(order="file")).items()}
    assert got["Ef-P@5"] == pytest.approx(0.6)
    # P+ of j equals its Q here (Sakai, IPSJ JIP 2013, section 3.2), so P+Q equals Q-IA
    assert got["P+Q@5"] == pytest.approx(got["IA-Q@5"])
    assert got["DIN-nDCG@5"] < got["D-nDCG@5"] and got["DIN-Q@5"] < got["D-Q@5"]
    assert got["PMP@5"] == pytest.approx(3 / 5)          # tie: the first intent (i)
    for sharp, plain in (("D#-nDCG", "D-nDCG"), ("D#-Q", "D-Q"), ("DIN#-nDCG", "DIN-nDCG"),
                         ("DIN#-Q", "DIN-Q")):
        assert got[f"{sharp}@5"] == 0.5 * got["I-rec@5"] + (1 - 0.5) * got[f"{plain}@5"]
    # j alone: rp_j = 4 (L3 at rank 4 beats L1 at rank 2): P+ = (BR(2) + BR(4)) / 2
    loaded.load(FIG1_QRELS, FIG1_RUN, {1: {1: (0.0, "inf"), 2: (1.0, "nav")}})
    got = {m: v for (_, m), v in loaded.values(["P+Q@5"], EvalOptions(order="file")).items()}
    assert got["P+Q@5"] == pytest.approx((2 / 6 + 6 / 8) / 2)


def test_uniform_probabilities_and_intent_file(tmp_path):
    from irwarehouse.errors import InputError
    from irwarehouse.formats.intents import read_intents
    f = tmp_path / "x.DINprob"
    f.write_text("1 1 0.5 nav\n1 2 0.5\n2 1 inf\n")
    rows = read_intents(f)
    assert [(r.topic, r.intent, r.probability, r.intent_type) for r in rows] == \
        [("1", "1", 0.5, "nav"), ("1", "2", 0.5, None), ("2", "1", None, "inf")]
    f.write_text("1 1 0.5\n1 2 0.3\n")
    with pytest.raises(InputError, match="sum to 0.8000"):
        read_intents(f)
    assert read_intents(f, normalise=True)[0].probability == pytest.approx(0.625)
    f.write_text("1 1 0.5\n1 1 0.5\n")
    with pytest.raises(InputError, match="twice"):
        read_intents(f)


# ----------------------------------------------------------------------------- NTCIREVAL properties


def _random_ntcir_case(rng: random.Random):
    qrels, runs, intents, topics = {}, {}, {}, {}
    for t in range(1, rng.randint(1, 3) + 1):
        docs = [f"d{k:02d}" for k in range(rng.randint(1, 20))]
        subs = {}
        for s in range(1, rng.randint(1, 4) + 1):
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            subs[s] = {d: rng.choice([0, 0, 1, 2, 3]) for d in judged}
        weights = [rng.randint(1, 4) for _ in subs]     # > 0: global gains never all 0
        probs = {s: w / sum(weights) for s, w in zip(subs, weights)}
        types = {s: rng.choice(["inf", "nav"]) for s in subs}
        pool = docs + [f"u{k}" for k in range(4)]
        ranking = rng.sample(pool, rng.randint(1, len(pool)))
        qrels[t] = subs
        runs[t] = [(d, float(len(ranking) - k), k + 1) for k, d in enumerate(ranking)]
        intents[t] = {s: (probs[s], types[s]) for s in subs}
        topics[t] = (oracle.DiversityTopic(subs, probs, types), ranking)
    return qrels, runs, intents, topics


NTCIR_ORACLE = {  # our measure -> (oracle block, key)
    "I-rec": ("D", "I-rec{tag}"), "D-nDCG": ("D", "MSnDCG{tag}"), "D-Q": ("D", "Q{tag}"),
    "D#-nDCG": ("D", "D#-nDCG{tag}"), "D#-Q": ("D", "D#-Q{tag}"),
    "DIN-nDCG": ("DIN", "MSnDCG{tag}"), "DIN-Q": ("DIN", "Q{tag}"),
    "DIN#-nDCG": ("DIN", "DIN#-nDCG{tag}"), "DIN#-Q": ("DIN", "DIN#-Q{tag}"),
    "IA-nDCG": ("IA_mean", "IA-MSnDCG{tag}"), "IA-Q": ("IA_mean", "IA-Q{tag}"),
    "IA-ERR": ("IA_mean", "IA-ERR{tag}"), "IA-nERR": ("IA_mean", "IA-nERR{tag}"),
    "P+Q": ("PQ", "PplusQ{tag}"), "P+Q#": ("PQ", "PplusQ#{tag}"),
}


@NTCIR_PROPERTY
@given(rng=st.randoms(use_true_random=False), cutoff=st.sampled_from([1, 3, 5, 10]))
def test_ntcir_sql_matches_oracle(loaded, rng, cutoff):
    qrels, runs, intents, topics = _random_ntcir_case(rng)
    loaded.load(qrels, runs, intents)
    names = [f"{m}@{cutoff}" for m in NTCIR_ORACLE] + [f"Ef-P@{cutoff}", f"PMP@{cutoff}",
                                                        "SUMp", "I-rec@n"]
    got = loaded.values(names, EvalOptions(order="file"))
    tag = f"@{cutoff:04d}"
    for t, (topic, ranking) in topics.items():
        if not topic.intents_with_relevant():
            continue                       # NTCIREVAL prints nothing for such a topic
        want = oracle.ntcireval_topic(topic, ranking, cutoff, compat=False)
        for measure, (block, key) in NTCIR_ORACLE.items():
            value = got[(str(t), f"{measure}@{cutoff}")]
            assert _same(value, want[block][key.format(tag=tag)]), (t, measure)
        assert _same(got[(str(t), "SUMp")], want["IA_mean"]["SUMp"])
        assert _same(got[(str(t), "I-rec@n")], want["D"]["I-rec@n"])
        assert _same(got[(str(t), f"Ef-P@{cutoff}")],
                     oracle.effective_precision(topic, ranking, cutoff))
        assert _same(got[(str(t), f"PMP@{cutoff}")], oracle.pmp(topic, ranking, cutoff))
        if all(k == "inf" for k in topic.types.values()):
            for m in ("nDCG", "Q"):
                assert _same(got[(str(t), f"DIN-{m}@{cutoff}")], got[(str(t), f"D-{m}@{cutoff}")])
        assert got[(str(t), f"DIN-nDCG@{cutoff}")] <= got[(str(t), f"D-nDCG@{cutoff}")] + 1e-12


@pytest.mark.realdata
@needs_ntcir
def test_campaign_with_stored_intents(tmp_path):
    """The warehouse path: ingest Dqrels, DINprob and the run into a campaign, evaluate with
    --store; the printed lines are NTCIREVAL's and the scores are materialised."""
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    wh = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["ingest", "qrels", "--format", "diversity", str(NTCIR / "Dtest.Dqrels")],
                 ["ingest", "intents", str(NTCIR / "Dtest.DINprob")],
                 ["ingest", "run", str(NTCIR / "TRECRUN")]):
        res = runner.invoke(app, args + ["-C", "ntcir", "-w", wh])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["eval", "-C", "ntcir", "-w", wh, "--format", "ntcireval",
                              "--diversity", "DIN", "--order", "file", "--store"])
    assert res.exit_code == 0, res.output
    expected = set((NTCIR / "generated_ntcireval" / "TRECRUN.l10.DINnev").read_text()
                   .splitlines())
    assert res.stdout.splitlines() and set(res.stdout.splitlines()) <= expected
    from irwarehouse.api import Warehouse
    with Warehouse(wh, create=False) as w:
        # the layout asks for NTCIREVAL's # values (from 4-decimal components, SQL printed=1)
        stored = w.scores("ntcir", "DIN#-Q(printed=1)@10").to_pylist()
    assert len(stored) == 3
    assert {r["params"] for r in stored} == {"cutoff=10,gamma=0.5,beta=1.0,printed=1"}
    res = runner.invoke(app, ["eval", "-C", "ntcir", "-w", wh, "--intents",
                              str(NTCIR / "Dtest.DINprob"), "-m", "D-nDCG@10"])
    assert res.exit_code == 1 and "irw ingest intents" in res.output


@pytest.mark.parametrize("scheme", ["sakai2013", "seed001"])
def test_sakai2013_probability_scheme(scheme):
    assert scheme_probabilities(["2", "1", "10"], scheme) == \
        pytest.approx({"1": 8 / 14, "2": 4 / 14, "10": 2 / 14})
    assert scheme_probabilities(["a", "b"], "uniform") == {"a": 0.5, "b": 0.5}
    with pytest.raises(MeasureError):
        scheme_probabilities(["a"], "zipf")
    assert parse_measures(["nDCG-IA@10"])[0].name == "IA-nDCG@10"


@pytest.mark.realdata
@needs_ntcir
def test_seed001_scheme_is_the_sample_iprob(tmp_path):
    """NTCIREVAL's sample Iprob is Sakai's (IPSJ JIP 2013) scheme (8/14, 4/14, 2/14 for three intents)."""
    from typer.testing import CliRunner

    from irwarehouse.api import Warehouse
    from irwarehouse.cli import app
    wh = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["ingest", "qrels", "--format", "diversity", str(NTCIR / "Dtest.Dqrels")],
                 ["ingest", "intents", "--scheme", "seed001"]):
        res = runner.invoke(app, args + ["-C", "n", "-w", wh])
        assert res.exit_code == 0, res.output
    with Warehouse(wh, create=False) as w:
        got = {(t, i): p for t, i, p in w.con.execute(
            "SELECT topic, intent, probability FROM intent").fetchall()}
    for line in (NTCIR / "Dtest.Iprob").read_text().splitlines():
        tid, intent, prob = line.split()
        if tid in ("0001", "0003"):          # every intent has a relevant document there
            assert f"{got[(tid, intent)]:.4f}" == prob


@pytest.mark.realdata
@pytest.mark.slow
@needs_trec2012
def test_raw_nist_diversity_qrels_give_the_same_csv():
    """NIST's qrels.diversity (spam -2, subtopics without relevant documents) evaluates as
    qrels-for-ndeval does: negative levels are not relevant and empty subtopics do not count."""
    run = "rm.results-cata"
    result = evaluate_files(TREC2012 / "qrels" / "qrels.diversity.txt",
                            [TREC2012 / "runs" / f"{run}.txt.gz"],
                            list(NDEVAL_COLUMNS), options=MODES["c.traditional"],
                            qrels_format="diversity")
    expected = (TREC2012 / "expected_ndeval" / f"{run}.ndeval2012.c.traditional.csv").read_text()
    assert render(result, "ndeval", per_topic=True) == expected
