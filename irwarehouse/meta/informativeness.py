"""Informativeness of a measure (Aslam, Yilmaz & Pavlu, "The maximum entropy method for
analyzing retrieval measures", SIGIR 2005): how well a measure's value alone lets one infer the
precision-recall curve of the list it was computed on.

For each run and topic, the maximum-entropy distribution of relevance down the list given the
measure's value (irwarehouse.meta.maxent) implies an expected number of relevant documents
C_k = sum_{i <= k} p_i at each rank k, hence precision C_k / k and recall C_k / R; its
precision-recall curve is compared with the list's actual one at the 11 standard recall levels
0, 0.1, ..., 1, both interpolated the same way (precision at recall level r = the largest
precision at any rank whose recall is >= r, 0 when no rank reaches r: Baeza-Yates &
Ribeiro-Neto, Modern Information Retrieval, 2011, ch. 4). The error of one list is the RMS of
the 11 differences. Over a campaign a measure's error is reported as the paper's figures are
drawn, from each run's curves averaged over its topics: `rms` = the mean over runs of the RMS
between the run's mean inferred and mean actual curves; `rms_lists` = the mean of the per-list
errors. The lower, the more informative the measure.

Decided here: a topic without relevant documents (R = 0) has no recall and no curve, and an
empty list (a topic the run lacks, kept as an empty list by -c) leaves nothing to infer: both
are skipped and counted. The number of relevant documents retrieved is known besides the
measure's value (the paper's "sum of the probabilities" constraint), so the inferred curve
reaches the same final recall as the actual one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import IrwError, MeasureError
from .maxent import MaxEntropy, max_entropy_ap, max_entropy_prefix

RECALL_LEVELS = np.linspace(0.0, 1.0, 11)
KINDS = {"map": "AP", "P": "P@k", "Rprec": "R-precision"}


@dataclass(frozen=True)
class Constraint:
    """What a measure's value says of a list (the paper's constraint forms)."""
    kind: str                      # AP | P@k | R-precision
    cutoff: int | None = None      # k of P@k

    def value_of(self, relevant_ranks: np.ndarray, num_rel: int) -> float:
        """The measure on an actual list (1-based ranks of its relevant documents), as
        trec_eval computes it."""
        if self.kind == "AP":
            return float(np.sum(np.arange(1, relevant_ranks.size + 1) / relevant_ranks)
                         / num_rel)
        cutoff = self.cutoff if self.kind == "P@k" else num_rel
        return float(np.count_nonzero(relevant_ranks <= cutoff)) / cutoff

    def distribution(self, value: float, n: int, num_rel: int, rel_ret: int) -> MaxEntropy:
        if self.kind == "AP":
            return max_entropy_ap(value, num_rel, n, rel_ret)
        cutoff = self.cutoff if self.kind == "P@k" else num_rel
        return max_entropy_prefix(n, rel_ret, cutoff, value * cutoff)


def constraint_of(measure: str, *, version: int = 9, ntcir=None):
    """The constraint of a measure name (any spelling: AP, map, P@10, P_10, Rprec), and the
    measure request it names (measures.resolve.MeasureRequest)."""
    from ..measures import parse_measures
    requests = parse_measures([measure], version=version, ntcir=ntcir)
    if len(requests) != 1 or requests[0].mdef.name not in KINDS:
        raise MeasureError(f"informativeness needs AP, R-precision (Rprec) or P@k, the measures "
                           f"whose constraint Aslam, Yilmaz & Pavlu (SIGIR 2005) give; "
                           f"{measure!r} is none of them")
    request = requests[0]
    return Constraint(KINDS[request.mdef.name], request.cutoff), request


def interpolated_curve(relevant_so_far: np.ndarray, num_rel: int) -> np.ndarray:
    """Precision at the 11 standard recall levels from the (expected) number of relevant
    documents at ranks 1..n: the largest precision at a rank whose recall reaches the level."""
    n = relevant_so_far.size
    if n == 0:
        return np.zeros(RECALL_LEVELS.size)
    precision = relevant_so_far / np.arange(1, n + 1)
    best_from = np.maximum.accumulate(precision[::-1])[::-1]
    # a recall level counts as reached within rounding (expected counts are sums of floats)
    first = np.searchsorted(relevant_so_far / num_rel, RECALL_LEVELS - 1e-9, side="left")
    return np.where(first < n, best_from[np.minimum(first, n - 1)], 0.0)


@dataclass(frozen=True)
class ListInference:
    """One list's inferred and actual precision-recall curves (11 recall levels)."""
    measure: str
    run: str
    topic: str
    value: float
    distribution: MaxEntropy
    inferred: np.ndarray
    actual: np.ndarray

    @property
    def rms(self) -> float:
        return float(np.sqrt(np.mean((self.inferred - self.actual) ** 2)))


