"""NTCIREVAL's metrics as SQL (sql/metrics/ntcir_*.sql) and `--format ntcireval`.

(a) golden: the official .nev files (WWW-4, 4 runs; NTCIREVAL 190111 TRECRUN) reproduced;
(b) property: random topics, SQL vs the pure-Python oracle (tests/oracles/ntcireval_oracle.py);
(c) METRICS.md worked examples and metric properties through SQL.

Real-data tests read ../shared/realdata beside the repository (participants' runs are never
copied into the project) and are skipped when it is absent.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irwarehouse.api import evaluate_files
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.formats.ntcir import FACTS, parse_nev, parse_nev_text
from irwarehouse.measures import (
    MeasureRequest,
    NtcirSettings,
    ntcir_label,
    parse_gains,
    parse_measures,
    registry,
)
from irwarehouse.writers.ntcireval import nev_text
from tests.helpers.ntcir import (
    NTCIR_PARAMS,
    SAMPLE190111,
    WWW4,
    WWW4_RUNS,
    assert_printed,
    need,
    www4_run_path,
)
from tests.helpers.paths import REALDATA
from tests.helpers.sql_cases import con, load
from tests.oracles.ntcireval_oracle import NoRelevantDocuments, evaluate_topic, nwrr


def _ntcir_default_set() -> list[str]:
    from irwarehouse.measures.resolve import _ntcir_set
    return [n for n in _ntcir_set("ntcireval") if n not in _ntcir_set("ntcir-facts")]




def nev_settings(gains: str, cutoffs: tuple) -> NtcirSettings:
    return NtcirSettings(gains=parse_gains(gains), cutoffs=cutoffs, prefer=True)


# ------------------------------------------------------------------------------ (a) golden


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("run", WWW4_RUNS)
def test_www4_official_nev_reproduced_by_sql(run):
    """`irw eval --format ntcireval --order file -g 1:2 --cutoffs 1,10` = the official .nev,
    byte for byte (50 topics x 52 values)."""
    expected_path = need(WWW4 / "expected_ntcireval" / f"{run}.waseda.nev")
    result = evaluate_files(need(WWW4 / "www4gold-corrected.qrels"), [www4_run_path(run)], [],
                            options=EvalOptions(order="file", depth=1000, complete=True),
                            qrels_format="ntcir_qrels", ntcir=nev_settings("1:2", (1, 10)))
    text = nev_text(result)
    expected = parse_nev(expected_path)
    got = parse_nev_text(text)
    assert list(got) == list(expected)
    n = sum(assert_printed(expected[t], got[t], f"{run}/{t}") for t in expected)
    assert n == 50 * 52
    assert text == expected_path.read_text()


@pytest.mark.realdata
def test_www4_cli_example(tmp_path):
    """The issue's example command line, through the CLI."""
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    qrels = need(WWW4 / "www4gold-corrected.qrels")
    run = www4_run_path("KASYS-CO-REV-6")
    out = CliRunner().invoke(app, ["eval", "--format", "ntcireval", "--order", "file",
                                   "-g", "1:2", "--cutoffs", "1,10", "--qrels-format",
                                   "ntcir_qrels", str(qrels), str(run)])
    assert out.exit_code == 0, out.output
    assert out.stdout == (WWW4 / "expected_ntcireval" / "KASYS-CO-REV-6.waseda.nev").read_text()


@pytest.mark.realdata
def test_www4_selected_measures_by_name():
    """-m with NTCIREVAL names in trec_eval output: per-topic values as in the .nev."""
    expected = parse_nev(need(WWW4 / "expected_ntcireval" / "KASYS-CO-REV-6.waseda.nev"))
    names = ["Q(beta=1)", "Q@10", "nERR@10", "MSnDCG@10", "P+", "ntcir:nDCG@0010", "Hit@1",
             "NCUrb,IE", "ntcir:RBP"]
    result = evaluate_files(WWW4 / "www4gold-corrected.qrels", [www4_run_path("KASYS-CO-REV-6")],
                            names, options=EvalOptions(order="file", depth=1000),
                            qrels_format="ntcir_qrels",
                            ntcir=NtcirSettings(gains={1: 1.0, 2: 2.0}))
    label = {"Q(beta=1)": "Q-measure", "Q@10": "Q@0010", "nERR@10": "nERR@0010",
             "MSnDCG@10": "MSnDCG@0010", "P+": "P-plus", "ntcir:nDCG@0010": "nDCG@0010",
             "Hit@1": "Hit@0001", "NCUrb,IE": "NCUrb,IE", "ntcir:RBP": "RBP"}
    rows = result.per_topic.to_pylist()
    assert len(rows) == 50 * len(names)
    for row in rows:
        want = expected[row["topic"]][label[row["measure"]]]
        assert "%.4f" % row["value"] == "%.4f" % want, row
    means = {r["measure"]: r["value"] for r in result.summary.to_pylist()}
    assert means["Q@10"] == pytest.approx(
        sum(expected[t]["Q@0010"] for t in expected) / 50, abs=0.5e-4)


