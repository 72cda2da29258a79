"""Agreement between two qrels of one campaign (`irw meta qrels-agreement`).

On the documents both qrels judged (a topic and a document; diversity qrels collapsed to the
document's highest level over its intents, a negative level being trec_eval's "unjudged"):

* Cohen's kappa (Cohen, Educational and Psychological Measurement 1960) of the binary
  judgments "level >= l": kappa = (p_o - p_e) / (1 - p_e);
* weighted kappa (Cohen, Psychological Bulletin 1968) of the graded levels,
  1 - sum w_ij o_ij / sum w_ij e_ij, with linear weights |i - j| and quadratic weights
  (i - j)^2 on the positions i, j of the levels in the sorted list of the levels either qrels
  uses (scikit-learn's cohen_kappa_score(weights=...)); both are reported;
* Krippendorff's alpha (Krippendorff, Content Analysis, 2004, ch. 11; "Computing Krippendorff's
  alpha-reliability", 2011) of the graded levels, with the ordinal metric (the default, for
  levels that are ordered but not equally spaced) and the interval metric (levels as numbers);
* the confusion matrix of levels (rows: the first qrels, columns: the second).

On the runs: each qrels scores the campaign's runs (the one request: the campaign profile and
the given options apply), and the two system rankings are compared by Kendall's tau and tau_ap
(irwarehouse.meta.rankcorr), on the topics both qrels judged, as Voorhees (IP&M 2000) compared
the rankings of TREC runs under different assessors; the runs whose rank moves most are listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import IrwError

# -- the statistics on label vectors ---------------------------------------------------------


def confusion(a, b, levels=None) -> tuple[list[int], np.ndarray]:
    """The levels (sorted; those of either vector unless given) and the counts [i, j] of
    documents that the first judge put at levels[i] and the second at levels[j]."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("need two label vectors of the same length")
    levels = sorted(set(a.tolist()) | set(b.tolist())) if levels is None else list(levels)
    index = {v: i for i, v in enumerate(levels)}
    counts = np.zeros((len(levels), len(levels)), dtype=np.int64)
    np.add.at(counts, ([index[v] for v in a.tolist()], [index[v] for v in b.tolist()]), 1)
    return levels, counts


def cohen_kappa(a, b, *, weights: str | None = None) -> float:
    """Cohen's kappa of two label vectors; weights None (unweighted), "linear" or "quadratic"
    (on the positions of the levels in order). NaN when the chance disagreement is 0 (both
    judges used one and the same level)."""
    _, counts = confusion(a, b)
    k = counts.shape[0]
    n = counts.sum()
    if n == 0:
        raise ValueError("no labels")
    i, j = np.indices((k, k))
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")
    observed = counts / n
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / n / n
    chance = float((w * expected).sum())
    if chance == 0:
        return float("nan")
    return 1.0 - float((w * observed).sum()) / chance


