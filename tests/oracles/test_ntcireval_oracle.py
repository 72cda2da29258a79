"""Golden tests for the NTCIREVAL oracle (tests/oracles/ntcireval_oracle.py).

Real-data tests read ../shared/realdata beside the repository (never copied
into the project: the runs are NTCIR participants' data) and are skipped when
it is absent.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from irwarehouse.formats.ntcir import parse_nev, parse_nev_text
from irwarehouse.writers.ntcireval import format_nev, format_topic
from tests.helpers.ntcir import (
    NTCIR_PARAMS,
    PYNTCIREVAL,
    SAMPLE190111,
    WWW4,
    WWW4_RUNS,
    assert_printed,
    need,
    www4_run_path,
)
from tests.helpers.paths import REALDATA
from tests.oracles.ntcireval_oracle import (
    NoRelevantDocuments,
    dcg_log,
    evaluate_levels,
    evaluate_topic,
    label,
    nwrr,
    split_trec_run,
)


def read_ntcir_qrels(path: Path) -> dict[str, dict[str, int]]:
    """NTCIR qrels ``topic doc Lx`` -> {topic: {doc: level}}."""
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            t, d, lab = line.split()[:3]
            out.setdefault(t, {})[d] = int(lab[1:])
    return out


def read_rel(path: Path) -> dict[str, int]:
    """per-topic rel file ``doc Lx``."""
    return {ln.split()[0]: int(ln.split()[1][1:]) for ln in path.read_text().splitlines() if ln.strip()}


def read_run_lines(path: Path) -> list[str]:
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as f:
            return f.read().splitlines()
    return path.read_text().splitlines()




# ---------------------------------------------------------------- real data


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("run", WWW4_RUNS)
def test_www4_official_nev_reproduced(run):
    """NTCIR-16 WWW-4: TRECsplitruns (file order, first 1000) +
    ``compute -g 1:2 -cutoffs 1,10``; every value of all 50 topics."""
    nev = need(WWW4 / "expected_ntcireval" / f"{run}.waseda.nev")
    qrels = read_ntcir_qrels(need(WWW4 / "www4gold-corrected.qrels"))
    lines = read_run_lines(www4_run_path(run))
    expected = parse_nev(nev)
    assert len(expected) == 50
    got_all = {}
    n = 0
    for topic, exp in expected.items():
        got = evaluate_topic(split_trec_run(lines, topic), qrels[topic], gains=[1, 2],
                             cutoffs=[1, 10])
        n += assert_printed(exp, got, f"{run}/{topic}")
        got_all[topic] = got
    assert n == 50 * 52
    # the oracle's key order + the writer regenerate the official file byte for byte
    assert format_nev(got_all) == nev.read_text()


@pytest.mark.realdata
@pytest.mark.parametrize("run", WWW4_RUNS)
def test_www4_split_and_label_match_official_intermediates(run):
    """Topic 0201's official .res (TRECsplitruns output) and .lab (label output)."""
    d = need(WWW4 / "per_topic_sample" / "0201")
    lines = read_run_lines(www4_run_path(run))
    res = (d / f"0201.{run}.res").read_text().split("\n")[:-1]
    assert split_trec_run(lines, "0201") == res
    rel = read_rel(d / "0201.waseda.rel")
    lab = [ln.split(" ") for ln in (d / f"0201.{run}.waseda.lab").read_text().splitlines()]
    assert [x[0] for x in lab] == res
    assert label(res, rel) == [int(x[1][1:]) if len(x) > 1 else None for x in lab]


@pytest.mark.realdata
@pytest.mark.parametrize("name", [
    "ntcir16_www4_english/expected_ntcireval/KASYS-CO-REV-6.waseda.nev",
    "ntcir16_www4_english/expected_ntcireval/baseline.waseda.nev",
    "ntcireval_190111_sample/TRECRUN.test.nev",
])
def test_nev_roundtrip_byte_identical(name):
    path = need(REALDATA / name)
    text = path.read_text()
    assert format_nev(parse_nev_text(text)) == text