@pytest.mark.realdata
def test_ntcireval_190111_trecrun_by_sql():
    """NTCIREVAL 190111 sample (-g 1:2 -cutoffs 10,1000): every value that build printed and the
    current one still computes (it printed P@k for Prec@k, and NCUgu,*)."""
    expected = parse_nev(need(SAMPLE190111 / "TRECRUN.test.nev"))
    # ntcir_eval's per-topic set (the catalog's set `ntcireval` without the facts)
    names = [r for r in _ntcir_default_set()] + ["NCUgu,P", "NCUgu,BR"]
    result = evaluate_files(SAMPLE190111 / "test.qrels", [SAMPLE190111 / "TRECRUN"], names,
                            options=EvalOptions(order="file", depth=1000, complete=True),
                            qrels_format="ntcir_qrels", ntcir=nev_settings("1:2", (10, 1000)))
    got = parse_nev_text(nev_text(result))
    assert sorted(got) == sorted(expected) == ["0001", "0002", "0003"]
    n = 0
    for topic, exp in expected.items():
        n += assert_printed(exp, got[topic], topic,
                                 rename=lambda k: "Prec@" + k[2:] if k.startswith("P@") else k)
    assert n == 3 * 38


@pytest.mark.realdata
@pytest.mark.parametrize("fname,gains,cutoffs,condensed", [
    ("res_test_compute.txt", {1: 1.0, 2: 2.0, 3: 3.0}, (1000,), False),
    ("res_test_compute_grade.txt", {1: 1.0, 2: 4.0, 3: 9.0}, (1000,), False),
    ("res_test_compute_cutoff.txt", {1: 1.0, 2: 2.0, 3: 3.0}, (2,), False),
    ("res_test_compute_label_j.txt", {1: 1.0, 2: 2.0, 3: 3.0}, (1000,), True),  # label -j
])
def test_pyntcireval_fixtures_by_sql(fname, gains, cutoffs, condensed):
    """NTCIREVAL 141207 outputs on its README toy example (P@k = Prec@k; NCUgu printed)."""
    from irwarehouse.formats.ntcir import read_rel
    rel = read_rel(need(REALDATA / "pyntcireval_tests" / "sample.rel"))
    res = (REALDATA / "pyntcireval_tests" / "sample.res").read_text().split()
    expected = parse_nev(REALDATA / "pyntcireval_tests" / fname)[""]
    reqs = []
    for name in expected:
        stem, at, k = name.partition("@")
        stem = "Prec" if stem == "P" else stem
        label = stem + ("@k" if at else "")
        reqs.append(request(label, gains=gains, **({"cutoff": int(k)} if at else {})))
    got = sql_values({"T": rel}, {"run": {"T": res}}, reqs, judged_only=condensed)[("run", "T")]
    n = assert_printed(expected, got, fname,
                            rename=lambda k: "Prec@" + k[2:] if k.startswith("P@") else k)
    assert n == 24


# ------------------------------------------------------------------------------ SQL harness

_NAMES = itertools.count()     # requests of one label stay apart in one evaluation


def request(label: str, **params) -> MeasureRequest:
    """A request for the NTCIREVAL measure printed as `label` (`Q-measure`, `nDCG@k`)."""
    mdef = next(m for m in registry().values() if label in dict(m.ntcir))
    defaults = {"gains": {}, "beta": 1.0, "gamma": 0.95, "p": 0.95, "rbu_p": 0.99, "logb": 2.0,
                "penalties": {1: 4.0, 2: 3.0, 3: 2.0}, "cutoff": None}
    args = tuple(params[p.name] if p.name in params else defaults[p.name] for p in mdef.params)
    return MeasureRequest(mdef, args, f"{label}#{params.get('cutoff', '')}#{next(_NAMES)}")


