"""Slow, obviously-correct pure-Python oracle of the diversity evaluators.

Two reference tools are mirrored, loop for loop, so that the oracle reproduces their printed
outputs exactly (see docs/diversity_semantics.md for the digest):

* ndeval (TREC Web track 2009-2014, version 4.4/4.5): ERR-IA@k, nERR-IA@k, alpha-DCG@k,
  alpha-nDCG@k, NRBP, nNRBP, MAP-IA, P-IA@k, strec@k.
* NTCIREVAL 190111 (Sakai): ``ntcir_eval gcompute`` on global gains (D-measures), on DIN global
  gains (DIN-measures) and on per-intent gains (IA metrics), ``ntcir_eval irec`` (I-rec), the
  D#/DIN#/P+Q# combinations formed by its shell scripts, and P+Q.

Nothing here is fast; the SQL implementations are tested against it.  The code was written from
the tools' documented behaviour and a reading of their sources; none of it is copied.

Inputs per topic are plain Python values:
  ranking      list of docnos, best first (already ordered and truncated as the tool would)
  judgments    {intent: {docno: level}}  (level an int; > 0 means relevant)
  probs        {intent: Pr(i|q)}
  types        {intent: "inf" | "nav"}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------------------------
# ndeval
# ---------------------------------------------------------------------------------------------

NDEVAL_DEPTH = 20  # ndeval's DEPTH: alpha-nDCG, ERR-IA, P-IA, strec exist only for ranks 1..20
# ndeval's columns, written again on purpose (irwarehouse.writers.ndeval has them too): the oracle
# shares no code with the package it checks.
NDEVAL_COLUMNS = (
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20",
    "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20",
    "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA",
    "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
)  # fmt: skip


def ndeval_discount(i: int) -> float:
    """ndeval's discount for 0-based position i: 1 at rank 1, log(2)/log(i+2) after."""
    if i <= 0:
        return 1.0
    return math.log(2.0) / math.log(i + 2.0)


def _binary_subtopic_rel(judgments: dict[int, dict[str, int]]) -> tuple[list[int], dict]:
    """Subtopic ids in ascending order and {docno: {subtopic: 0/1}}.

    ndeval clips every judgment to binary (``judgment > 1 -> 1``); negative levels are a syntax
    error there, so callers must map them (e.g. spam -2) to 0 beforehand.
    """
    subtopics = sorted(judgments)
    rel: dict[str, dict[int, int]] = {}
    for s in subtopics:
        for doc, level in judgments[s].items():
            if level < 0:
                raise ValueError("ndeval rejects negative judgments")
            rel.setdefault(doc, {})[s] = 1 if level > 0 else 0
    return subtopics, rel


def _doc_key(docno: str) -> bytes:
    # C strcmp compares unsigned bytes; UTF-8 byte order equals code point order anyway.
    return docno.encode("utf-8")


def ndeval_ideal_ranking(judgments: dict[int, dict[str, int]], alpha: float = 0.5) -> list[str]:
    """ndeval's greedy ideal list (idealResult).

    At each rank pick the unranked doc with the largest novelty score
    ``sum_j rel_j(d) * (1-alpha)^{times j already covered}`` (summed in subtopic order); a tie
    goes to the LARGER docno (strcmp > 0).  The greedy runs over the whole judged pool; docs
    relevant to no subtopic always score 0 and change no metric, so they are left out here.
    """
    subtopics, rel = _binary_subtopic_rel(judgments)
    candidates = sorted((d for d, r in rel.items() if any(r.values())), key=_doc_key)
    gain = {s: 1.0 for s in subtopics}
    ideal: list[str] = []
    unranked = list(candidates)  # ascending docno, as ndeval's qrels list
    while unranked:
        where = None
        best = 0.0
        for doc in unranked:
            score = 0.0
            for s in subtopics:
                if rel[doc].get(s, 0):
                    score += gain[s]
            if where is None or score > best or (score == best and _doc_key(doc) > _doc_key(where)):
                best, where = score, doc
        ideal.append(where)
        unranked.remove(where)
        for s in subtopics:
            if rel[where].get(s, 0):
                gain[s] *= 1.0 - alpha
    return ideal