def krippendorff_alpha(a, b, *, metric: str = "ordinal") -> float:
    """Krippendorff's alpha of two judges who both labelled every unit (no missing value):
    alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck over the coincidence matrix o
    (each unit adds its pair both ways), n = 2N pairable values; d_ck is (c - k)^2 (interval),
    (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 (ordinal) or [c != k] (nominal). NaN when every
    value is the same (no variation to agree on)."""
    levels, counts = confusion(a, b)
    coincidence = counts + counts.T
    totals = coincidence.sum(axis=1).astype(float)      # n_c
    n = totals.sum()
    k = len(levels)
    c, g = np.indices((k, k))
    values = np.asarray(levels, dtype=float)
    if metric == "interval":
        delta = (values[c] - values[g]) ** 2
    elif metric == "nominal":
        delta = (c != g).astype(float)
    elif metric == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(totals)])
        low, high = np.minimum(c, g), np.maximum(c, g)
        delta = (cumulative[high + 1] - cumulative[low] - (totals[c] + totals[g]) / 2) ** 2
    else:
        raise ValueError(f"metric must be 'ordinal', 'interval' or 'nominal', not {metric!r}")
    expected = float((np.outer(totals, totals) * delta).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * float((coincidence * delta).sum()) / expected


# -- the judgments of two stored qrels -------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """The documents both qrels judged, and what only one judged."""
    topics: list[str]               # topics both qrels judge
    levels_a: np.ndarray            # level of each document judged by both (a, b aligned)
    levels_b: np.ndarray
    only_a: int                     # documents (topic, doc) of shared topics judged by a only
    only_b: int
    topics_only_a: list[str]
    topics_only_b: list[str]
    unjudged: int                   # pairs left out because a level is negative


def judged_pairs(con, campaign: str, qrels_a: str, qrels_b: str) -> Judged:
    """Both qrels' judgments of the campaign, joined on (topic, doc); a diversity qrels' intents
    collapse to the highest level a document has for the topic."""
    from ..store.lookup import qrels_id
    if qrels_a == qrels_b:
        raise IrwError(f"give two different qrels (--qrels {qrels_a} was given twice)")
    ids = [qrels_id(con, campaign, qrels_a), qrels_id(con, campaign, qrels_b)]
    docs = """SELECT topic, doc, max(rel) AS rel FROM judgment WHERE qrels_id = ?
              GROUP BY topic, doc"""
    rows = con.execute(f"""
        WITH a AS ({docs}), b AS ({docs})
        SELECT coalesce(a.topic, b.topic) AS topic, a.rel, b.rel
        FROM a FULL JOIN b USING (topic, doc)""", ids).fetchall()
    topics_a = {t for t, x, _ in rows if x is not None}
    topics_b = {t for t, _, y in rows if y is not None}
    shared = topics_a & topics_b
    if not shared:
        raise IrwError(f"qrels {qrels_a!r} and {qrels_b!r} of campaign {campaign!r} judge no "
                       "topic in common")
    both = [(x, y) for t, x, y in rows if t in shared and x is not None and y is not None]
    kept = [(x, y) for x, y in both if x >= 0 and y >= 0]
    if not kept:
        raise IrwError(f"qrels {qrels_a!r} and {qrels_b!r} judge no document in common")
    return Judged(
        sorted(shared), np.array([x for x, _ in kept], dtype=int),
        np.array([y for _, y in kept], dtype=int),
        sum(1 for t, x, y in rows if t in shared and y is None),
        sum(1 for t, x, y in rows if t in shared and x is None),
        sorted(topics_a - shared), sorted(topics_b - shared), len(both) - len(kept))


@dataclass
class Agreement:
    """What `irw meta qrels-agreement` reports."""
    campaign: str
    qrels_a: str
    qrels_b: str
    level: int
    judged: Judged
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    alpha_ordinal: float
    alpha_interval: float
    levels: list[int]
    confusion: np.ndarray
    rankings: list[RankingAgreement] = field(default_factory=list)

    def summary_records(self) -> list[dict]:
        j = self.judged
        binary_a = int((j.levels_a >= self.level).sum())
        binary_b = int((j.levels_b >= self.level).sum())
        return [
            {"statistic": "documents judged by both", "value": int(j.levels_a.size)},
            {"statistic": f"relevant (level >= {self.level}) in {self.qrels_a}",
             "value": binary_a},
            {"statistic": f"relevant (level >= {self.level}) in {self.qrels_b}",
             "value": binary_b},
            {"statistic": f"Cohen's kappa (binary, level >= {self.level})",
             "value": self.kappa},
            {"statistic": "weighted kappa, linear", "value": self.kappa_linear},
            {"statistic": "weighted kappa, quadratic", "value": self.kappa_quadratic},
            {"statistic": "Krippendorff's alpha, ordinal", "value": self.alpha_ordinal},
            {"statistic": "Krippendorff's alpha, interval", "value": self.alpha_interval},
        ]

    def confusion_records(self) -> list[dict]:
        head = f"{self.qrels_a} \\ {self.qrels_b}"
        return [{head: str(lv), **{str(c): int(n) for c, n in zip(self.levels, row)}}
                for lv, row in zip(self.levels, self.confusion)]

    def as_dict(self) -> dict:
        j = self.judged
        return {
            "campaign": self.campaign, "qrels": [self.qrels_a, self.qrels_b],
            "level": self.level, "topics": len(j.topics), "documents": int(j.levels_a.size),
            "judged_only_a": j.only_a, "judged_only_b": j.only_b,
            "topics_only_a": j.topics_only_a, "topics_only_b": j.topics_only_b,
            "left_out_negative": j.unjudged,
            "kappa": _num(self.kappa), "kappa_linear": _num(self.kappa_linear),
            "kappa_quadratic": _num(self.kappa_quadratic),
            "alpha_ordinal": _num(self.alpha_ordinal),
            "alpha_interval": _num(self.alpha_interval),
            "levels": self.levels, "confusion": self.confusion.tolist(),
            "rankings": [r.as_dict() for r in self.rankings],
        }


def _num(x: float):
    return None if math.isnan(x) else x


def label_agreement(campaign: str, qrels_a: str, qrels_b: str, judged: Judged,
                    level: int) -> Agreement:
    a, b = judged.levels_a, judged.levels_b
    levels, counts = confusion(a, b)
    return Agreement(
        campaign, qrels_a, qrels_b, level, judged,
        cohen_kappa(a >= level, b >= level),
        cohen_kappa(a, b, weights="linear"), cohen_kappa(a, b, weights="quadratic"),
        krippendorff_alpha(a, b, metric="ordinal"),
        krippendorff_alpha(a, b, metric="interval"), levels, counts)


# -- the system rankings ---------------------------------------------------------------------


@dataclass(frozen=True)
class RankingAgreement:
    """The runs ranked by one measure under each qrels."""
    measure: str
    runs: list[str]
    means_a: np.ndarray
    means_b: np.ndarray
    n_topics: int
    kendall: float
    tau_ap: float                   # the ranking under b against the one under a as gold
    tau_ap_symmetric: float

    def ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """Each run's rank (1 = best; ties by run order, as rankcorr ranks them)."""
        from .rankcorr import ranking
        out = []
        for means in (self.means_a, self.means_b):
            rank = np.empty(len(self.runs), dtype=int)
            rank[ranking(means)] = np.arange(1, len(self.runs) + 1)
            out.append(rank)
        return out[0], out[1]

    def swaps(self, top: int = 5) -> list[dict]:
        """The runs whose rank differs most between the two qrels (largest |change| first,
        then the better rank under the first qrels)."""
        ra, rb = self.ranks()
        order = sorted(range(len(self.runs)), key=lambda i: (-abs(ra[i] - rb[i]), ra[i]))
        return [{"measure": self.measure, "run": self.runs[i], "rank_a": int(ra[i]),
                 "rank_b": int(rb[i]), "change": int(rb[i] - ra[i]),
                 "mean_a": float(self.means_a[i]), "mean_b": float(self.means_b[i])}
                for i in order[:top] if ra[i] != rb[i]]

    def record(self) -> dict:
        return {"measure": self.measure, "runs": len(self.runs), "topics": self.n_topics,
                "kendall_tau": self.kendall, "tau_ap": self.tau_ap,
                "tau_ap_symmetric": self.tau_ap_symmetric}

    def as_dict(self) -> dict:
        return {**self.record(), "swaps": self.swaps(len(self.runs))}


def ranking_agreement(measure: str, runs: list[str], means_a, means_b,
                      n_topics: int) -> RankingAgreement:
    from . import rankcorr as rc
    if len(runs) < 2:
        raise IrwError(f"need at least two runs to compare rankings by {measure} (the "
                       f"campaign has {len(runs)})")
    a, b = np.asarray(means_a, dtype=float), np.asarray(means_b, dtype=float)
    return RankingAgreement(measure, list(runs), a, b, n_topics, rc.kendall_tau(a, b),
                            rc.tau_ap(b, a), rc.tau_ap_symmetric(a, b))


def qrels_agreement(wh, campaign: str, qrels_a: str, qrels_b: str, *,
                    measures: list[str] | None = None, runs: list[str] | None = None,
                    given=None, missing: str = "error", report=None,
                    warn=None) -> Agreement:
    """Label agreement of two stored qrels of `campaign`, and the agreement of the system
    rankings by each measure (None: map, if the campaign has runs; []: labels only) under
    each qrels, the request's settings
    `given` (an EvalSettings: -l, -J, ... over the campaign's profile) applying to both."""
    from dataclasses import replace

    from ..engine.matrix import run_values
    from ..options import EvalSettings
    from ..request.evaluation import scope
    from .load import load_metrics
    from ..request.evaluation import ranked_runs
    given = given or EvalSettings()
    notes = []
    if measures is None:            # the default: MAP, when there are runs to rank
        measures = ["map"] if ranked_runs(wh.con, campaign) else []
        if not measures:
            notes.append(f"campaign {campaign!r} has no runs: the judgments' agreement only")
    # the measures' names and both qrels are checked before anything is computed
    where = scope(wh.con, campaign, replace(given, qrels=qrels_a), measures=measures or None)
    judged = judged_pairs(wh.con, campaign, qrels_a, qrels_b)
    out = label_agreement(campaign, qrels_a, qrels_b, judged, where.options.threshold)
    ranked = runs or ranked_runs(wh.con, campaign)
    if measures and len(ranked) < 2:
        raise IrwError(f"need at least two runs to compare their rankings under the two qrels "
                       f"({len(ranked)} given); without -m, the judgments' agreement only")
    for measure in measures or []:
        sets = [load_metrics(wh, campaign, [measure], runs=runs, missing=missing,
                             given=replace(given, qrels=q), report=report)
                for q in (qrels_a, qrels_b)]
        shared = [t for t in sets[0].topics if t in set(sets[1].topics)
                  and t in set(judged.topics)]
        if not shared:
            raise IrwError(f"no topic has {measure} scores under both qrels")
        means = []
        for ms in sets:
            rows = [ms.topics.index(t) for t in shared]
            means.append(run_values(ms[measure][rows, :], ms.summaries.get(measure, "mean")))
        if sets[0].runs != sets[1].runs:
            raise IrwError("the two qrels' scores cover different runs")
        out.rankings.append(ranking_agreement(measure, sets[0].runs, means[0], means[1],
                                              len(shared)))
    if warn is not None:
        for line in notes + _gaps(judged, qrels_a, qrels_b):
            warn(line)
    return out


def _gaps(judged: Judged, qrels_a: str, qrels_b: str) -> list[str]:
    lines = []
    for name, topics in ((qrels_a, judged.topics_only_a), (qrels_b, judged.topics_only_b)):
        if topics:
            lines.append(f"{len(topics)} topic(s) only {name} judges are left out "
                         f"({', '.join(topics[:5])}{', ...' if len(topics) > 5 else ''})")
    if judged.unjudged:
        lines.append(f"{judged.unjudged} document(s) with a negative level (trec_eval's "
                     "unjudged) in either qrels are left out")
    return lines
