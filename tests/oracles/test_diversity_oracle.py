"""Golden tests of the diversity oracle against ndeval and NTCIREVAL outputs on real data.

The data lives beside the repository (<x>/shared/realdata next to <x>/main) and is read at test
time; nothing from it is committed here.
"""

from __future__ import annotations

import gzip
import math
import random
from pathlib import Path

import pytest

from tests.helpers.paths import REALDATA
from tests.oracles import diversity_oracle as oracle

TREC2012 = REALDATA / "trec2012_web_diversity"
NTCIR = REALDATA / "ntcireval_190111_sample"

RUNS = [
    f"{system}.results-{cat}{suffix}"
    for system in ("ql", "rm")
    for cat in ("cata", "catb")
    for suffix in ("", "-filtered")
]
MODES = {"c.traditional": {"traditional": True, "complete": True}, "default": {}}

needs_trec2012 = pytest.mark.skipif(not TREC2012.is_dir(), reason="shared realdata absent")
needs_ntcir = pytest.mark.skipif(not NTCIR.is_dir(), reason="shared realdata absent")


# ----------------------------------------------------------------------------- ndeval goldens


@pytest.fixture(scope="module")
def trec2012_qrels():
    with open(TREC2012 / "qrels" / "qrels-for-ndeval.txt") as f:
        return oracle.ndeval_read_qrels(f)


@pytest.mark.realdata
@pytest.mark.slow
@needs_trec2012
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("run", RUNS)
def test_ndeval_csv_reproduced(trec2012_qrels, run, mode):
    with gzip.open(TREC2012 / "runs" / f"{run}.txt.gz", "rt") as f:
        runid, rows = oracle.ndeval_run(trec2012_qrels, f, **MODES[mode])
    produced = oracle.ndeval_format_csv(runid, rows).splitlines()
    expected = (
        (TREC2012 / "expected_ndeval" / f"{run}.ndeval2012.{mode}.csv").read_text().splitlines()
    )
    assert produced[0] == expected[0]  # header
    assert len(produced) == len(expected)
    for got, want in zip(produced, expected):
        assert got == want  # every value, byte for byte at %.6f


def test_ndeval_hand_example():
    # two subtopics; d1 covers both, d2 covers 1, d3 covers 2
    judgments = {1: {"d1": 1, "d2": 2, "x": 0}, 2: {"d1": 1, "d3": 1}}
    ideal = oracle.ndeval_ideal_ranking(judgments)
    # rank 1: d1 (score 2); rank 2: d2 and d3 tie at 0.5, the larger docno (d3) wins
    assert ideal == ["d1", "d3", "d2"]
    values = oracle.ndeval_topic(["d2", "x", "d1"], judgments)
    # gains: r1 = 1, r2 = 0, r3 = 0.5 + 1 ; strec@5 = 2/2 ; P-IA@5 = 3 pairs / (5 * 2)
    assert values["strec@5"] == 1.0
    assert values["P-IA@5"] == pytest.approx(3 / 10)
    # alpha-nDCG@5 = sum ng(r)/log2(r+1) over the ideal's; ideal gains 2, 0.5, 0.5
    dcg = 1 + 0 + 1.5 / math.log2(4)
    idcg = 2 + 0.5 / math.log2(3) + 0.5 / math.log2(4)
    assert values["alpha-nDCG@5"] == pytest.approx(dcg / idcg)
    # MAP-IA: subtopic 1 (d2 @1, d1 @3): (1/1 + 2/3)/2 ; subtopic 2 (d1 @3): (1/3)/2
    assert values["MAP-IA"] == pytest.approx(((1 + 2 / 3) / 2 + (1 / 3) / 2) / 2)


# ----------------------------------------------------------------------------- NTCIREVAL goldens


def _read_ntcir_inputs():
    judgments: dict[str, dict[int, dict[str, int]]] = {}
    order: dict[str, list[tuple[int, str]]] = {}
    for line in (NTCIR / "Dtest.Dqrels").read_text().splitlines():
        tid, intent, doc, level = line.split()
        lv = int(level[1:])
        judgments.setdefault(tid, {}).setdefault(int(intent), {})[doc] = lv
        if 1 <= lv <= 9:
            order.setdefault(tid, []).append((int(intent), doc))
    probs: dict[str, dict[int, float]] = {}
    types: dict[str, dict[int, str]] = {}
    intent_order: dict[str, list[int]] = {}
    for line in (NTCIR / "Dtest.DINprob").read_text().splitlines():
        tid, intent, prob, kind = line.split()
        probs.setdefault(tid, {})[int(intent)] = float(prob)
        types.setdefault(tid, {})[int(intent)] = kind
        intent_order.setdefault(tid, []).append(int(intent))
    runs: dict[str, list[str]] = {}
    for line in (NTCIR / "TRECRUN").read_text().splitlines():
        parts = line.split()
        runs.setdefault(parts[0], []).append(parts[2])
    topics = {}
    for tid in sorted(probs):
        judg = {i: docs for i, docs in judgments[tid].items() if i != 0}
        topics[tid] = oracle.DiversityTopic(judg, probs[tid], types[tid], order.get(tid, []))
    return topics, {t: r[:1000] for t, r in runs.items()}, intent_order