@pytest.mark.realdata
def test_ntcireval_190111_trecrun():
    """NTCIREVAL 190111 sample: ``-cutoffs 10,1000 -g 1:2``.  That build printed
    P@k (now Prec@k) and NCUgu,* and lacked NCUrb,IE, iRBU and the n*/NCU@k lines."""
    qrels = read_ntcir_qrels(need(SAMPLE190111 / "test.qrels"))
    lines = read_run_lines(need(SAMPLE190111 / "TRECRUN"))
    expected = parse_nev(SAMPLE190111 / "TRECRUN.test.nev")
    assert sorted(expected) == ["0001", "0002", "0003"]
    n = 0
    for topic, exp in expected.items():
        got = evaluate_topic(split_trec_run(lines, topic), qrels[topic], gains=[1, 2],
                             cutoffs=[10, 1000], ncugu=True)
        n += assert_printed(exp, got, topic, rename=lambda k: "Prec@" + k[2:] if k.startswith("P@") else k)
    assert n == 3 * 38


@pytest.mark.realdata
@pytest.mark.parametrize("fname,kwargs", [
    ("res_test_compute.txt", dict(gains=[1, 2, 3])),
    ("res_test_compute_grade.txt", dict(gains=[1, 4, 9])),
    ("res_test_compute_cutoff.txt", dict(gains=[1, 2, 3], cutoffs=[2])),
    # label -j (condensed list), compute without -j (so no bpref lines)
    ("res_test_compute_label_j.txt", dict(gains=[1, 2, 3], condensed=True, bpref=False)),
])
def test_pyntcireval_fixtures(fname, kwargs):
    """NTCIREVAL 141207 outputs on the README toy example (empty -out prefix)."""
    rel = read_rel(need(PYNTCIREVAL / "sample.rel"))
    res = (PYNTCIREVAL / "sample.res").read_text().split()
    expected = parse_nev(PYNTCIREVAL / fname)
    assert list(expected) == [""]
    got = evaluate_topic(res, rel, ncugu=True, **kwargs)
    n = assert_printed(expected[""], got, fname,
                rename=lambda k: "Prec@" + k[2:] if k.startswith("P@") else k)
    assert n == 24


@pytest.mark.realdata
def test_pyntcireval_label_outputs():
    rel = read_rel(need(PYNTCIREVAL / "sample.rel"))
    res = (PYNTCIREVAL / "sample.res").read_text().split()
    for fname, condensed in (("sample.lab", False), ("sample-j.lab", True)):
        lab = [ln.split() for ln in (PYNTCIREVAL / fname).read_text().splitlines()]
        assert label(res, rel, condensed=condensed) == [
            int(x[1][1:]) if len(x) > 1 else None for x in lab]


# ---------------------------------------------------------------- worked examples
# Seed 004 (Sakai, IPSJ TOD 2007): levels L1=B, L2=A, L3=S; gains S=3, A=2, B=1;
# beta = 1; WRR penalties S:2, A:3, B:4.

G321 = [1, 2, 3]


def run_of(*levels):
    """Ranked list d1..dn plus the partial qrels {di: level} for judged ranks."""
    docs = [f"d{i}" for i in range(1, len(levels) + 1)]
    return docs, {d: lv for d, lv in zip(docs, levels) if lv is not None}


def test_nwrr_s_at_rank3():
    docs, q = run_of(0, 0, 3)
    assert nwrr(docs, q, penalties=[4, 3, 2]) == pytest.approx(1 / 5, abs=1e-15)


def test_o_measure_single_s_doc_vs_three_s_docs():
    docs, q = run_of(0, 0, 3)
    assert evaluate_topic(docs, q, G321)["O-measure"] == pytest.approx(2 / 3, abs=1e-15)
    q3 = dict(q, x1=3, x2=3)  # >= 3 S docs in the topic
    assert evaluate_topic(docs, q3, G321)["O-measure"] == pytest.approx(1 / 3, abs=1e-15)