def sql_values(qrels, runs, requests, *, judged_only=False, depth=None):
    """{(run name, topic): {label: value}} for the given requests, file order, every judged
    topic (-c), as ntcir_eval."""
    qid, run_ids = load(qrels, runs, rising_scores=True)
    opts = EvalOptions(order="file", complete=True, judged_only=judged_only, depth=depth)
    result = evaluate(con(), run_ids, qid, requests, opts)
    labels = {r.name: ntcir_label(r.mdef, r.args) for r in requests}
    out: dict = {}
    for row in result.per_topic.to_pylist():
        out.setdefault((row["run"], row["topic"]), {})[labels[row["measure"]]] = row["value"]
    return out


def one(qrels_topic: dict[str, int], ranking: list[str], labels, **params) -> dict:
    """Values of one topic, one run."""
    reqs = []
    for label in labels:
        if label.endswith("@k"):
            reqs += [request(label, cutoff=k, **params) for k in params.get("cutoffs", (10,))]
        else:
            reqs.append(request(label, **{k: v for k, v in params.items() if k != "cutoffs"}))
    got = sql_values({"T": qrels_topic}, {"run": {"T": ranking}}, reqs)
    return got.get(("run", "T"), {})


ALL_LABELS = ([label for m in registry().values() for label, _ in m.ntcir
               if not label.endswith("@k")]
              + [label for m in registry().values() for label, _ in m.ntcir
                 if label.endswith("@k")])


# ------------------------------------------------------------------------------ (b) property


@st.composite
def random_case(draw):
    """1-3 topics: gains (non-decreasing), qrels over a pool of 14 docs with at least one
    relevant, a ranking in file order (no duplicates: the warehouse refuses them), cutoffs,
    the -J condensed list or not, and random beta, gamma, logb, RBP p and RBU p."""
    maxrl = draw(st.integers(1, 4))
    gains, acc = [], draw(st.integers(1, 3))
    for inc in draw(st.lists(st.integers(0, 3), min_size=maxrl, max_size=maxrl)):
        acc += inc
        gains.append(float(acc))
    pool = [f"d{i}" for i in range(14)]
    topics = {}
    for t in range(draw(st.integers(1, 3))):
        judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=12))
        qrels = {d: draw(st.integers(0, maxrl)) for d in judged}
        if not any(qrels.values()):
            qrels[judged[0]] = maxrl
        ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=14))
        topics[f"T{t}"] = (qrels, ranking)
    cutoffs = draw(st.lists(st.integers(1, 25), min_size=1, max_size=3, unique=True))
    condensed = draw(st.booleans())
    params = draw(NTCIR_PARAMS)
    return gains, topics, cutoffs, condensed, params


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_case())
def test_sql_matches_oracle_on_random_topics(case):
    """Every printed .nev value of ntcir_eval (facts exactly, metrics within 1e-9) and the
    extras R-measure and NWRR, SQL vs the oracle."""
    gains, topics, cutoffs, condensed, params = case
    gmap = {i: g for i, g in enumerate(gains, start=1)}
    sql_params = {"gains": gmap, "beta": params["beta"], "gamma": params["gamma"],
                  "logb": params["logb"], "p": params["rbp_p"], "rbu_p": params["rbu_p"]}
    reqs = []
    for label in ALL_LABELS:
        if label.endswith("@k"):
            reqs += [request(label, cutoff=k, **sql_params) for k in cutoffs]
        else:
            reqs.append(request(label, **sql_params))
    got = sql_values({t: q for t, (q, _) in topics.items()},
                     {"run": {t: r for t, (_, r) in topics.items() if r}}, reqs,
                     judged_only=condensed)
    for t, (qrels, ranking) in topics.items():
        bpref = condensed and any(lv == 0 for lv in qrels.values())   # as `compute -j`
        expected = evaluate_topic(ranking, qrels, gains, cutoffs=cutoffs, condensed=condensed,
                                  bpref=bpref, ncugu=True, **params)
        values = got[("run", t)]
        for name, want in expected.items():
            if name in FACTS:
                assert values[name] == want, (t, name)
            else:
                assert values[name] == pytest.approx(want, abs=1e-9, rel=1e-9), (t, name)
        # extras the oracle has: NWRR with the seed's default penalties (levels <= 3)
        if max(qrels.values()) <= 3 and not condensed:
            want = nwrr(ranking, qrels, [4, 3, 2])
            assert values["NWRR"] == pytest.approx(want, abs=1e-12)


def test_topics_without_relevant_documents_print_nothing():
    got = sql_values({"A": {"x": 0, "y": 0}, "B": {"z": 1}}, {"run": {"A": ["x"], "B": ["z"]}},
                     [request("Q-measure"), request("syslen")])
    assert sorted(got) == [("run", "B")]