@dataclass
class _NdevalList:
    dcg: list[float] = field(default_factory=lambda: [0.0] * NDEVAL_DEPTH)
    err: list[float] = field(default_factory=lambda: [0.0] * NDEVAL_DEPTH)
    nrbp: float = 0.0


def _ndeval_gain_list(ranking, subtopics, rel, n_actual, alpha, beta) -> _NdevalList:
    """computeDCG / computeERR / computeNRBP for one ordered list (run or ideal)."""
    out = _NdevalList()
    if n_actual == 0:
        return out
    # novelty-discounted gain of each position: sum_j I_j(r) (1-alpha)^{C_j(r-1)}
    gain = {s: 1.0 for s in subtopics}
    scores = []
    for doc in ranking:
        score = 0.0
        for s in subtopics:
            if rel.get(doc, {}).get(s, 0):
                score += gain[s]
                gain[s] *= 1.0 - alpha
        scores.append(score)
    # alpha-DCG and ERR-IA: cumulative sums divided by the "ideal ideal" list in which every
    # rank covers all N subtopics once more: N (1-alpha)^(r-1) (Clarke et al. 2009 normalisation)
    ideal_ideal_dcg, ideal_ideal_err = [], []
    ii_gain = float(n_actual)
    for i in range(NDEVAL_DEPTH):
        ideal_ideal_dcg.append(ii_gain * ndeval_discount(i))
        ideal_ideal_err.append(ii_gain / (i + 1))
        ii_gain *= 1.0 - alpha
    for i in range(min(NDEVAL_DEPTH, len(scores))):
        out.dcg[i] = scores[i] * ndeval_discount(i)
        out.err[i] = scores[i] / (i + 1)
    for i in range(1, NDEVAL_DEPTH):
        out.dcg[i] += out.dcg[i - 1]
        ideal_ideal_dcg[i] += ideal_ideal_dcg[i - 1]
        out.err[i] += out.err[i - 1]
        ideal_ideal_err[i] += ideal_ideal_err[i - 1]
    for i in range(1, NDEVAL_DEPTH):  # ndeval starts at 1: rank 1 is never divided
        out.dcg[i] /= ideal_ideal_dcg[i]
        out.err[i] /= ideal_ideal_err[i]
    # NRBP (Clarke et al. ICTIR 2009) over the WHOLE list, not only the top 20
    decay = 1.0
    total = 0.0
    for score in scores:
        total += score * decay
        decay *= beta
    out.nrbp = total * ((1 - (1 - alpha) * beta) / n_actual)
    return out


