"""What `irw report` reads in a campaign with text outputs (issue 17): ROUGE and nugget scores
by their stored names (ROUGE-1-R, ROUGE-L-F, nuggetF, ...), beside or instead of ranked runs.

A ranked measure is evaluated against one set of judgments with one option set; a text score
is filed under the reference set or nugget set it was computed against and, for ROUGE, under
ROUGE's options (`-f A -p 0.5 -m`; docs/texts.md). So the report binds every measure to the
(qrels, options) its scores are stored with, and the figures that only ranked runs have
(precision-recall, by-rank and cumulated-gain curves, the precision histogram) are left out with
a note when the campaign has no ranked run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import MeasureError, WarehouseError
from ..request.evaluation import score_name
from . import sections as parts
from .query import Query
from .scores import measure_names, ranked_runs

# qrels rows that hold reference texts (irw ingest texts), gold nuggets (irw ingest nuggets) or
# pyramids of SCUs (irw ingest pyramid)
TEXT_SETS = ("text_references", "nuggets", "pyramid")


@dataclass
class Scope:
    """The measures of a report and where each one's scores are filed."""
    specs: list[str]                  # the measures as asked (or the defaults)
    ranked_runs: list[str]            # runs with ranked rows
    text: dict[str, tuple[str, str]]  # text measure -> (reference/nugget set, options)
    ranked_specs: list[str] = field(default_factory=list)   # read by the grammar
    qrels: str | None = None          # the judgments of the ranked runs

    @property
    def ranked(self) -> bool:
        return bool(self.ranked_runs)

    def names(self, spec: str) -> list[str]:
        """The stored names of one requested measure (a ranked spec may name several)."""
        return [spec] if spec in self.text else measure_names([spec])


def report_scope(con, campaign: str, measures: list[str] | None, qrels: str | None,
                 default: tuple[str, ...], extra: tuple[str, ...] = ()) -> Scope:
    """Split the requested measures (`extra`: the --scatter pair) into ranked ones and text
    scores read by their stored names (request/evaluation.py's score_name, the one lookup), and find
    the qrels of each. Without -m: `default` when the campaign has ranked runs, else every
    text score stored for it."""
    ranked = ranked_runs(con, campaign)
    stored = _stored_text_measures(con, campaign)
    if measures:
        specs = list(measures)
    elif ranked:
        specs = list(default)
    elif stored:
        specs = stored
    else:
        raise WarehouseError(f"campaign {campaign!r} has no ranked runs and no stored ROUGE or "
                             f"nugget scores: store some first (irw rouge --campaign "
                             f"{campaign} --references SET; irw nuggets -C {campaign} "
                             "--nuggets SET -m nuggetF --store)")
    scope = Scope(specs, ranked, {})
    for spec in dict.fromkeys(specs + list(extra)):
        try:
            name, as_stored = score_name(con, campaign, spec)
        except MeasureError:
            as_stored = False     # e.g. P.5,10 names several measures: the grammar reads it
        if as_stored:
            scope.text[name] = _filed_under(con, campaign, name, qrels)
            continue
        if not ranked:
            raise WarehouseError(f"campaign {campaign!r} has no ranked runs, so no {spec} "
                                 f"scores; its stored text scores: {_listed(stored)}")
        try:
            measure_names([spec])
        except MeasureError as exc:
            hint = f"; stored text scores of {campaign!r}: {_listed(stored)}" if stored else ""
            raise MeasureError(f"{exc}{hint}") from None
        scope.ranked_specs.append(spec)
    if ranked:
        scope.qrels = _judgments(con, campaign, qrels)
    return scope


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def _stored_text_measures(con, campaign: str) -> list[str]:
    rows = con.execute("""
        SELECT DISTINCT s.measure FROM score s JOIN qrels q USING (qrels_id)
        JOIN campaign c ON c.campaign_id = q.campaign_id
        WHERE c.name = ? AND list_contains(?, q.format)
        ORDER BY s.measure""", [campaign, list(TEXT_SETS)]).fetchall()
    return [m for (m,) in rows]


def _filed_under(con, campaign: str, measure: str, qrels: str | None) -> tuple[str, str]:
    """The (set, options) a text measure's scores are stored under; --qrels picks a set."""
    rows = con.execute("""
        SELECT DISTINCT qrels, options FROM topic_score
        WHERE campaign = ? AND measure = ? ORDER BY ALL""", [campaign, measure]).fetchall()
    if qrels is not None and any(q == qrels for q, _ in rows):
        rows = [r for r in rows if r[0] == qrels]
    if len(rows) > 1:
        sets = "; ".join(f"{q} with options '{o}'" for q, o in rows)
        how = ("choose the set with --qrels" if len({q for q, _ in rows}) > 1 else
               "the report reads one option set per measure")
        raise WarehouseError(f"scores of {measure!r} are stored several times in campaign "
                             f"{campaign!r} ({sets}): {how}")
    return rows[0]