def test_topic3_o_p_pplus():
    rest = {"s": 3, "a": 2, "b": 1}
    # B at rank 1 -> O = (1+1)/(3+1)
    assert evaluate_topic(["b"], rest, G321)["O-measure"] == pytest.approx(0.5, abs=1e-15)
    # S at rank 2 -> O = (3+1)/(5+2)
    assert evaluate_topic(["n", "s"], rest, G321)["O-measure"] == pytest.approx(4 / 7, abs=1e-15)
    # B then S -> rp = 2, P = (4+2)/(5+2)
    r = evaluate_topic(["b", "s"], rest, G321)
    assert (r["r1"], r["rp"]) == (1, 2)
    assert r["P-measure"] == pytest.approx(6 / 7, abs=1e-15)
    # B, A, S (perfect inverse): P = 1, P+ = (2/4 + 5/7 + 1)/3 = 0.738
    r = evaluate_topic(["b", "a", "s"], rest, G321)
    assert r["P-measure"] == pytest.approx(1.0, abs=1e-15)
    assert r["P-plus"] == pytest.approx((2 / 4 + 5 / 7 + 1) / 3, abs=1e-15)
    assert round(r["P-plus"], 3) == 0.738


def test_ntcir3_topic020_only_s_at_913():
    """10 S, 6 A, 36 B; only an S doc at rank 913.  cg*(r>=52) = 30+12+36 = 78,
    so P+ = P = O = 4/991.  (The paper, and METRICS.md after it, write 48 and
    4/961: an arithmetic slip; both round to the paper's 0.004.)"""
    q = {f"s{i}": 3 for i in range(10)} | {f"a{i}": 2 for i in range(6)} | {f"b{i}": 1 for i in range(36)}
    docs = [f"n{i}" for i in range(912)] + ["s0"]
    r = evaluate_topic(docs, q, G321)
    for m in ("O-measure", "P-measure", "P-plus"):
        assert r[m] == pytest.approx(4 / 991, abs=1e-15)
        assert round(r[m], 3) == 0.004


def test_q_measure_definition_and_beta0_is_ap():
    # Q = (1/R) sum_rel BR(r); relevant L3 at 1, L1 at 3; R = 3 (S, A, B).
    q = {"s": 3, "a": 2, "b": 1}
    docs = ["s", "n", "b"]
    r = evaluate_topic(docs, q, G321)
    br1 = (3 + 1) / (3 + 1)
    br3 = (4 + 2) / (6 + 3)
    assert r["Q-measure"] == pytest.approx((br1 + br3) / 3, abs=1e-15)
    r0 = evaluate_topic(docs, q, G321, beta=0.0)
    assert r0["Q-measure"] == pytest.approx(r0["AP"], abs=1e-15)
    assert r0["AP"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)


def test_seed003_ap_and_precision():
    """R = 10, relevant at 1,3,6,10,15 -> P@5 = P@10 = 0.4.  AP is exactly
    (1 + 2/3 + 3/6 + 4/10 + 5/15)/10 = 0.29; the seed prints 0.28 because it
    sums the truncated terms 1 + 0.66 + 0.5 + 0.4 + 0.33 = 2.89 and truncates."""
    rel_ranks = {1, 3, 6, 10, 15}
    docs = [f"d{i}" for i in range(1, 16)]
    q = {f"d{i}": (1 if i in rel_ranks else 0) for i in range(1, 16)}
    q |= {f"x{i}": 1 for i in range(5)}  # 5 relevant docs never retrieved
    r = evaluate_topic(docs, q, [1], cutoffs=[5, 10])
    assert r["AP"] == pytest.approx(0.29, abs=1e-15)
    assert r["Prec@0005"] == r["Prec@0010"] == 0.4


def test_jk_dcg_example_log2():
    """Seed 003: G = (1,0,1,0,0,3,0,0,0,2,0,0,0,0,3), b = 2 ->
    DCG = (1.0,1.0,1.6,1.6,1.6,2.8,2.8,2.8,2.8,3.4,...,4.2) (1 decimal)."""
    G = [1, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 3]
    dcg, acc = [], 0.0
    for i, g in enumerate(G, start=1):
        acc += g / dcg_log(2.0, i)
        dcg.append(round(acc, 1))
    assert dcg == [1.0, 1.0, 1.6, 1.6, 1.6, 2.8, 2.8, 2.8, 2.8, 3.4, 3.4, 3.4, 3.4, 3.4, 4.2]
    # the same through nDCG@k: levels = gains, qrels = exactly these docs
    docs = [f"d{i}" for i in range(1, 16)]
    q = {d: g for d, g in zip(docs, G)}
    r = evaluate_topic(docs, q, [1, 2, 3], cutoffs=[15])
    ideal = sorted(G, reverse=True)
    idcg = sum(g / dcg_log(2.0, i) for i, g in enumerate(ideal, start=1))
    assert r["nDCG@0015"] * idcg == pytest.approx(
        1 + 1 / math.log2(3) + 3 / math.log2(6) + 2 / math.log2(10) + 3 / math.log2(15), abs=1e-12)