def test_judged_topic_absent_from_run_scores_zero():
    got = sql_values({"A": {"a": 1}, "B": {"b": 2}}, {"run": {"A": ["a"]}},
                     [request("syslen"), request("Q-measure"), request("nDCG@k", cutoff=10)])
    assert got[("run", "B")] == {"syslen": 0, "Q-measure": 0.0, "nDCG@0010": 0.0}
    assert got[("run", "A")]["Q-measure"] == 1.0


# ------------------------------------------------------------------------------ (c) examples
# Seed 004 (Sakai, IPSJ TOD 2007): L1 = B, L2 = A, L3 = S; gains S=3, A=2, B=1; beta = 1.

G321 = {1: 1.0, 2: 2.0, 3: 3.0}


def run_of(*levels):
    docs = [f"d{i}" for i in range(1, len(levels) + 1)]
    return docs, {d: lv for d, lv in zip(docs, levels) if lv is not None}


def test_nwrr_s_at_rank3():
    docs, q = run_of(0, 0, 3)
    assert one(q, docs, ["NWRR"], gains=G321)["NWRR"] == pytest.approx(1 / 5, abs=1e-15)


def test_o_measure_single_s_doc_vs_three_s_docs():
    docs, q = run_of(0, 0, 3)
    assert one(q, docs, ["O-measure"], gains=G321)["O-measure"] == pytest.approx(2 / 3, abs=1e-15)
    q3 = dict(q, x1=3, x2=3)
    assert one(q3, docs, ["O-measure"], gains=G321)["O-measure"] == pytest.approx(1 / 3, abs=1e-15)


def test_topic3_o_p_pplus():
    rest = {"s": 3, "a": 2, "b": 1}
    assert one(rest, ["b"], ["O-measure"], gains=G321)["O-measure"] == pytest.approx(0.5, abs=1e-15)
    assert one(rest, ["n", "s"], ["O-measure"], gains=G321)["O-measure"] == pytest.approx(
        4 / 7, abs=1e-15)
    r = one(rest, ["b", "s"], ["r1", "rp", "P-measure"], gains=G321)
    assert (r["r1"], r["rp"]) == (1, 2)
    assert r["P-measure"] == pytest.approx(6 / 7, abs=1e-15)
    r = one(rest, ["b", "a", "s"], ["P-measure", "P-plus"], gains=G321)
    assert r["P-measure"] == pytest.approx(1.0, abs=1e-15)
    assert r["P-plus"] == pytest.approx((2 / 4 + 5 / 7 + 1) / 3, abs=1e-15)
    assert round(r["P-plus"], 3) == 0.738


def test_ntcir3_topic020_only_s_at_913():
    """10 S, 6 A, 36 B; only an S doc at rank 913: P+ = P = O = 4/991 (METRICS.md's 4/961 is
    an arithmetic slip of the seed: cg* = 30+12+36 = 78; both print 0.004)."""
    q = ({f"s{i}": 3 for i in range(10)} | {f"a{i}": 2 for i in range(6)}
         | {f"b{i}": 1 for i in range(36)})
    docs = [f"n{i}" for i in range(912)] + ["s0"]
    r = one(q, docs, ["O-measure", "P-measure", "P-plus"], gains=G321)
    for m in ("O-measure", "P-measure", "P-plus"):
        assert r[m] == pytest.approx(4 / 991, abs=1e-15)
        assert round(r[m], 3) == 0.004