def ndeval_topic(
    ranking: list[str],
    judgments: dict[int, dict[str, int]],
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
) -> dict[str, float]:
    """All ndeval measures for one topic that is in the qrels.

    ``ranking`` is the run's docs in ndeval's order (see ``ndeval_order``), ``judgments`` the
    topic's qrels {subtopic: {docno: level}}.  Subtopics without a relevant doc are ignored
    (actualSubtopics); a topic without any gives 0 everywhere and nNRBP = nan (ndeval divides
    0 by 0).
    """
    subtopics, rel = _binary_subtopic_rel(judgments)
    nrel_sub = {s: sum(1 for d in judgments[s] if rel[d][s]) for s in subtopics}
    n_actual = sum(1 for s in subtopics if nrel_sub[s])

    ideal = ndeval_ideal_ranking(judgments, alpha)
    ideal_list = _ndeval_gain_list(ideal, subtopics, rel, n_actual, alpha, beta)
    run_list = _ndeval_gain_list(ranking, subtopics, rel, n_actual, alpha, beta)

    ndcg = [0.0] * NDEVAL_DEPTH
    nerr = [0.0] * NDEVAL_DEPTH
    for i in range(NDEVAL_DEPTH):
        if run_list.dcg[i]:  # ndeval renormalises only non-zero values
            ndcg[i] = run_list.dcg[i] / ideal_list.dcg[i]
            nerr[i] = run_list.err[i] / ideal_list.err[i]
    nnrbp = run_list.nrbp / ideal_list.nrbp if ideal_list.nrbp else math.nan

    # subtopic recall and intent-aware precision over the top 20 (P-IA divides by k even when
    # the run is shorter than k)
    strec = [0.0] * NDEVAL_DEPTH
    prec = [0.0] * NDEVAL_DEPTH
    map_ia = 0.0
    if n_actual:
        seen: set[int] = set()
        pairs = 0
        for i in range(NDEVAL_DEPTH):
            if i < len(ranking):
                for s in subtopics:
                    if rel.get(ranking[i], {}).get(s, 0):
                        seen.add(s)
                        pairs += 1
            strec[i] = len(seen) / n_actual
            prec[i] = pairs / ((i + 1) * n_actual)
        # MAP-IA: per-subtopic AP over the whole run (denominator = that subtopic's relevant
        # count in the qrels), averaged over the N subtopics with relevant docs
        count = {s: 0 for s in subtopics}
        total = {s: 0.0 for s in subtopics}
        for i, doc in enumerate(ranking):
            for s in subtopics:
                if rel.get(doc, {}).get(s, 0):
                    count[s] += 1
                    total[s] += count[s] / (i + 1)
        for s in subtopics:
            if nrel_sub[s]:
                map_ia += total[s] / nrel_sub[s]
        map_ia /= n_actual

    values = [
        run_list.err[4], run_list.err[9], run_list.err[19],
        nerr[4], nerr[9], nerr[19],
        run_list.dcg[4], run_list.dcg[9], run_list.dcg[19],
        ndcg[4], ndcg[9], ndcg[19],
        run_list.nrbp, nnrbp, map_ia,
        prec[4], prec[9], prec[19],
        strec[4], strec[9], strec[19],
    ]  # fmt: skip
    return dict(zip(NDEVAL_COLUMNS, values))


def ndeval_parse_topic(field_value: str) -> int:
    """parseTopic: a leading non-digit prefix up to '-' (e.g. 'wt09-') is dropped."""
    if field_value[:1].isdigit():
        return int(field_value)
    return int(field_value.split("-", 1)[1])


def ndeval_order(rows: list[tuple[str, int, float]], *, traditional: bool) -> list[str]:
    """One topic's run rows (docno, rank, score) -> docnos in ndeval's evaluation order.

    default: by the rank field (duplicate ranks are an error in ndeval);
    -traditional: score descending, then docno descending (strcmp(b, a)), as trec_eval.
    """
    if traditional:
        ordered = sorted(rows, key=lambda r: _doc_key(r[0]), reverse=True)
        ordered.sort(key=lambda r: r[2], reverse=True)  # stable: docno desc within equal score
    else:
        ranks = [r[1] for r in rows]
        if len(set(ranks)) != len(ranks):
            raise ValueError("duplicate rank")
        ordered = sorted(rows, key=lambda r: r[1])
    docs = [r[0] for r in ordered]
    if len(set(docs)) != len(docs):
        raise ValueError("duplicate docno")
    return docs


def ndeval_read_qrels(lines) -> dict[int, dict[int, dict[str, int]]]:
    qrels: dict[int, dict[int, dict[str, int]]] = {}
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        topic, subtopic, docno, level = int(parts[0]), int(parts[1]), parts[2], int(parts[3])
        qrels.setdefault(topic, {}).setdefault(subtopic, {})[docno] = level
    return qrels