def test_msndcg_gain3_at_rank7():
    """METRICS.md: gain 3 at rank 7 adds 3/log2(8) = 1 -> with that doc alone
    relevant, MSnDCG@10 = 1 / (3/log2(2)) = 1/3."""
    docs = [f"n{i}" for i in range(6)] + ["s"]
    r = evaluate_topic(docs, {"s": 3}, G321, cutoffs=[10])
    assert r["MSnDCG@0010"] == pytest.approx(1 / 3, abs=1e-15)


def test_err_seed_example_gains_2pow():
    """With -g 1:3:7 ntcir_eval's stop probability g/(gmax+1) = (2^l - 1)/2^3.
    Highly relevant at rank 2: stop prob 0.8750 after a non-relevant rank 1,
    0.1094 after a highly relevant rank 1."""
    g = [1, 3, 7]
    r = evaluate_topic(["n", "h"], {"h": 3, "n": 0}, g, cutoffs=[2])
    assert r["ERR"] == pytest.approx(0.875 / 2, abs=1e-15)
    r = evaluate_topic(["h1", "h2"], {"h1": 3, "h2": 3}, g, cutoffs=[2])
    assert r["ERR"] == pytest.approx(0.875 + 0.109375 / 2, abs=1e-15)
    assert round(0.125 * 0.875, 4) == 0.1094


def test_rp_uses_whole_list_not_cutoff():
    """Seed 001 fn 6: L1 at 1, L2 at 5 and 10, L3 at 20 -> rp = 5 within the top
    10.  ntcir_eval has no P@k, it takes rp over the whole res file (20)."""
    levels = [0] * 20
    levels[0], levels[4], levels[9], levels[19] = 1, 2, 2, 3
    docs, q = run_of(*levels)
    assert evaluate_topic(docs[:10], q, G321)["rp"] == 5
    assert evaluate_topic(docs, q, G321)["rp"] == 20


# ---------------------------------------------------------------- quirks


def test_cutoff_ncu_divides_by_min_k_r():
    """NCUrb,P@k is sum / min(k, R), not sum / sum_{i<=R} gamma^(i-1)."""
    q = {f"r{i}": 1 for i in range(3)}
    docs = ["r0", "r1", "r2"]
    r = evaluate_topic(docs, q, [1], cutoffs=[10])
    assert r["NCUrb,P"] == pytest.approx(1.0, abs=1e-15)
    assert r["NCUrb,P@0010"] == pytest.approx((1 + 0.95 + 0.95**2) / 3, abs=1e-15)


def test_duplicates_count_twice_and_unjudged_like_l0():
    q = {"a": 1, "b": 1}
    r = evaluate_topic(["a", "a"], q, [1])
    assert r["AP"] == pytest.approx((1 + 1) / 2, abs=1e-15)  # second copy counts as relevant
    assert evaluate_topic(["u", "a"], q, [1]) == evaluate_topic(["z", "a"], dict(q, z=0), [1]) | {"jnonrel": 0}


def test_condensed_mode_and_bpref():
    q = {"a": 1, "n": 0, "b": 1}
    r = evaluate_topic(["u", "n", "a"], q, [1], condensed=True)
    assert r["syslen"] == 2 and r["r1"] == 2
    assert "bpref" in r
    assert r["bpref"] == pytest.approx((1 - 1 / 1) / 2, abs=1e-15)