def infer_list(constraint: Constraint, relevant_ranks, n: int, num_rel: int,
               value: float | None = None, *, measure: str = "", run: str = "",
               topic: str = "") -> ListInference:
    """The inference for one list of n documents with relevant documents at `relevant_ranks`
    (1-based) of a topic with num_rel relevant: from `value` (default: the measure computed on
    the list itself)."""
    ranks = np.sort(np.asarray(relevant_ranks, dtype=float))
    if num_rel < 1 or n < 1:
        raise ValueError("a list needs documents and its topic relevant documents (R >= 1)")
    if ranks.size and (ranks[0] < 1 or ranks[-1] > n or np.any(np.diff(ranks) == 0)):
        raise ValueError(f"relevant ranks must be distinct ranks within 1..{n}")
    if value is None:
        value = constraint.value_of(ranks, num_rel)
    found = constraint.distribution(value, n, num_rel, ranks.size)
    actual = np.zeros(n)
    actual[ranks.astype(int) - 1] = 1.0
    return ListInference(measure, run, topic, value, found,
                         interpolated_curve(np.cumsum(found.p), num_rel),
                         interpolated_curve(np.cumsum(actual), num_rel))


@dataclass
class Informativeness:
    """The inferences of a campaign's lists, per measure (in the order asked)."""
    measures: list[str]
    lists: list[ListInference] = field(default_factory=list)
    skipped: dict[str, dict[str, int]] = field(default_factory=dict)   # measure -> reason -> n

    def of(self, measure: str) -> list[ListInference]:
        return [x for x in self.lists if x.measure == measure]

    def run_curves(self, measure: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each run's inferred and actual curves averaged over its topics."""
        by_run: dict[str, list[ListInference]] = {}
        for x in self.of(measure):
            by_run.setdefault(x.run, []).append(x)
        return {run: (np.mean([x.inferred for x in xs], axis=0),
                      np.mean([x.actual for x in xs], axis=0)) for run, xs in by_run.items()}

    def _repr_html_(self) -> str:
        from ..notebook import table
        return table(self.summary_records(), caption="informativeness (Aslam, Yilmaz & "
                     "Pavlu, SIGIR 2005): rms error of the inferred precision-recall curves")

    def summary_records(self) -> list[dict]:
        rows = []
        for m in self.measures:
            lists = self.of(m)
            curves = self.run_curves(m)
            run_rms = [_rms(a, b) for a, b in curves.values()]
            rows.append({
                "measure": m, "rms": float(np.mean(run_rms)) if run_rms else None,
                "rms_lists": float(np.mean([x.rms for x in lists])) if lists else None,
                "runs": len(curves), "lists": len(lists),
                "topics": len({x.topic for x in lists}),
                "skipped": sum(self.skipped.get(m, {}).values()),
                "local_maxima": sum(x.distribution.improvable for x in lists)})
        return rows

    def run_records(self) -> list[dict]:
        rows = []
        for m in self.measures:
            lists = self.of(m)
            for run, (inferred, actual) in self.run_curves(m).items():
                mine = [x.rms for x in lists if x.run == run]
                rows.append({"measure": m, "run": run, "rms": _rms(inferred, actual),
                             "rms_lists": float(np.mean(mine)), "lists": len(mine)})
        return rows

    def curve_records(self) -> list[dict]:
        return [{"measure": m, "run": run, "recall": round(float(level), 1),
                 "inferred": float(inferred[i]), "actual": float(actual[i])}
                for m in self.measures
                for run, (inferred, actual) in self.run_curves(m).items()
                for i, level in enumerate(RECALL_LEVELS)]

    def notes(self) -> list[str]:
        """What a user must be told: lists skipped, distributions known to be local maxima."""
        out = []
        for m in self.measures:
            for reason, count in sorted(self.skipped.get(m, {}).items()):
                out.append(f"{m}: {count} lists skipped ({reason})")
            local = sum(x.distribution.improvable for x in self.of(m))
            if local:
                out.append(f"{m}: {local} of {len(self.of(m))} maximum-entropy distributions "
                           "are local maxima only (AP far below a random ordering's; their "
                           "errors are included)")
        return out


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a - b) ** 2)))