def ndeval_run(
    qrels: dict[int, dict[int, dict[str, int]]],
    run_lines,
    *,
    traditional: bool = False,
    complete: bool = False,
    alpha: float = 0.5,
    beta: float = 0.5,
    depth: int = 0,
) -> tuple[str, list[tuple[str, dict[str, float]]]]:
    """Whole-run ndeval: (runid, [(topic label, values), ..., ('amean', values)]).

    One row per RUN topic in ascending topic number; run topics missing from the qrels give a
    row of zeros.  amean divides the column sums by the number of topics in both run and qrels,
    or with ``complete`` (-c) by the number of qrels topics.
    """
    per_topic: dict[int, list[tuple[str, int, float]]] = {}
    runid = None
    for line in run_lines:
        parts = line.split()
        if not parts:
            continue
        if runid is None:
            runid = parts[5]
        per_topic.setdefault(ndeval_parse_topic(parts[0]), []).append(
            (parts[2], int(parts[3]), float(parts[4]))
        )
    rows = []
    matched = 0
    for topic in sorted(per_topic):
        ranking = ndeval_order(per_topic[topic], traditional=traditional)
        if depth > 0:
            ranking = ranking[:depth]
        if topic in qrels:
            matched += 1
            rows.append((str(topic), ndeval_topic(ranking, qrels[topic], alpha=alpha, beta=beta)))
        else:
            rows.append((str(topic), {c: 0.0 for c in NDEVAL_COLUMNS}))
    n = len(qrels) if complete else matched
    if n:
        mean = {c: sum(v[c] for _, v in rows) / n for c in NDEVAL_COLUMNS}
        rows.append(("amean", mean))
    else:  # ndeval prints a row of "0.00" and no topic rows
        rows = [("amean", {c: 0.0 for c in NDEVAL_COLUMNS})]
    return runid or "", rows


def ndeval_format_csv(runid: str, rows) -> str:
    """The exact CSV ndeval prints (header, '%.6f' values, last row 'amean'); with no topic
    evaluated (only the amean row), ndeval.c's outputMeasures prints `0.00` per column."""
    out = ["runid,topic," + ",".join(NDEVAL_COLUMNS)]
    if [topic for topic, _ in rows] == ["amean"]:
        return "\n".join(out + [",".join([runid, "amean"] + ["0.00"] * len(NDEVAL_COLUMNS))]) \
            + "\n"
    for topic, values in rows:
        out.append(",".join([runid, topic] + [f"{values[c]:.6f}" for c in NDEVAL_COLUMNS]))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# NTCIREVAL: gcompute on gain lists
# ---------------------------------------------------------------------------------------------

GCOMPUTE_PLAIN = (
    "RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUrb,P", "NCUrb,BR",
    "RBP", "ERR", "EBR",
)  # fmt: skip
GCOMPUTE_AT = ("AP", "Q", "nDCG", "MSnDCG", "P", "RBP", "ERR", "nERR", "EBR", "Hit")


def orig_dcglog(base: float, i: int) -> float:
    """Jarvelin-Kekalainen discount: no discount for rank i <= base, log_base(i) after."""
    if i == 1 or i <= base:
        return 1.0
    if base == 0:
        return math.log(i)
    return math.log(i) / math.log(base)