def test_q_measure_definition_and_r_measure():
    q = {"s": 3, "a": 2, "b": 1}
    r = one(q, ["s", "n", "b"], ["Q-measure", "AP", "R-measure"], gains=G321)
    assert r["Q-measure"] == pytest.approx((4 / 4 + 6 / 9) / 3, abs=1e-15)
    assert r["AP"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    assert r["R-measure"] == pytest.approx((4 + 2) / (6 + 3), abs=1e-15)   # BR(3)


def test_seed003_ap_prec_ap_at():
    rel_ranks = {1, 3, 6, 10, 15}
    docs = [f"d{i}" for i in range(1, 16)]
    q = {f"d{i}": (1 if i in rel_ranks else 0) for i in range(1, 16)} | {f"x{i}": 1
                                                                          for i in range(5)}
    r = one(q, docs, ["AP", "Prec@k", "AP@k"], gains={1: 1.0}, cutoffs=(5, 10))
    assert r["AP"] == pytest.approx(0.29, abs=1e-15)
    assert r["Prec@0005"] == r["Prec@0010"] == 0.4
    assert r["AP@0005"] == pytest.approx((1 + 2 / 3) / 5, abs=1e-15)


def test_jk_ndcg_log2_example():
    """Seed 003: G = (1,0,1,0,0,3,0,0,0,2,0,0,0,0,3), b = 2: DCG(15) = 4.2 (1 decimal) and
    nDCG@15 = DCG/ideal DCG."""
    G = [1, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 3]
    docs = [f"d{i}" for i in range(1, 16)]
    q = dict(zip(docs, G))
    dcg = 1 + 1 / math.log2(3) + 3 / math.log2(6) + 2 / math.log2(10) + 3 / math.log2(15)
    assert round(dcg, 1) == 4.2
    ideal = sorted(G, reverse=True)
    idcg = sum(g / (1 if i <= 2 else math.log2(i)) for i, g in enumerate(ideal, start=1))
    r = one(q, docs, ["nDCG@k"], gains=G321, cutoffs=(15,))
    assert r["nDCG@0015"] == pytest.approx(dcg / idcg, abs=1e-12)
    # log base 10: no discount before rank 10
    r = one(q, docs, ["nDCG@k"], gains=G321, logb=10.0, cutoffs=(15,))
    dcg10 = sum(G[:10]) + 3 / math.log10(15)
    idcg10 = sum(ideal[:10])
    assert r["nDCG@0015"] == pytest.approx(dcg10 / idcg10, abs=1e-12)


def test_msndcg_gain3_at_rank7():
    docs = [f"n{i}" for i in range(6)] + ["s"]
    r = one({"s": 3}, docs, ["MSnDCG@k"], gains=G321, cutoffs=(10,))
    assert r["MSnDCG@0010"] == pytest.approx(1 / 3, abs=1e-15)


def test_err_seed_example_gains_2pow():
    g = {1: 1.0, 2: 3.0, 3: 7.0}
    r = one({"h": 3, "n": 0}, ["n", "h"], ["ERR"], gains=g)
    assert r["ERR"] == pytest.approx(0.875 / 2, abs=1e-15)
    r = one({"h1": 3, "h2": 3}, ["h1", "h2"], ["ERR"], gains=g)
    assert r["ERR"] == pytest.approx(0.875 + 0.109375 / 2, abs=1e-15)


# ------------------------------------------------------------------------------ properties


@st.composite
def graded_topic(draw):
    levels = draw(st.lists(st.integers(0, 3), min_size=1, max_size=12))
    assume(any(levels))
    docs = [f"d{i}" for i in range(len(levels))]
    qrels = dict(zip(docs, levels))
    extra = draw(st.lists(st.integers(1, 3), max_size=3))      # relevant docs never retrieved
    qrels |= {f"x{i}": lv for i, lv in enumerate(extra)}
    order = draw(st.permutations(docs))
    unjudged = draw(st.lists(st.integers(0, len(order)), max_size=3))
    ranking = list(order)
    for i, pos in enumerate(unjudged):
        ranking.insert(pos, f"u{i}")
    return qrels, ranking


PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(graded_topic())
def test_q_with_beta0_equals_ap(topic):
    qrels, ranking = topic
    r = one(qrels, ranking, ["Q-measure", "AP", "Q@k", "AP@k"], gains=G321, beta=0.0,
            cutoffs=(3, 10))
    assert r["Q-measure"] == pytest.approx(r["AP"], abs=1e-12)
    assert r["Q@0003"] == pytest.approx(r["AP@0003"], abs=1e-12)
    assert r["Q@0010"] == pytest.approx(r["AP@0010"], abs=1e-12)


@PROPERTY
@given(graded_topic())
def test_pplus_p_o_equal_when_rp_is_r1(topic):
    qrels, ranking = topic
    r = one(qrels, ranking, ["r1", "rp", "O-measure", "P-measure", "P-plus"], gains=G321)
    if r["r1"] == r["rp"]:
        assert r["P-plus"] == pytest.approx(r["P-measure"], abs=1e-12)
        assert r["P-measure"] == pytest.approx(r["O-measure"], abs=1e-12)


@PROPERTY
@given(graded_topic(), st.sampled_from([2.0, 0.0, 10.0]))
def test_ndcg_of_the_ideal_list_is_one(topic, logb):
    qrels, _ = topic
    ideal = sorted((d for d, lv in qrels.items() if lv > 0), key=lambda d: -qrels[d])
    r = one(qrels, ideal, ["nDCG@k", "MSnDCG@k", "nERR@k", "Q-measure"], gains=G321,
            logb=logb, cutoffs=(1, 5, 1000))
    for k in ("0001", "0005", "1000"):
        assert r[f"nDCG@{k}"] == pytest.approx(1.0, abs=1e-12)
        assert r[f"MSnDCG@{k}"] == pytest.approx(1.0, abs=1e-12)
        assert r[f"nERR@{k}"] == pytest.approx(1.0, abs=1e-12)
    assert r["Q-measure"] == pytest.approx(1.0, abs=1e-12)


@PROPERTY
@given(graded_topic(), st.data())
def test_moving_a_relevant_document_up_never_lowers(topic, data):
    """AP, Q, nDCG@k, RBP: swap a relevant document with the one just above it when that one
    has a lower level (a strictly better ranking)."""
    qrels, ranking = topic
    swaps = [i for i in range(1, len(ranking))
             if qrels.get(ranking[i], 0) > qrels.get(ranking[i - 1], 0)]
    assume(swaps)
    i = data.draw(st.sampled_from(swaps))
    better = ranking[:i - 1] + [ranking[i], ranking[i - 1]] + ranking[i + 1:]
    labels = ["AP", "Q-measure", "nDCG@k", "MSnDCG@k", "RBP", "Q@k"]
    before = one(qrels, ranking, labels, gains=G321, cutoffs=(3, 10))
    after = one(qrels, better, labels, gains=G321, cutoffs=(3, 10))
    for name, value in before.items():
        assert after[name] >= value - 1e-12, name


@PROPERTY
@given(graded_topic())
def test_condensed_equals_raw_on_fully_judged_lists(topic):
    """M' (-J, ntcir_eval `label -j`) = M when every retrieved document is judged; with
    unjudged documents, M' = M on the list without them."""
    qrels, ranking = topic
    judged = [d for d in ranking if d in qrels]
    reqs = [request(label, gains=G321, **({"cutoff": 5} if label.endswith("@k") else {}))
            for label in ALL_LABELS]
    raw = sql_values({"T": qrels}, {"run": {"T": judged}}, reqs)
    condensed = sql_values({"T": qrels}, {"run": {"T": ranking}}, reqs, judged_only=True)
    raw, condensed = raw[("run", "T")], condensed[("run", "T")]
    assert raw.keys() == condensed.keys()
    for name, value in raw.items():                 # N = 0: no bpref, bpref_N, rpref_N row
        assert (condensed[name] is None if value is None
                else condensed[name] == pytest.approx(value, abs=1e-12)), name


# ------------------------------------------------------------------------------ names


def test_ntcireval_names_resolve():
    s = NtcirSettings(gains={1: 1.0, 2: 2.0}, cutoffs=(1, 10))
    reqs = parse_measures(["Q(beta=1)", "Q@10", "nERR@10", "MSnDCG@10", "P+", "Q-measure",
                           "Q@0010", "nDCG@k", "Hit@10", "P-plus", "NWRR"], ntcir=s)
    macros = {r.name: r.mdef.kernel for r in reqs}
    # the Q family is one measure: Q-measure is Q without a cutoff, Q@10 Q at 10
    assert macros["Q(beta=1)"] == macros["Q-measure"] == macros["Q@10"] == \
        macros["Q@0010"] == "m_ntcir_q"
    assert macros["P+"] == macros["P-plus"] == "m_ntcir_pplus"
    assert macros["nDCG@1"] == macros["nDCG@10"] == "m_ntcir_ndcg_at"
    assert macros["NWRR"] == "m_ntcir_nwrr"
    by_name = {r.name: r for r in reqs}
    assert by_name["Q@10"].args == ({1: 1.0, 2: 2.0}, 1.0, 10)
    assert by_name["Q-measure"].args == ({1: 1.0, 2: 2.0}, 1.0, None)


def test_trec_eval_and_ir_measures_names_unchanged():
    reqs = parse_measures(["map", "P.10", "nDCG@10", "RBP", "AP", "RR", "P@5", "ndcg_cut.10",
                           "ERR@20"])
    # RBP and ERR@k are ir_measures' (issue 20): trectools' RBP with p = 0.8, gdeval's ERR
    assert {r.name: r.mdef.name for r in reqs} == {
        "map": "map", "P_10": "P", "nDCG@10": "ndcg_cut", "RBP": "trectools_RBP", "AP": "map",
        "RR": "recip_rank", "P@5": "P", "ndcg_cut_10": "ndcg_cut", "ERR@20": "gdeval_ERR"}
    # preferred (the .nev output): NTCIREVAL's meaning of the shared names
    pref = parse_measures(["nDCG@10", "RBP", "AP", "RR", "P@5"],
                          ntcir=NtcirSettings(prefer=True))
    names = [r.name for r in pref]
    assert names[:5] == list(FACTS)
    assert {"nDCG@0010", "RBP", "AP", "RR", "Prec@0005"} <= set(names)
    assert all(r.mdef.ntcir for r in pref)


def test_default_nev_set_is_ntcir_evals():
    reqs = parse_measures([], ntcir=NtcirSettings(cutoffs=(1, 10), prefer=True))
    assert len(reqs) == 5 + 13 + 2 * 17
    assert [r.name for r in reqs][5:8] == ["RR", "O-measure", "P-measure"]
    assert [r.name for r in reqs][-1] == "Hit@0010"


def test_parse_gains_forms():
    assert parse_gains("1:2") == {1: 1.0, 2: 2.0}
    assert parse_gains("1:3:7") == {1: 1.0, 2: 3.0, 3: 7.0}
    assert parse_gains("1:1,2:3,3:7") == {1: 1.0, 2: 3.0, 3: 7.0}
    assert parse_gains("L1:1,L2:3") == {1: 1.0, 2: 3.0}
    assert parse_gains("S:3,A:2,B:1") == {1: 1.0, 2: 2.0, 3: 3.0}
    assert parse_gains("exp:3") == {1: 1.0, 2: 3.0, 3: 7.0}
    assert parse_gains("level") == {}
    from irwarehouse.errors import MeasureError
    with pytest.raises(MeasureError):
        parse_gains("3:1")                      # L1=3 > L2=1: ntcir_eval refuses it


def test_gain_map_changes_values():
    q = {"a": 1, "b": 2}
    lin = one(q, ["a", "b"], ["Q-measure"], gains={1: 1.0, 2: 2.0})["Q-measure"]
    exp = one(q, ["a", "b"], ["Q-measure"], gains={1: 1.0, 2: 3.0})["Q-measure"]
    want = evaluate_topic(["a", "b"], q, [1, 3])["Q-measure"]
    assert exp == pytest.approx(want, abs=1e-15)
    assert lin != exp


def test_oracle_raises_where_sql_prints_nothing():
    with pytest.raises(NoRelevantDocuments):
        evaluate_topic(["a"], {"a": 0}, [1])


def test_warehouse_store_and_campaign_nev(tmp_path):
    """Stored runs: NTCIREVAL measures are materialised like any other; the .nev of a
    campaign equals the .nev of the files."""
    from irwarehouse.api import Warehouse
    qrels = tmp_path / "q.qrels"
    qrels.write_text("T1 a L2\nT1 b L1\nT1 c L0\nT2 d L1\nT3 e L0\n")
    run = tmp_path / "r.run"
    # a 6-field <SYSDESC> line, as WWW-4's: the CSV fast path must skip it too
    run.write_text("<SYSDESC>Revival of X-RUN-1 at NTCIR-15 WWW-3</SYSDESC>\n"
                   "T1 0 c 1 9.0 sys\nT1 0 a 2 8.0 sys\nT1 0 x 3 7.0 sys\nT1 0 b 4 6.0 sys\n"
                   "T3 0 e 1 1.0 sys\n")
    s = NtcirSettings(gains={1: 1.0, 2: 2.0}, cutoffs=(1, 10), prefer=True)
    opts = EvalOptions(order="file", depth=1000, complete=True)
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "c", fmt="ntcir_qrels")
        wh.ingest_run(run, "c")
        stored = wh.evaluate([], campaign="c", store=True, options=opts, ntcir=s)
        # stored under the canonical name (Q@0010, as NTCIREVAL prints it, is Q@10)
        n = wh.con.execute("SELECT count(*) FROM score WHERE measure = 'Q@10' "
                           "AND spelling = 'Q@0010'").fetchone()[0]
    files = evaluate_files(qrels, [run], [], options=opts, qrels_format="ntcir_qrels", ntcir=s)
    assert nev_text(stored) == nev_text(files)
    assert n == 2                                  # T1 and T2 (T3 has no relevant document)
    text = nev_text(files)
    assert text.startswith("T1 # syslen=4 jrel=2 jnonrel=1\nT1 # r1=2 rp=2\nT1 RR=")
    assert "T2 # syslen=0 jrel=1 jnonrel=0\n" in text
    assert "T3" not in text
    expected = evaluate_topic(["c", "a", "x", "b"], {"a": 2, "b": 1, "c": 0}, [1, 2],
                              cutoffs=[1, 10])
    got = parse_nev_text(text)["T1"]
    assert_printed(expected, got, "T1")


