"""The scores a report reads: the one request's (request.evaluation.scores), evaluated and
stored first when some run of the campaign lacks them."""

from __future__ import annotations

from ..request.evaluation import ranked_runs  # noqa: F401  (the reports' list of ranked runs)


def ensure_scores(wh, campaign: str, qrels: str | None, specs: list[str], given=None,
                  report=None, options_text: str | None = None,
                  store: bool = True) -> tuple[str, str]:
    """Make every requested measure stored for every ranked run of the campaign, under the
    request's qrels and options (the given settings over the campaign's profile; `options_text`:
    the stored option set a report's earlier section chose); `report(text)` is told which.
    Returns (qrels name, the option set as stored text, which the report's SQL reads).
    `store=False` (the live report page, on a read-only warehouse): a measure some run lacks
    is an error that says how to store it, as the report's SQL reads stored scores only."""
    from dataclasses import replace

    from ..request.evaluation import scope, scores
    from ..options import EvalSettings, parse_described
    given = given or EvalSettings()
    if options_text is not None:
        given = parse_described(options_text).as_settings()
    if qrels is not None:
        given = replace(given, qrels=qrels)
    where = scope(wh.con, campaign, given)
    for spec in specs:                   # a spec may name several measures (P.5,10)
        found = scores(wh.con, where, measure_names([spec], where.options), store=store)
        lacking = [ms.name for ms in found if ms.source == "evaluated"]     # not stored
        if lacking:
            from ..errors import WarehouseError
            raise WarehouseError(
                f"the report reads stored scores, and {', '.join(lacking)} is not stored for "
                f"every run of {campaign!r} under {where.describe()}: `irw report -C "
                f"{campaign}` (or `irw eval -C {campaign} --store`) stores it")
    if report is not None and where.worth_naming and options_text is None:
        report(f"report scores of {where.describe()}")
    return where.qrels, where.options.describe()


def measure_names(specs: list[str], options=None) -> list[str]:
    """Stored (canonical) names of the requested measures, in the order given (the first drives
    plots); `options`: the evaluation's (its -g is a measure's gains, not its name)."""
    from ..measures import parse_measures
    gains = dict(options.gains) if options is not None else None
    names: list[str] = []
    for spec in specs:
        names += [n for n in (req.stored_name(gains) for req in parse_measures([spec]))
                  if n not in names]
    return names