def gcompute(
    sys_gains: list[float | None],
    ideal_gains: list[float],
    cutoffs: list[int],
    *,
    beta: float = 1.0,
    gamma: float = 0.95,
    rbp_p: float = 0.95,
    logbase: float = 2.0,
) -> dict[str, float | int]:
    """``ntcir_eval gcompute`` (190111): metrics of a gain-labelled list against an ideal list.

    sys_gains: gain of each retrieved doc (None/0 = unjudged or non-relevant); a doc counts as
    relevant (J(r) = 1) iff its gain is > 0.  ideal_gains: the ideal list's gains in decreasing
    order (zeros, i.e. judged non-relevant, at the bottom).  Keys: 'syslen', 'jrel', 'jnonrel',
    'r1', 'rp', the names of GCOMPUTE_PLAIN and 'X@%04d' for X in GCOMPUTE_AT.
    """
    ideal = [g for g in ideal_gains if g > 0]  # gcompute walks only the first R entries
    jrel, jnonrel = len(ideal), len(ideal_gains) - len(ideal)
    if jrel == 0:
        raise ValueError("gcompute: no relevant document")  # it prints nothing
    hgain = max(ideal)
    syslen = len(sys_gains)
    maxlen = max(jrel, syslen)
    gains = [0.0] + [g if g is not None and g > 0 else 0.0 for g in sys_gains]
    sysgainmax = max([0.0] + [g for g in sys_gains if g is not None])

    # ideal cumulative arrays, index 1..maxlen (flat after rank R)
    CGi, DCGi, msDCGi, ERRi = ([0.0] * (maxlen + 1) for _ in range(4))
    dsat_i = 1.0
    for i in range(1, maxlen + 1):
        g = ideal[i - 1] if i <= jrel else None
        if g is None:
            CGi[i], DCGi[i], msDCGi[i], ERRi[i] = (
                CGi[i - 1],
                DCGi[i - 1],
                msDCGi[i - 1],
                ERRi[i - 1],
            )
            continue
        CGi[i] = CGi[i - 1] + g
        DCGi[i] = DCGi[i - 1] + g / orig_dcglog(logbase, i)
        msDCGi[i] = msDCGi[i - 1] + g / math.log(i + 1)
        ERRi[i] = ERRi[i - 1] + (dsat_i / i) * (g / (hgain + 1))
        dsat_i = dsat_i * (1 - g / (hgain + 1))

    count, CGs, DCGs, msDCGs, BR, RBPsum, ERR, EBR = ([0.0] * (maxlen + 1) for _ in range(8))
    r1 = rp = 0
    dsat = 1.0
    power = 1.0  # p^(r-1), by repeated multiplication as ntcir_eval does
    for i in range(1, maxlen + 1):
        if i > syslen:  # beyond the list: cumulative values stay flat, BR is never used
            for arr in (count, CGs, DCGs, msDCGs, ERR, EBR, RBPsum):
                arr[i] = arr[i - 1]
            continue
        g = gains[i]
        if g > 0.0:
            count[i] = count[i - 1] + 1
            CGs[i] = CGs[i - 1] + g
            DCGs[i] = DCGs[i - 1] + g / orig_dcglog(logbase, i)
            msDCGs[i] = msDCGs[i - 1] + g / math.log(i + 1)
            if count[i] == 1:
                r1 = i
            if rp == 0 and g == sysgainmax:  # preferred rank: first doc with the list's top gain
                rp = i
        else:
            count[i], CGs[i], DCGs[i], msDCGs[i] = (
                count[i - 1],
                CGs[i - 1],
                DCGs[i - 1],
                msDCGs[i - 1],
            )
        # blended ratio (Sakai): (beta CG(r) + C(r)) / (beta CG*(r) + r)
        BR[i] = (beta * CGs[i] + count[i]) / (beta * CGi[i] + i)
        if i > 1:
            power = rbp_p * power
        RBPsum[i] = RBPsum[i - 1] + g * power
        # ERR with stopping probability g/(hgain+1) (CIKM09 eq 4 with NTCIREVAL's +1)
        ERR[i] = ERR[i - 1] + (dsat / i) * (g / (hgain + 1))
        EBR[i] = EBR[i - 1] + BR[i] * dsat * g / (hgain + 1)
        dsat = dsat * (1 - g / (hgain + 1))

    out: dict[str, float | int] = {
        "syslen": syslen, "jrel": jrel, "jnonrel": jnonrel, "r1": r1, "rp": rp,
    }  # fmt: skip
    if r1 == 0:
        out.update({"RR": 0.0, "O-measure": 0.0, "P-measure": 0.0, "P-plus": 0.0})
    else:
        out["RR"] = 1 / r1
        out["O-measure"] = BR[r1]
        out["P-measure"] = BR[rp]
        total = 0.0
        for i in range(1, rp + 1):
            if gains[i] > 0:
                total += BR[i]
        out["P-plus"] = total / count[rp]
    ap_sum = q_sum = 0.0
    for i in range(1, syslen + 1):
        if gains[i] > 0:
            ap_sum += count[i] / i
            q_sum += BR[i]
    out["AP"] = ap_sum / jrel
    out["Q-measure"] = q_sum / jrel
    denom = 0.0
    for i in range(1, jrel + 1):
        denom += math.pow(gamma, i - 1)
    ncu_p = ncu_br = 0.0
    for i in range(1, syslen + 1):
        if gains[i] > 0:
            ncu_p += (count[i] / i) * math.pow(gamma, count[i] - 1)
            ncu_br += BR[i] * math.pow(gamma, count[i] - 1)
    out["NCUrb,P"] = ncu_p / denom
    out["NCUrb,BR"] = ncu_br / denom
    out["RBP"] = (1 - rbp_p) * RBPsum[syslen] / hgain
    out["ERR"] = ERR[syslen]
    out["EBR"] = EBR[syslen]

    for cutoff in cutoffs:
        tag = f"@{cutoff:04d}"
        minlen = min(cutoff, syslen)
        ap_sum = q_sum = 0.0
        for j in range(1, minlen + 1):
            if gains[j] > 0:
                ap_sum += count[j] / j
                q_sum += BR[j]
        # divide by min(l, R)
        div = min(jrel, cutoff)
        out["AP" + tag] = ap_sum / div
        out["Q" + tag] = q_sum / div
        k = min(cutoff, maxlen)  # arrays end at maxlen
        out["nDCG" + tag] = DCGs[k] / DCGi[k]
        out["MSnDCG" + tag] = msDCGs[k] / msDCGi[k]
        out["P" + tag] = count[k] / cutoff
        out["RBP" + tag] = (1 - rbp_p) * RBPsum[k] / hgain
        out["ERR" + tag] = ERR[k]
        out["nERR" + tag] = ERR[k] / ERRi[k]
        out["EBR" + tag] = EBR[k]
        out["Hit" + tag] = 1.0 if count[k] > 0 else 0.0
    return out


