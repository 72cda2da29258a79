"""alpha-nDCG with intent probabilities and a per-topic alpha, and RR-IA
(sql/metrics/diversity_intents.sql): a worked example computed by hand, ndeval's alpha-nDCG
when the probabilities are uniform, a slow greedy oracle on random intents, and the files that
feed them (intent probabilities that do not sum to 1, per-topic alphas)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.errors import InputError
from irwarehouse.measures import parse_measures
from tests.helpers import sql_cases

PROPERTY = settings(derandomize=True, max_examples=30, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

QRELS = {"T": {"1": {"a": 1, "b": 1, "c": 0}, "2": {"c": 1, "d": 2}, "3": {"e": 1}}}
PROBS = {"T": {"1": 0.5, "2": 0.3, "3": 0.2}}
RUN = ["a", "b", "c", "x", "e"]


def _values(qrels, probs, ranking, names, alphas=None) -> dict[str, float]:
    qid, runs = sql_cases.load(qrels, {"r": {"T": ranking}}, intents=probs)
    con = sql_cases.con()
    if alphas:
        cid = con.execute("SELECT campaign_id FROM qrels WHERE qrels_id = ?", [qid]).fetchone()[0]
        con.executemany("INSERT OR REPLACE INTO topic_alpha (campaign_id, topic, alpha) "
                        "VALUES (?, ?, ?)",
                        [(cid, t, a) for t, a in alphas.items()])
    result = evaluate(con, runs, qid, parse_measures(names), EvalOptions(complete=True))
    return {r["measure"]: r["value"] for r in result.per_topic.to_pylist()}


def test_worked_example():
    """Clarke et al. (2011), alpha = 0.5, Pr = 0.5, 0.3, 0.2 for intents 1, 2, 3; the run a
    (1), b (1), c (2), x, e (3): G = 0.5, 0.5 * 0.5, 0.3, 0, 0.2. The greedy ideal: b (0.5,
    the larger docno of a tie with a), d (0.3, larger than c), a (0.25), e (0.2), c (0.15).
    RR-IA@5 (Sakai 2014, eq 26) = 0.5/1 + 0.3/3 + 0.2/5."""
    got = _values(QRELS, PROBS, RUN, ["alpha-nDCG-Pr@5", "RR-IA@5", "RR-IA@2"])
    dcg = 0.5 + 0.25 / math.log2(3) + 0.3 / 2 + 0.2 / math.log2(6)
    ideal = 0.5 + 0.3 / math.log2(3) + 0.25 / 2 + 0.2 / math.log2(5) + 0.15 / math.log2(6)
    assert got["alpha-nDCG-Pr@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert got["RR-IA@5"] == pytest.approx(0.64, abs=1e-15)
    assert got["RR-IA@2"] == pytest.approx(0.5, abs=1e-15)


def test_per_topic_alpha():
    """A topic's own alpha (irw ingest alphas) replaces the measure's: with alpha_T = 1 a
    second document of an intent gains nothing (b after a)."""
    got = _values(QRELS, PROBS, RUN, ["alpha-nDCG-Pr@5"], alphas={"T": 1.0})
    dcg = 0.5 + 0 + 0.3 / 2 + 0.2 / math.log2(6)
    ideal = 0.5 + 0.3 / math.log2(3) + 0.2 / 2       # b, d, e; then nothing gains
    assert got["alpha-nDCG-Pr@5"] == pytest.approx(dcg / ideal, abs=1e-12)


# -- oracles ----------------------------------------------------------------------------------


def _oracle(judged, probs, ranking, alpha, k):
    """(alpha-nDCG-Pr@k, RR-IA@k) of one topic, written from the definitions: `judged`
    intent -> {doc: level}, `probs` intent -> Pr(i|q) (uniform over the intents with a
    relevant document when empty)."""
    intents = [i for i, docs in judged.items() if any(v >= 1 for v in docs.values())]
    weight = probs or {i: 1 / len(intents) for i in intents}
    weight = {i: weight.get(i, 0.0) for i in intents}

    def relevant(doc):
        return [i for i in intents if judged[i].get(doc, 0) >= 1]

    def gain(doc, seen):
        return sum(weight[i] * (1 - alpha) ** seen[i] for i in relevant(doc))

    seen, dcg = dict.fromkeys(intents, 0), 0.0
    for r, doc in enumerate(ranking[:k], start=1):
        dcg += gain(doc, seen) / math.log2(r + 1)
        for i in relevant(doc):
            seen[i] += 1
    pool = sorted({d for i in intents for d, v in judged[i].items() if v >= 1}, reverse=True)
    seen, ideal = dict.fromkeys(intents, 0), 0.0
    for r in range(1, min(k, len(pool)) + 1):
        best = max(pool, key=lambda d: gain(d, seen))      # first max = the larger docno
        ideal += gain(best, seen) / math.log2(r + 1)
        for i in relevant(best):
            seen[i] += 1
        pool.remove(best)
    rr = sum(weight[i] / next((r for r, d in enumerate(ranking[:k], start=1)
                               if judged[i].get(d, 0) >= 1), math.inf) for i in intents)
    return (dcg / ideal if ideal > 0 else 0.0), rr


@st.composite
def intent_case(draw):
    docs = [f"d{n}" for n in range(10)]
    n = draw(st.integers(1, 4))
    judged = {str(i): {d: draw(st.integers(0, 2)) for d in
                       draw(st.lists(st.sampled_from(docs), unique=True, min_size=1,
                                     max_size=6))} for i in range(1, n + 1)}
    uniform = draw(st.booleans())
    raw = [draw(st.sampled_from([1, 2, 5])) for _ in range(n)]
    probs = {} if uniform else {str(i): raw[i - 1] / sum(raw) for i in range(1, n + 1)}
    ranking = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=10))
    return judged, probs, ranking, draw(st.sampled_from([0.5, 0.0, 0.8])), \
        draw(st.sampled_from([1, 3, 5, 10]))


@PROPERTY
@given(intent_case())
def test_sql_matches_the_oracle_and_ndeval_when_uniform(case):
    judged, probs, ranking, alpha, k = case
    names = [f"alpha-nDCG-Pr(alpha={alpha})@{k}", f"RR-IA@{k}", f"alpha-nDCG(alpha={alpha})@{k}"]
    got = _values({"T": judged}, {"T": probs}, ranking, names)
    got = {name.split("(")[0].split("@")[0]: v for name, v in got.items()}
    want_ndcg, want_rr = _oracle(judged, probs, ranking, alpha, k)
    assert got["alpha-nDCG-Pr"] == pytest.approx(want_ndcg, abs=1e-12)
    assert got["RR-IA"] == pytest.approx(want_rr, abs=1e-12)
    if not probs and any(v >= 1 for docs in judged.values() for v in docs.values()):
        assert got["alpha-nDCG-Pr"] == pytest.approx(got["alpha-nDCG"], abs=1e-12)


# -- the files --------------------------------------------------------------------------------


def test_intent_probabilities_that_do_not_sum_to_one_name_file_and_line(tmp_path):
    path = tmp_path / "iprob"
    path.write_text("1 1 0.5\n1 2 0.5\n2 1 0.6\n2 2 0.3\n")
    with Warehouse(None) as wh:
        with pytest.raises(InputError) as err:
            wh.ingest_intents(path, "c")
        assert f"{path}:3:" in str(err.value) and "sum to 0.9000, not 1" in str(err.value)
        assert wh.con.execute("SELECT count(*) FROM intent").fetchone()[0] == 0


@pytest.mark.parametrize("text, message", [
    ("1 0.5\n2 1.5\n", ":2: alpha '1.5' is not in [0, 1]"),
    ("1 0.5\n2\n", ":2: expected 2 fields (topic alpha), found 1"),
    ("1 x\n", ":1: alpha 'x' is not a number"),
    ("1 0.5\n1 0.2\n", ":2: topic '1' appears twice (first at line 1)"),
])
def test_bad_alpha_files_are_one_line_and_store_nothing(tmp_path, text, message):
    path = tmp_path / "alphas"
    path.write_text(text)
    with Warehouse(None) as wh:
        with pytest.raises(InputError) as err:
            wh.ingest_topic_alphas(path, "c")
        assert str(path) + message in str(err.value)
        assert wh.con.execute("SELECT count(*) FROM topic_alpha").fetchone()[0] == 0


def test_cli_alphas_and_rr_ia(tmp_path):
    qrels, run, iprob, alphas = (tmp_path / n for n in ("q", "r", "p", "a"))
    qrels.write_text("T 1 a 1\nT 1 b 1\nT 2 c 1\nT 2 d 2\nT 3 e 1\n")
    run.write_text("".join(f"T Q0 {d} {k} {9 - k} r\n" for k, d in enumerate(RUN, start=1)))
    iprob.write_text("T 1 0.5\nT 2 0.3\nT 3 0.2\n")
    alphas.write_text("T 1.0\n")
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["ingest", "qrels", str(qrels), "-C", "c", "--format", "diversity"],
                 ["ingest", "run", str(run), "-C", "c"],
                 ["ingest", "intents", "-C", "c", str(iprob)],
                 ["ingest", "alphas", str(alphas), "-C", "c"]):
        out = runner.invoke(app, args + ["-w", db])
        assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["eval", "-C", "c", "-m", "RR-IA@10", "-m", "alpha-nDCG-Pr@5",
                              "-w", db])
    assert out.exit_code == 0, out.output
    rows = {p[0]: float(p[2]) for p in (line.split() for line in out.output.splitlines())
            if len(p) == 3}
    assert rows["RR-IA@10"] == pytest.approx(0.64, abs=5e-5)
    dcg = 0.5 + 0.3 / 2 + 0.2 / math.log2(6)
    assert rows["alpha-nDCG-Pr@5"] == pytest.approx(
        dcg / (0.5 + 0.3 / math.log2(3) + 0.2 / 2), abs=5e-5)
    files = evaluate_files(qrels, [run], ["RR-IA@10"], qrels_format="diversity",
                           intents=iprob).summary.to_pylist()
    assert files[0]["value"] == pytest.approx(0.64, abs=1e-15)