def _parse_nev(path: Path) -> dict[str, dict[str, str]]:
    """Dnev/DINnev -> {topic: {metric: printed value}} (also syslen, jrel, r1, rp, intent_num)."""
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        tid, rest = line.split(None, 1)
        into = out.setdefault(tid, {})
        _parse_rest(rest, into)
    return out


def _parse_rest(rest: str, into: dict[str, str]) -> None:
    rest = rest.strip()
    if rest.startswith("#"):
        for item in rest.lstrip("#").split():
            key, value = item.split("=")
            into[key] = value
    else:
        key, value = rest.rsplit(None, 1)
        into[key.rstrip("=").strip()] = value


def _parse_nevia(path: Path):
    per_intent: dict[tuple[str, int], dict[str, str]] = {}
    summary: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts[1] == "SUMp=":
            summary.setdefault(parts[0], {})["SUMp"] = parts[2]
            summary[parts[0]][parts[3].rstrip("=")] = parts[4]
        else:
            into = per_intent.setdefault((parts[0], int(parts[1])), {"prob": parts[2]})
            _parse_rest(line.split(None, 3)[3], into)
    return per_intent, summary


def _check(expected: dict[str, str], computed: dict, label: str) -> int:
    checked = 0
    for key, want in expected.items():
        if key == "prob":
            continue
        got = computed[key]
        text = str(got) if isinstance(got, int) else f"{got:.4f}"
        assert text == want, f"{label} {key}: oracle {text} vs expected {want}"
        checked += 1
    return checked