def irec(ranking: list[str], intent_docs: list[set[str]], cutoffs: list[int]) -> dict[str, float]:
    """``ntcir_eval irec``: share of intents (those with >= 1 relevant doc) covered by the top l.

    'I-rec@n' uses l = n = number of intents; the cutoff saturates at the list length.
    """
    n = len(intent_docs)

    def at(k: int) -> float:
        covered = sum(1 for docs in intent_docs if any(d in docs for d in ranking[:k]))
        return covered / n

    out = {"intent_num": n, "I-rec@n": at(n)}
    for c in cutoffs:
        out[f"I-rec@{c:04d}"] = at(c)
    return out


# ---------------------------------------------------------------------------------------------
# NTCIREVAL: per-topic diversity measures
# ---------------------------------------------------------------------------------------------

DEFAULT_LEVEL_GAINS = {lv: float(lv) for lv in range(1, 10)}  # DIN-splitqrels: L1..L9 = 1..9


def awk_number(x: float) -> float:
    """A number after awk printed it with OFMT %.6g and ntcir_eval read it back with atof."""
    return float(f"{x:.6g}")


def printed4(x: float) -> float:
    """A number after a '%.4f' printf and atof (gain labels, nev values)."""
    return float(f"{x:.4f}")


@dataclass
class DiversityTopic:
    """One topic's NTCIREVAL inputs.

    judgment_order: the (intent, docno) pairs with level >= 1 in Dqrels file order; it fixes
    the summation order of dinlabel (only matters at the 1e-16 level).  Defaults to sorted order.
    """

    judgments: dict[int, dict[str, int]]
    probs: dict[int, float]
    types: dict[int, str] = field(default_factory=dict)
    judgment_order: list[tuple[int, str]] | None = None

    def relevant_pairs(self) -> list[tuple[int, str]]:
        if self.judgment_order is not None:
            return list(self.judgment_order)
        return [
            (i, d) for i in sorted(self.judgments) for d in sorted(self.judgments[i])
            if self.judgments[i][d] > 0
        ]  # fmt: skip

    def intents_with_relevant(self) -> list[int]:
        return sorted(i for i, j in self.judgments.items() if any(v > 0 for v in j.values()))