def test_no_relevant_raises_and_empty_run():
    with pytest.raises(NoRelevantDocuments):
        evaluate_topic(["a"], {"a": 0}, [1])
    r = evaluate_topic([], {"a": 1}, [1, 2], cutoffs=[10])
    assert r["syslen"] == 0 and r["AP"] == 0.0 and r["nDCG@0010"] == 0.0


def test_writer_layout():
    lines = format_topic("0201", {"syslen": 3, "jrel": 2, "jnonrel": 1, "r1": 1, "rp": 2,
                                  "RR": 1.0, "Q@10": 0.5, "niRBU@10": 0.25, "Prec@12345": 0.1})
    assert lines == [
        "0201 # syslen=3 jrel=2 jnonrel=1",
        "0201 # r1=1 rp=2",
        "0201 RR=                  1.0000",
        "0201 Q@0010=              0.5000",
        "0201 niRBU@0010=          0.2500",
        "0201 Prec@12345=           0.1000",
    ]


def test_evaluate_levels_matches_evaluate_topic():
    q = {"a": 2, "b": 1, "c": 0}
    docs = ["c", "x", "a", "b"]
    assert evaluate_levels(label(docs, q), q.values(), [1, 2]) == evaluate_topic(docs, q, [1, 2])


# ---------------------------------------------------------------- differential (optional)
# Set IRW_NTCIR_EVAL to a locally built ntcir_eval binary (built outside the
# project from NTCIREVAL's ntcir_eval.c) to compare the oracle on random
# topics, including duplicates, unjudged docs, -j, odd cutoffs, empty runs.

import os
import subprocess
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NTCIR_EVAL = os.environ.get("IRW_NTCIR_EVAL")


@st.composite
def random_topic(draw):
    maxrl = draw(st.integers(1, 4))
    incs = draw(st.lists(st.integers(0, 3), min_size=maxrl, max_size=maxrl))
    gains, acc = [], draw(st.integers(1, 3))
    for inc in incs:
        acc += inc
        gains.append(acc)
    pool = [f"d{i}" for i in range(14)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=12))
    qrels = {d: draw(st.integers(0, maxrl)) for d in judged}
    if not any(qrels.values()):
        qrels[judged[0]] = maxrl
    ranking = draw(st.lists(st.sampled_from(pool), max_size=20))
    cutoffs = draw(st.lists(st.integers(1, 25), min_size=1, max_size=3, unique=True))  # dup cutoffs: C repeats the block, a dict cannot
    condensed = draw(st.booleans())
    params = draw(NTCIR_PARAMS)
    return gains, qrels, ranking, cutoffs, condensed, params


OPT = {"beta": "-beta", "gamma": "-gamma", "logb": "-logb", "rbp_p": "-rbp", "rbu_p": "-rbup"}


def _run_ntcir_eval(gains, qrels, ranking, cutoffs, condensed, bpref, params):
    with tempfile.TemporaryDirectory() as tmp:
        rel = Path(tmp) / "t.rel"
        rel.write_text("".join(f"{d} L{lv}\n" for d, lv in qrels.items()))
        lab = subprocess.run([NTCIR_EVAL, "label", *(["-j"] if condensed else []), "-r", str(rel)],
                             input="".join(d + "\n" for d in ranking), capture_output=True,
                             text=True, check=True).stdout
        cmd = [NTCIR_EVAL, "compute", "-r", str(rel), "-g", ":".join(map(str, gains)),
               "-cutoffs", ",".join(map(str, cutoffs)), "-out", "T", *(["-j"] if bpref else [])]
        for k, v in params.items():
            cmd += [OPT[k], repr(v)]
        return subprocess.run(cmd, input=lab, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(not NTCIR_EVAL, reason="set IRW_NTCIR_EVAL to an ntcir_eval binary")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_topic())
def test_differential_against_ntcir_eval_binary(topic):
    gains, qrels, ranking, cutoffs, condensed, params = topic
    bpref = condensed and any(lv == 0 for lv in qrels.values())
    expected = _run_ntcir_eval(gains, qrels, ranking, cutoffs, condensed, bpref, params)
    got = evaluate_topic(ranking, qrels, gains, cutoffs=cutoffs, condensed=condensed, bpref=bpref,
                         **params)
    assert "\n".join(format_topic("T", got)) + "\n" == expected