@pytest.fixture(scope="module")
def ntcir_inputs():
    return _read_ntcir_inputs()


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
@pytest.mark.parametrize("family", ["Dnev", "DINnev"])
def test_ntcireval_d_din_files(ntcir_inputs, cutoff, family):
    topics, runs, intent_order = ntcir_inputs
    expected = _parse_nev(NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.{family}")
    assert sorted(expected) == sorted(topics)
    checked = 0
    for tid, topic in topics.items():
        result = oracle.ntcireval_topic(topic, runs[tid], cutoff, intent_order=intent_order[tid])
        checked += _check(expected[tid], result["D" if family == "Dnev" else "DIN"], tid)
    assert checked == sum(len(v) for v in expected.values())


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
def test_ntcireval_nevia_files(ntcir_inputs, cutoff):
    topics, runs, intent_order = ntcir_inputs
    per_intent, summary = _parse_nevia(NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.nevIA")
    checked = 0
    for tid, topic in topics.items():
        result = oracle.ntcireval_topic(topic, runs[tid], cutoff, intent_order=intent_order[tid])
        assert sorted(i for (t, i) in per_intent if t == tid) == sorted(result["IA"])
        for (t, intent), values in per_intent.items():
            if t == tid:
                checked += _check(values, result["IA"][intent], f"{tid}/{intent}")
        checked += _check(summary[tid], result["IA_mean"], tid)
    assert checked > 0


@pytest.mark.realdata
@needs_ntcir
def test_readme_diversity_worked_examples(ntcir_inputs):
    topics, runs, intent_order = ntcir_inputs
    r1 = oracle.ntcireval_topic(topics["0001"], runs["0001"], 10, intent_order=intent_order["0001"])
    assert "{:.4f}".format(r1["D"]["D#-Q@0010"]) == "0.3965"
    assert "{:.4f}".format(r1["D"]["D#-nDCG@0010"]) == "0.4376"
    assert "{:.4f}".format(r1["DIN"]["DIN#-nDCG@0010"]) == "0.3892"
    assert "{:.4f}".format(r1["DIN"]["DIN#-Q@0010"]) == "0.3647"
    assert "{:.4f}".format(r1["D"]["I-rec@n"]) == "0.6667"
    r2 = oracle.ntcireval_topic(topics["0002"], runs["0002"], 10, intent_order=intent_order["0002"])
    assert "{:.4f}".format(r2["IA_mean"]["SUMp"]) == "0.2000"
    assert "{:.4f}".format(r2["IA_mean"]["IA-ERR@0010"]) == "0.0167"
    assert "{:.4f}".format(r2["IA_mean"]["IA-nERR@0010"]) == "0.0241"
    assert "{:.4f}".format(r2["IA_mean"]["IA-MSnDCG@0010"]) == "0.0116"
    # the gcompute example on the untruncated list (README.diversity 4.3): glab of the full res
    gg = oracle.global_gains(topics["0001"])
    full = [oracle.printed4(gg[d]) if d in gg else None for d in runs["0001"]]
    res = oracle.gcompute(full, sorted(gg.values(), reverse=True), [10])
    assert (res["syslen"], res["r1"], res["rp"]) == (993, 3, 424)
    assert "{:.4f}".format(res["Q-measure"]) == "0.0989"
    assert "{:.4f}".format(res["AP"]) == "0.0919"
    assert "{:.4f}".format(res["P-plus"]) == "0.1617"


# ----------------------------------------------------------------------------- Sakai, IPSJ JIP 2013, Fig 1


def _fig1():
    # rank 1: L1 to i; rank 2: L3 to i and L1 to j; rank 3: nonrel; rank 4: L3 to j; rank 5: L1 to i
    judgments = {1: {"a": 1, "b": 3, "e": 1}, 2: {"b": 1, "d": 3}}
    topic = oracle.DiversityTopic(judgments, {1: 0.5, 2: 0.5}, {1: "inf", 2: "nav"})
    return topic, ["a", "b", "c", "d", "e"]


def test_seed001_fig1_effective_precision_and_rp():
    topic, ranking = _fig1()
    assert oracle.effective_precision(topic, ranking, 5) == pytest.approx(0.6)
    assert oracle.preferred_rank(topic.judgments[2], ranking, 5) == 4
    result = oracle.ntcireval_topic(topic, ranking, 5, compat=False)
    assert result["IA"][2]["rp"] == 4
    # P+ for j equals Q for j here (Sakai, IPSJ JIP 2013, section 3.2), so P+Q equals Q-IA
    assert result["IA"][2]["P-plus"] == pytest.approx(result["IA"][2]["Q@0005"])
    assert result["PQ"]["PplusQ@0005"] == pytest.approx(result["IA_mean"]["IA-Q@0005"])
    # DIN ignores the redundant nav doc at rank 4: its DIN global gain is 0
    din = oracle.din_gains(topic, ranking, compat=False)
    assert din[3] == 0.0 and din[1] == pytest.approx(0.5 * 3 + 0.5 * 1)


# ----------------------------------------------------------------------------- pyndeval property

pyndeval = None
try:  # optional test-only reference
    import pyndeval  # type: ignore[no-redef]
except ImportError:
    pass


@pytest.mark.skipif(pyndeval is None, reason="pyndeval not installed")
def test_oracle_matches_pyndeval_random():
    """Seeded random topics: the oracle equals pyndeval (ndeval's C core) on all 21 columns."""
    rng = random.Random(20240601)
    compared = 0
    for case in range(300):
        alpha = rng.choice([0.5, 0.5, 0.25, 0.3, 0.7, 0.9])
        beta = rng.choice([0.5, 0.5, 0.2, 0.8])
        n_docs = rng.randint(1, 30)
        docs = [f"doc{k:03d}" for k in range(n_docs)]
        qrels = {}
        for s in range(1, rng.randint(1, 6) + 1):
            judged = rng.sample(docs, rng.randint(1, n_docs))
            qrels[s] = {d: rng.choice([0, 0, 1, 2, 4]) for d in judged}
        if not any(v > 0 for j in qrels.values() for v in j.values()):
            continue  # nNRBP is 0/0 there
        pool = docs + [f"unj{k}" for k in range(5)]
        ranking = rng.sample(pool, rng.randint(1, len(pool)))
        ours = oracle.ndeval_topic(ranking, qrels, alpha=alpha, beta=beta)
        theirs = _pyndeval_topic(ranking, qrels, alpha, beta)
        for column in oracle.NDEVAL_COLUMNS:
            assert ours[column] == pytest.approx(theirs[column], abs=1e-12), (case, column)
            compared += 1
    assert compared > 5000


def _pyndeval_topic(ranking, qrels, alpha, beta):
    # qrels are passed in ascending subtopic order so pyndeval's id remapping keeps ndeval's
    # subtopic order; distinct scores fix the ranking (pyndeval breaks ties by docno ASCENDING,
    # ndeval -traditional by docno DESCENDING)
    q = [pyndeval.SubtopicQrel("1", str(s), d, lv) for s, j in qrels.items() for d, lv in j.items()]
    run = [pyndeval.ScoredDoc("1", d, float(len(ranking) - k)) for k, d in enumerate(ranking)]
    measures = [c for c in oracle.NDEVAL_COLUMNS]
    return pyndeval.ndeval(q, run, measures=measures, alpha=alpha, beta=beta)["1"]