def test_condensed_bpref_family():
    """`label -j` + `compute -j`: u (unjudged) is dropped, n (L0) at 1, a (L1) at 2; R = 2 and
    N = 1. a has one non-relevant document above it, so bpref = (1 - 1/1)/2 = 0 and
    bpref_R = (1 - 1/2)/2."""
    q = {"a": 1, "n": 0, "b": 1}
    reqs = [request(label, gains={1: 1.0}) for label in ("syslen", "r1", "bpref", "bpref_R",
                                                         "bpref_N", "bpref_relative")]
    got = sql_values({"T": q}, {"run": {"T": ["u", "n", "a"]}}, reqs, judged_only=True)
    got = got[("run", "T")]
    assert (got["syslen"], got["r1"]) == (2, 2)
    assert got["bpref"] == 0.0
    assert got["bpref_R"] == pytest.approx(0.25, abs=1e-15)
    assert got["bpref_N"] == 0.0
    assert got["bpref_relative"] == 0.0
    want = evaluate_topic(["u", "n", "a"], q, [1], condensed=True)
    for name in ("bpref", "bpref_R", "bpref_N", "bpref_relative"):
        assert got[name] == pytest.approx(want[name], abs=1e-15)


@pytest.mark.realdata
@pytest.mark.parametrize("run", WWW4_RUNS)
def test_www4_per_topic_rel_res_files(run):
    """NTCIREVAL's per-topic files (.rel, .res of topic 0201) give the official block."""
    from irwarehouse.api import evaluate_rel_res
    d = need(WWW4 / "per_topic_sample" / "0201")
    text = evaluate_rel_res(d / "0201.waseda.rel", d / f"0201.{run}.res", gains={1: 1, 2: 2},
                            cutoffs=(1, 10), topic="0201")
    official = need(WWW4 / "expected_ntcireval" / f"{run}.waseda.nev").read_text()
    assert text == "".join(line + "\n" for line in official.splitlines()
                           if line.startswith("0201 "))


