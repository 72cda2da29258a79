"""The scores a report reads: stored, or evaluated (under the campaign's option set) and
stored first when some run of the campaign lacks them."""

from __future__ import annotations


def ensure_scores(wh, campaign: str, qrels: str | None, specs: list[str], given=None,
                  report=None, options_text: str | None = None) -> tuple[str, str]:
    """Evaluate and store every requested measure that the score table lacks for some run of
    the campaign, under the option set engine.settings.option_set chooses (the given settings
    over the campaign's profile, else the one stored set, else the defaults); `report(text)` is
    told which; `options_text`: that stored option set instead (a report's later sections
    read the set its first one chose). Returns (qrels name, options text)."""
    from dataclasses import replace

    from ..engine.settings import EvalSettings, OptionSet, option_set, parse_option_set
    from ..measures import parse_measures
    given = given or EvalSettings()
    if qrels is not None:
        given = replace(given, qrels=qrels)
    chosen = option_set(wh.con, campaign, specs[:1], given) if options_text is None else \
        OptionSet(campaign, given.qrels, parse_option_set(options_text), "the report's")
    options = chosen.options
    qid = wh.qrels_id(campaign, chosen.qrels)
    qrels_name = wh.con.execute("SELECT name FROM qrels WHERE qrels_id = ?",
                                [qid]).fetchall()[0][0]
    num_runs = len(ranked_runs(wh.con, campaign))
    missing = []
    for spec in specs:
        for req in parse_measures([spec], ntcir=chosen.ntcir()):
            have = wh.con.execute("""
                SELECT count(DISTINCT s.run_id) FROM score s JOIN run r USING (run_id)
                JOIN campaign c ON c.campaign_id = r.campaign_id
                WHERE c.name = ? AND s.qrels_id = ? AND s.options = ? AND s.measure = ?""",
                                  [campaign, qid, options.describe(), req.name]).fetchall()[0][0]
            if have < num_runs:
                missing.append(spec)
                break
    if missing:
        wh.evaluate(missing, campaign=campaign, qrels=qrels_name, store=True, options=options,
                    ntcir=chosen.ntcir())
    if report is not None and chosen.worth_naming:
        report(f"report scores of {replace(chosen, qrels=qrels_name).describe()}")
    return qrels_name, options.describe()


def measure_names(specs: list[str]) -> list[str]:
    """Stored names of the requested measures, in the order given (the first drives plots)."""
    from ..measures import parse_measures
    names: list[str] = []
    for spec in specs:
        names += [req.name for req in parse_measures([spec]) if req.name not in names]
    return names


def ranked_runs(con, campaign: str) -> list[str]:
    """The runs of the campaign with ranked rows: runs of text outputs (irw ingest texts) have
    none, and get no ranked scores."""
    rows = con.execute("""
        SELECT r.name FROM run r JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND EXISTS (SELECT 1 FROM run_row x WHERE x.run_id = r.run_id)
        ORDER BY r.name""", [campaign]).fetchall()
    return [r for (r,) in rows]