def intent_weighted_gain(
    topic: DiversityTopic, intent: int, doc: str, gains, compat: bool
) -> float:
    """Pr(i|q) g_i(d): one din-file value (awk-printed with %.6g in NTCIREVAL)."""
    level = topic.judgments[intent][doc]
    value = topic.probs.get(intent, 0.0) * gains[level]
    return awk_number(value) if compat else value


def global_gains(topic: DiversityTopic, gains=DEFAULT_LEVEL_GAINS, compat=True) -> dict[str, float]:
    """GG(d) = sum_i Pr(i|q) g_i(d) (Sakai & Song; Sakai, IPSJ JIP 2013, eq 6), the Grelv file values."""
    gg: dict[str, float] = {}
    for intent, doc in sorted(topic.relevant_pairs(), key=lambda p: (p[1], p[0])):
        gg[doc] = gg.get(doc, 0.0) + intent_weighted_gain(topic, intent, doc, gains, compat)
    if compat:
        gg = {d: awk_number(v) for d, v in gg.items()}
    return gg


def din_gains(
    topic: DiversityTopic, ranking: list[str], gains=DEFAULT_LEVEL_GAINS, compat=True
) -> list[float | None]:
    """GG^DIN(r) (Sakai, IPSJ JIP 2013, eq 8) for each retrieved doc, as ``ntcir_eval dinlabel``.

    A navigational intent gives gain only at its first relevant doc in the list (isnew_j(r));
    informational intents always do.  Docs with no L1+ judgment get None (unjudged).
    """
    pairs_by_doc: dict[str, list[int]] = {}
    for intent, doc in topic.relevant_pairs():
        pairs_by_doc.setdefault(doc, []).append(intent)
    found: set[int] = set()
    out: list[float | None] = []
    for doc in ranking:
        if doc not in pairs_by_doc:
            out.append(None)
            continue
        g = 0.0
        for intent in pairs_by_doc[doc]:
            is_nav = topic.types.get(intent, "inf") == "nav"
            if not (is_nav and intent in found):
                g += intent_weighted_gain(topic, intent, doc, gains, compat)
            found.add(intent)
        out.append(printed4(g) if compat else g)
    return out


def _fmt(x: float) -> float:
    return float(f"{x:.4f}")