@pytest.mark.realdata
def test_pyntcireval_rel_res_condensed_with_bpref():
    """label -j | compute -j on the toy example: the SQL bpref family equals the oracle's."""
    from irwarehouse.api import evaluate_rel_res
    from irwarehouse.formats.ntcir import read_rel, read_res
    rel, res = (need(REALDATA / "pyntcireval_tests" / n) for n in ("sample.rel", "sample.res"))
    got = parse_nev_text(evaluate_rel_res(rel, res, gains={1: 1, 2: 2, 3: 3}, judged_only=True,
                                          measures=["ntcireval-j"]))[""]
    want = evaluate_topic(read_res(res), read_rel(rel), [1, 2, 3], condensed=True, bpref=True)
    assert list(got) == list(want)
    assert assert_printed(want, got, "sample -j") == 5 + 13 + 17 + 7


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("run", ["THUIR-CO-NEW-2", "baseline"])
def test_www4_condensed_with_bpref_matches_oracle(run):
    """`-J -m ntcireval-j` (label -j | compute -j, which has no official output) on real runs:
    the .nev text equals the oracle's, line for line, on all 50 topics."""
    from irwarehouse.writers.ntcireval import format_topic
    from tests.oracles.ntcireval_oracle import split_trec_run
    from tests.oracles.test_ntcireval_oracle import read_ntcir_qrels, read_run_lines
    qrels_path = need(WWW4 / "www4gold-corrected.qrels")
    run_path = www4_run_path(run)
    result = evaluate_files(qrels_path, [run_path], ["ntcireval-j"],
                            options=EvalOptions(order="file", depth=1000, complete=True,
                                                judged_only=True),
                            qrels_format="ntcir_qrels", ntcir=nev_settings("1:2", (1, 10)))
    qrels = read_ntcir_qrels(qrels_path)
    lines = read_run_lines(run_path)
    expected = []
    for topic in sorted(qrels):
        want = evaluate_topic(split_trec_run(lines, topic), qrels[topic], [1, 2],
                              cutoffs=[1, 10], condensed=True, bpref=True)
        expected += format_topic(topic, want)
    assert nev_text(result) == "".join(line + "\n" for line in expected)