def _judgments(con, campaign: str, qrels: str | None) -> str | None:
    """The qrels of the ranked runs: --qrels when it names judgments, else the campaign's one
    set of judgments (reference texts and gold nuggets are not judgments of ranked runs)."""
    sets = con.execute("""SELECT q.name, q.format FROM qrels q JOIN campaign c
                          USING (campaign_id) WHERE c.name = ? ORDER BY q.qrels_id""",
                       [campaign]).fetchall()
    judgments = [n for n, f in sets if f not in TEXT_SETS]
    if len(judgments) == len(sets) or qrels in judgments:
        return qrels      # no text sets: the qrels as given (errors as before)
    if len(judgments) > 1:
        raise WarehouseError(f"campaign {campaign!r} has several qrels for its ranked runs "
                             f"({', '.join(judgments)}); choose one with --qrels")
    if not judgments:
        raise WarehouseError(f"no qrels in campaign {campaign!r} for its ranked runs")
    return judgments[0]


# -- what the report shows of them ---------------------------------------------------------------
def text_scores_query(campaign: str, text: dict[str, tuple[str, str]]) -> Query:
    """Where each text score of the report is filed, and how many runs and topics it has."""
    return Query("text_scores", """
        SELECT measure, family, qrels AS filed_under, options, count(DISTINCT run) AS runs,
               count(DISTINCT topic) AS topics
        FROM topic_score
        WHERE campaign = $campaign AND list_contains($scores, [measure, qrels, options])
        GROUP BY ALL
        ORDER BY measure""", {"campaign": campaign,
                              "scores": [[m, q, o] for m, (q, o) in text.items()]})


def text_section(rows: list[dict], sql: dict) -> parts.Section:
    return parts.Section(
        "Text outputs: ROUGE and nugget scores",
        "Scores of text outputs as stored by irw rouge (family rouge: the per-evaluation R, P "
        "and F of ROUGE-1.5.5, rounded to 5 decimals as it prints them) and irw nuggets "
        "--store (family nuggets), each filed under the reference set or nugget set it was "
        "computed against and ROUGE's options. A run's mean is the plain mean over topics "
        "(ROUGE's own Average_X is a bootstrap mean: docs/texts.md).",
        [parts.table("text_scores", rows, ["measure", "family", "filed_under", "options",
                                           "runs", "topics"]), sql])


def text_facts(text: dict[str, tuple[str, str]]) -> dict[str, str]:
    """The report's header line for text scores: each one's set and options."""
    if not text:
        return {}
    return {"text scores (set, options)": "; ".join(
        f"{m} ({q}{', ' + o if o else ''})" for m, (q, o) in text.items())}


def ranked_note(campaign: str) -> parts.Section:
    return parts.Section(
        "Curves of ranked runs: not in this report",
        f"Campaign {campaign} has no ranked runs (text outputs only), so the "
        "precision-recall curves, precision and nDCG by rank cutoff and cumulated gain "
        "curves, which are drawn from ranked lists and relevance judgments, are left out.")


def baseline_note(run_means: list[dict], names: list[str], baseline: str) -> list[dict]:
    """Measures the baseline has no scores of (in a campaign of ranked runs and text outputs,
    a text run has no ranked scores and a ranked run no ROUGE scores): no pairs for them."""
    have = {r["measure"] for r in run_means if r["run"] == baseline}
    lacking = [m for m in names if m not in have]
    if not lacking:
        return []
    return [parts.note(f"{baseline} has no {', '.join(lacking)} scores, so these measures "
                       "have no rows here (ranked runs and text outputs are different runs): "
                       "choose a baseline that has them with --baseline.")]


def online_note(baseline: str, ranked: bool) -> parts.Section:
    why = (f"the baseline {baseline} is not a ranked run; give a ranked run with --baseline"
           if ranked else "the campaign has no ranked runs")
    return parts.Section(
        "Precision histogram and click logs: not in this report",
        "The online sections (the precision histogram, which compares the R-precision of "
        f"ranked runs with a ranked baseline's, and the click-log summary) need ranked runs, "
        f"and {why}.")