def ntcireval_topic(
    topic: DiversityTopic,
    ranking: list[str],
    cutoff: int,
    *,
    gains=DEFAULT_LEVEL_GAINS,
    gamma: float = 0.5,
    compat: bool = True,
    intent_order: list[int] | None = None,
) -> dict[str, dict]:
    """D-, DIN-, IA- and P+Q measures of one topic at cutoff l, as NTCIREVAL's scripts do.

    ``ranking`` is the res file (run order, up to 1000 docs).  gcompute sees it truncated at l
    (``-truncate l``), so even AP, RR, ERR ... are computed on the top l; I-rec sees the full
    list.  With ``compat`` the text round trips are reproduced (%.6g din/Grelv values, %.4f gain
    labels, # combinations of the %.4f-printed components); without it everything is exact.

    Returns {'D': gcompute dict + I-rec + D#, 'DIN': ..., 'IA': {intent: gcompute dict},
    'IA_mean': {...}, 'PQ': {...}}.
    """
    top = ranking[:cutoff]
    tag = f"@{cutoff:04d}"
    rel_intents = topic.intents_with_relevant()
    intent_docs = [{d for d, lv in topic.judgments[i].items() if lv > 0} for i in rel_intents]
    ir = irec(ranking, intent_docs, [cutoff])
    p = _fmt if compat else (lambda x: x)

    # D-measures: glabel with the Grelv (global gain) ideal list
    gg = global_gains(topic, gains, compat)
    ideal = sorted(gg.values(), reverse=True)
    d_sys = [(printed4(gg[d]) if compat else gg[d]) if d in gg else None for d in top]
    d = gcompute(d_sys, ideal, [cutoff])
    din = gcompute(din_gains(topic, top, gains, compat), ideal, [cutoff])
    for res, name in ((d, "D"), (din, "DIN")):
        res.update(ir)
        res[name + "#-Q" + tag] = gamma * p(ir["I-rec" + tag]) + (1 - gamma) * p(res["Q" + tag])
        res[name + "#-nDCG" + tag] = gamma * p(ir["I-rec" + tag]) + (1 - gamma) * p(
            res["MSnDCG" + tag]
        )

    # IA metrics and P+Q: per-intent gcompute on the intent's own ideal list (Irelv)
    order = intent_order if intent_order is not None else sorted(topic.probs)
    per_intent: dict[int, dict] = {}
    for intent in order:
        if intent not in rel_intents:
            continue  # no Irelv file: the scripts skip the intent (SUMp < 1)
        levels = topic.judgments[intent]
        i_ideal = sorted((gains[lv] for lv in levels.values() if lv > 0), reverse=True)
        i_sys = [gains[levels[x]] if levels.get(x, 0) > 0 else None for x in top]
        per_intent[intent] = gcompute(i_sys, i_ideal, [cutoff])
    ia: dict[str, float] = {"SUMp": 0.0}
    for metric in ("ERR" + tag, "nERR" + tag, "MSnDCG" + tag, "Q" + tag, "nDCG" + tag):
        ia["IA-" + metric] = 0.0
    pq = {"SUMp": 0.0, "PplusQ" + tag: 0.0}
    for intent, res in per_intent.items():
        prob = topic.probs[intent]
        ia["SUMp"] += prob
        for metric in ("ERR" + tag, "nERR" + tag, "MSnDCG" + tag, "Q" + tag, "nDCG" + tag):
            ia["IA-" + metric] += prob * p(res[metric])
        # P+Q (Sakai, IPSJ JIP 2013, eq 12): Q@l for informational, P+ (rp within the top l) for navigational
        nav = topic.types.get(intent, "inf") == "nav"
        pq["SUMp"] += prob
        pq["PplusQ" + tag] += prob * p(res["P-plus"] if nav else res["Q" + tag])
    pq["PplusQ#" + tag] = gamma * p(ir["I-rec" + tag]) + (1 - gamma) * p(pq["PplusQ" + tag])
    return {"D": d, "DIN": din, "IA": per_intent, "IA_mean": ia, "PQ": pq}


# ---------------------------------------------------------------------------------------------
# Gold-standard helpers (Sakai, IPSJ JIP 2013, section 4.2)
# ---------------------------------------------------------------------------------------------


def effective_precision(topic: DiversityTopic, ranking: list[str], cutoff: int) -> float:
    """Ef-P@l: share of the top l that is effectively relevant to some intent; for a
    navigational intent only its first relevant doc in the list counts."""
    found_nav: set[int] = set()
    effective = 0
    for doc in ranking[:cutoff]:
        is_effective = False
        for intent, levels in topic.judgments.items():
            if levels.get(doc, 0) <= 0:
                continue
            if topic.types.get(intent, "inf") == "nav":
                if intent not in found_nav:
                    is_effective = True
                found_nav.add(intent)
            else:
                is_effective = True
        effective += is_effective
    return effective / cutoff


def preferred_rank(levels: dict[str, int], ranking: list[str], cutoff: int) -> int:
    """rp for P+: first rank within the top l holding the highest level seen there (0: none)."""
    top = [levels.get(d, 0) for d in ranking[:cutoff]]
    best = max(top, default=0)
    if best <= 0:
        return 0
    return top.index(best) + 1


def pmp(topic: DiversityTopic, ranking: list[str], cutoff: int) -> float:
    """PMP@l: precision@l for the most probable intent (first such intent on ties)."""
    intent = max(sorted(topic.probs), key=lambda i: topic.probs[i])
    levels = topic.judgments.get(intent, {})
    return sum(1 for d in ranking[:cutoff] if levels.get(d, 0) > 0) / cutoff