# -- a campaign --------------------------------------------------------------------------------
def informativeness(wh, campaign: str, measures: list[str], *, runs: list[str] | None = None,
                    qrels: str | None = None, missing: str = "error", options=None,
                    given=None, stored: bool = True, report=None) -> Informativeness:
    """The informativeness of each measure on a campaign's runs: the measures' per-topic values
    as the one request gives them (meta.load: stored, or evaluated under the options) and each
    list's relevant ranks under the same options (the measure's own: AP(rel=2) at -l 2)."""
    from ..request.evaluation import run_ids, scope
    from .load import load_metrics, request_settings
    for m in measures:
        constraint_of(m)                            # an unsupported measure fails first
    metrics = load_metrics(wh, campaign, measures, runs=runs, qrels=qrels, missing=missing,
                           options=options, given=given, stored=stored, report=report)
    where = scope(wh.con, campaign, request_settings(given, options, qrels), measures=measures)
    ids = run_ids(wh.con, campaign, metrics.runs)
    result = Informativeness(list(metrics.measures))
    lists_by_options: dict = {}
    for m in metrics.measures:
        constraint, request = constraint_of(m, version=where.options.version,
                                            ntcir=where.ntcir())
        opts = request.eval_options(where.options)
        if opts not in lists_by_options:
            lists_by_options[opts] = ranked_lists(wh.con, ids, where.qrels_id, opts)
        lists = lists_by_options[opts]
        skipped = result.skipped.setdefault(m, {})
        for j, run in enumerate(metrics.runs):
            for i, topic in enumerate(metrics.topics):
                n, num_rel, ranks = lists.get((run, topic), (0, None, ()))
                reason = ("no relevant documents" if num_rel == 0
                          else "empty list" if n == 0 else None)
                if reason:
                    skipped[reason] = skipped.get(reason, 0) + 1
                    continue
                value = float(metrics[m][i, j])
                ranks = np.asarray(ranks, dtype=float)
                listed = constraint.value_of(ranks, num_rel)
                if abs(listed - value) > 1e-9:
                    raise IrwError(f"{m} of run {run} on topic {topic} is {value:.6g} but its "
                                   f"ranked list gives {listed:.6g}: the scores are not those of "
                                   "these lists and options")
                result.lists.append(infer_list(constraint, ranks, n, num_rel, value,
                                               measure=m, run=run, topic=topic))
    return result


def ranked_lists(con, run_ids: list[int], qrels_id: int, options) -> dict:
    """(run, topic) -> (list length, R, ranks of the relevant documents) of the evaluated lists
    under these options (the evaluation context every measure reads: sql/context.sql)."""
    from ..engine.evaluate import build_context
    from ..store.connection import install_macros
    install_macros(con, [])
    build_context(con, run_ids, qrels_id, options)
    rows = con.execute("""
        SELECT r.name, rt.topic, rt.num_ret, t.num_rel,
               coalesce(list(k.rank ORDER BY k.rank) FILTER (WHERE k.is_rel), []) AS ranks
        FROM ev_run_topic rt
        JOIN ev_topic t ON t.topic = rt.topic
        JOIN run r ON r.run_id = rt.run_id
        LEFT JOIN ev_ranked k ON k.run_id = rt.run_id AND k.topic = rt.topic
        GROUP BY r.name, rt.topic, rt.num_ret, t.num_rel""").fetchall()
    return {(run, topic): (int(n), int(num_rel), ranks) for run, topic, n, num_rel, ranks in rows}
