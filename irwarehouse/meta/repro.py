"""Reproducibility of a run (`irw meta repro`): the measures of Breuer et al., "How to Measure
the Reproducibility of System-oriented IR Experiments" (SIGIR 2020), as their repro_eval
(irgroup/repro_eval 0.5.0, RpdEvaluator) computes them, golden-tested against it
(tests/data/repro_eval).

Per topic, between the original and the reproduced ranking (each in trec_eval's order, score
desc then docno desc, which is repro_eval's order for a file sorted by score; both cut at -M,
default 1000 as repro_eval's trim):

* Kendall's tau Union (KTU): the documents of both lists are numbered in sorted order of
  their ids; the number of the document at rank i of the original is paired with the number of
  the document at rank i of the reproduced list, and KTU is Kendall's tau (tau-b) of these
  pairs, rounded to 14 decimals; the run's value is the mean over topics. Lists of different
  lengths (repro_eval refuses them) are compared over the ranks both have, with a warning.
* RBO (Webber, Moffat & Zobel, ACM TOIS 2010) with p = 0.95 to depth 1000, normalised by the
  weight it can reach (repro_eval's form, after Clarke et al., TOIS 2021), and RBO_ext, the
  extrapolated form of the paper (eq 30/32; irwarehouse.meta.rbo) at the depth of the longer list.

Per measure, on the per-topic scores (the one request: stored, or evaluated with the campaign's
profile and the given options): RMSE between the original and the reproduced scores, nRMSE
(RMSE over the largest RMSE the original scores allow, max(x, 1 - x) per topic), and the p-value
of the paired t-test. With a baseline in both experiments (the runs above being the advanced
ones): the effect ratio ER = mean_t(a'_t - b'_t) / mean_t(a_t - b_t) and the delta relative
improvement DeltaRI = RI - RI', RI = (mean(a) - mean(b)) / mean(b) (' = reproduced). Means are
arithmetic over the topics both runs of a pair have, as repro_eval forms them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import IrwError

RBO_P = 0.95            # repro_eval's RBO_P
RBO_DEPTH = 1000        # repro_eval's RBO_DEPTH
TRIM = 1000             # repro_eval's RUN_LENGTH (trim)


def ktu(original: list[str], reproduced: list[str]) -> float:
    """Kendall's tau Union of two ranked lists of one topic (module doc)."""
    n = min(len(original), len(reproduced))
    if n < 2:
        return float("nan")
    number = {d: i for i, d in enumerate(sorted(set(original) | set(reproduced)))}
    x = np.array([number[d] for d in original[:n]], dtype=np.int64)
    y = np.array([number[d] for d in reproduced[:n]], dtype=np.int64)
    i, j = np.triu_indices(n, k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    concordant_minus = int((sx * sy).sum())
    ties_x, ties_y = int((sx == 0).sum()), int((sy == 0).sum())
    pairs = n * (n - 1) // 2
    denominator = math.sqrt(pairs - ties_x) * math.sqrt(pairs - ties_y)
    return round(concordant_minus / denominator, 14) if denominator else float("nan")


def rbo_pair(original: list[str], reproduced: list[str], *, p: float = RBO_P,
             depth: int = RBO_DEPTH) -> tuple[float, float]:
    """(repro_eval's RBO, RBO_ext) of the reproduced list against the original one."""
    from .rbo import rbo_lists
    if not original or not reproduced:
        return float("nan"), float("nan")
    return (rbo_lists(reproduced, original, p=p, depth=depth).normalised,
            rbo_lists(reproduced, original, p=p).ext)


@dataclass(frozen=True)
class OrderAgreement:
    """KTU and RBO of one pair of runs, per topic and as their means."""
    pair: str                       # "advanced" (or the only pair) | "baseline"
    original: str
    reproduced: str
    topics: list[str]
    ktu: list[float]
    rbo: list[float]
    rbo_ext: list[float]

    def record(self) -> dict:
        return {"pair": self.pair, "original": self.original, "reproduced": self.reproduced,
                "topics": len(self.topics), "KTU": _mean(self.ktu), "RBO": _mean(self.rbo),
                "RBO_ext": _mean(self.rbo_ext)}

    def topic_records(self) -> list[dict]:
        return [{"pair": self.pair, "topic": t, "KTU": k, "RBO": r, "RBO_ext": e}
                for t, k, r, e in zip(self.topics, self.ktu, self.rbo, self.rbo_ext)]


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def order_agreement(pair: str, original: str, reproduced: str, lists_o: dict, lists_r: dict,
                    *, p: float = RBO_P, depth: int = RBO_DEPTH, warn=None) -> OrderAgreement:
    """KTU and RBO per topic that both runs have (topics in sorted order, as repro_eval)."""
    topics = sorted(set(lists_o) & set(lists_r))
    if not topics:
        raise IrwError(f"the reproduced run {reproduced!r} has no topic in common with the "
                       f"original run {original!r}")
    only_o, only_r = len(set(lists_o) - set(topics)), len(set(lists_r) - set(topics))
    if (only_o or only_r) and warn is not None:
        warn(f"{pair}: topics only one run has are left out ({only_o} only in {original}, "
             f"{only_r} only in {reproduced})")
    uneven = [t for t in topics if len(lists_o[t]) != len(lists_r[t])]
    if uneven and warn is not None:
        warn(f"{pair}: {len(uneven)} topic(s) where the two lists differ in length (e.g. "
             f"{uneven[0]}: {len(lists_o[uneven[0]])} vs {len(lists_r[uneven[0]])}); KTU "
             "compares the ranks both lists have")
    ktus, rbos, exts = [], [], []
    for t in topics:
        ktus.append(ktu(lists_o[t], lists_r[t]))
        r, e = rbo_pair(lists_o[t], lists_r[t], p=p, depth=depth)
        rbos.append(r)
        exts.append(e)
    return OrderAgreement(pair, original, reproduced, topics, ktus, rbos, exts)


@dataclass(frozen=True)
class ScoreAgreement:
    """RMSE, nRMSE and the paired t-test between the per-topic scores of one measure."""
    pair: str
    measure: str
    topics: int
    mean_original: float
    mean_reproduced: float
    rmse: float
    nrmse: float
    p_value: float

    def record(self) -> dict:
        return {"measure": self.measure, "pair": self.pair, "topics": self.topics,
                "original": self.mean_original, "reproduced": self.mean_reproduced,
                "RMSE": self.rmse, "nRMSE": self.nrmse, "p_t": self.p_value}


def score_agreement(pair: str, measure: str, original: dict, reproduced: dict
                    ) -> ScoreAgreement:
    """`original`, `reproduced`: topic -> score; compared on the topics both have."""
    from ..stats import paired_t
    topics = sorted(set(original) & set(reproduced))
    if not topics:
        raise IrwError(f"{measure}: the reproduced run has no scored topic in common with the "
                       "original run")
    x = np.array([original[t] for t in topics], dtype=float)
    y = np.array([reproduced[t] for t in topics], dtype=float)
    rmse = math.sqrt(float(np.sum(np.square(x - y))) / x.size)
    worst = math.sqrt(float(np.sum(np.square(np.maximum(x, 1 - x)))) / x.size)
    p = paired_t(x, y).pvalue if x.size > 1 else float("nan")
    return ScoreAgreement(pair, measure, len(topics), float(x.mean()), float(y.mean()), rmse,
                          rmse / worst if worst else float("nan"), p)


@dataclass(frozen=True)
class Effect:
    """ER and DeltaRI of one measure (module doc)."""
    measure: str
    improvement_original: float      # mean_t(a_t - b_t)
    improvement_reproduced: float
    ri_original: float
    ri_reproduced: float

    @property
    def er(self) -> float:
        return _ratio(self.improvement_reproduced, self.improvement_original)

    @property
    def delta_ri(self) -> float:
        return self.ri_original - self.ri_reproduced

    def record(self) -> dict:
        return {"measure": self.measure, "ER": self.er, "DeltaRI": self.delta_ri,
                "improvement_original": self.improvement_original,
                "improvement_reproduced": self.improvement_reproduced,
                "RI_original": self.ri_original, "RI_reproduced": self.ri_reproduced}


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _improvement(advanced: dict, baseline: dict) -> tuple[float, float]:
    topics = sorted(set(advanced) & set(baseline))
    if not topics:
        raise IrwError("the advanced and baseline runs have no scored topic in common")
    a = np.array([advanced[t] for t in topics], dtype=float)
    b = np.array([baseline[t] for t in topics], dtype=float)
    return float((a - b).mean()), _ratio(float(a.mean() - b.mean()), float(b.mean()))


def effect(measure: str, orig_a: dict, orig_b: dict, rep_a: dict, rep_b: dict) -> Effect:
    mi_o, ri_o = _improvement(orig_a, orig_b)
    mi_r, ri_r = _improvement(rep_a, rep_b)
    return Effect(measure, mi_o, mi_r, ri_o, ri_r)


@dataclass
class Reproduction:
    """What `irw meta repro` reports."""
    order: list[OrderAgreement] = field(default_factory=list)
    scores: list[ScoreAgreement] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    depth: int = TRIM
    p: float = RBO_P

    def as_dict(self) -> dict:
        return {"depth": self.depth, "rbo_p": self.p,
                "order": [o.record() for o in self.order],
                "scores": [s.record() for s in self.scores],
                "effects": [e.record() for e in self.effects]}


# -- runs in a warehouse ---------------------------------------------------------------------


def ranked_lists(con, campaign: str, run: str, depth: int) -> dict[str, list[str]]:
    """topic -> the run's documents in trec_eval's order (score desc, docno desc), top `depth`."""
    rows = con.execute("""
        SELECT x.topic, x.doc FROM run_row x JOIN run r USING (run_id)
             JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND r.name = ?
        QUALIFY row_number() OVER (PARTITION BY x.topic ORDER BY x.score DESC, x.doc DESC)
                <= ?
        ORDER BY x.topic, x.score DESC, x.doc DESC""", [campaign, run, depth]).fetchall()
    out: dict[str, list[str]] = {}
    for topic, doc in rows:
        out.setdefault(topic, []).append(doc)
    return out


def reproduce(con, campaign: str, original: str, reproduced: str, *,
              original_baseline: str | None = None, reproduced_baseline: str | None = None,
              measures: list[str] | None = None, given=None, p: float = RBO_P,
              rbo_depth: int = RBO_DEPTH, warn=None, report=None,
              labels: dict[str, str] | None = None) -> Reproduction:
    """The reproducibility measures of stored runs of `campaign` (module doc). `measures`:
    scored through the one request (the campaign's profile and `given`, an EvalSettings);
    none: the document order only. `labels`: how to show a run's name (its file)."""
    from ..request.evaluation import run_ids, scope, scores
    if (original_baseline is None) != (reproduced_baseline is None):
        raise IrwError("give both --original-baseline and --reproduced-baseline, or neither")
    pairs = [("advanced" if original_baseline else "run", original, reproduced)]
    if original_baseline:
        pairs.append(("baseline", original_baseline, reproduced_baseline))
    names = [n for _, o, r in pairs for n in (o, r)]
    run_ids(con, campaign, names)                     # each run exists
    where = scope(con, campaign, given, measures=measures or None) if measures else None
    depth = (where.options.depth if where is not None else None) or TRIM
    out = Reproduction(depth=depth, p=p)
    for pair, o, r in pairs:
        shown = labels or {}
        out.order.append(order_agreement(pair, shown.get(o, o), shown.get(r, r),
                                         ranked_lists(con, campaign, o, depth),
                                         ranked_lists(con, campaign, r, depth), p=p,
                                         depth=rbo_depth, warn=warn))
    if not measures:
        return out
    if report is not None and where.worth_naming:
        report(f"scores of {where.describe()}")
    found = scores(con, where, list(measures), runs=list(dict.fromkeys(names)))
    for ms in found:
        by_run: dict[str, dict[str, float]] = {}
        for run, topic, value in ms.rows:
            if value is not None:
                by_run.setdefault(run, {})[topic] = value
        for pair, o, r in pairs:
            out.scores.append(score_agreement(pair, ms.label, by_run.get(o, {}),
                                              by_run.get(r, {})))
        if original_baseline:
            out.effects.append(effect(ms.label, by_run.get(original, {}),
                                      by_run.get(original_baseline, {}),
                                      by_run.get(reproduced, {}),
                                      by_run.get(reproduced_baseline, {})))
    return out


def reproduce_files(qrels, original, reproduced, *, original_baseline=None,
                    reproduced_baseline=None, measures: list[str] | None = None,
                    given=None, qrels_format: str = "qrels", p: float = RBO_P,
                    rbo_depth: int = RBO_DEPTH, warn=None) -> Reproduction:
    """The same on run files (and a qrels file, without which only the document order is
    compared), through a private in-memory warehouse (as evaluate_files): the runs are named original,
    reproduced, original-baseline and reproduced-baseline."""
    from ..request.evaluation import split_measures
    from ..store.connection import close, connect
    from ..store.ingest import ingest_qrels, ingest_run
    if qrels is not None and measures:
        split_measures(list(measures))          # an unknown name: the grammar's one line
    files = {"original": original, "reproduced": reproduced,
             "original-baseline": original_baseline,
             "reproduced-baseline": reproduced_baseline}
    con = connect(None, macros=False, lean=True)
    try:
        if qrels is not None:
            ingest_qrels(con, qrels, "repro", fmt=qrels_format)
        for name, path in files.items():
            if path is not None:
                ingest_run(con, path, "repro", name=name)
        return reproduce(con, "repro", "original", "reproduced",
                         original_baseline="original-baseline" if original_baseline else None,
                         reproduced_baseline="reproduced-baseline" if reproduced_baseline
                         else None, measures=measures if qrels is not None else None,
                         given=given, p=p, rbo_depth=rbo_depth, warn=warn,
                         labels=_labels(files))
    finally:
        close(con, checkpoint=False)


def _labels(files: dict) -> dict[str, str]:
    """How the runs of files are shown: their file names, or their paths where two names
    are the same."""
    given = {k: Path(v) for k, v in files.items() if v is not None}
    names = [p.name for p in given.values()]
    unique = len(set(names)) == len(names)
    return {k: p.name if unique else str(p) for k, p in given.items()}
