"""Online evaluation (irwarehouse.online): `irw ingest sessions|preferences|known`,
`irw interleave`, `irw online eval|ab|preferences|measures` and `irw meta predictive-power`.
Heavy imports stay inside the commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import (
    Campaign,
    TableFormat,
    TableFormatOpt,
    WarehouseOpt,
    _guard,
    app,
    choices,
    ingest_app,
    meta_app,
    open_warehouse,
    warn,
)
from .options import QrelsOpt

online_app = typer.Typer(help="Sessions, click logs, A/B tests and side-by-side preferences.",
                         no_args_is_help=True)
OptCampaign = Annotated[str | None, typer.Option(
    "--campaign", "-C", help="Campaign name (default: found from the file's runs or topics).")]


Method = choices("Method", "balanced", "team_draft", "probabilistic", "optimized")


Stop = choices("Stop", "either", "turn")


Level = choices("Level", "session", "topic")


First = choices("First", "a", "b", "random")


def _open(warehouse, *, create: bool = True):
    return open_warehouse(warehouse, create=create, macros=False)


def _emit(records: list[dict], fmt: TableFormat, columns: list[str] | None = None) -> None:
    from ..meta.render import render
    sys.stdout.write(render(records, fmt.value, columns=columns))


# -- ingest ----------------------------------------------------------------------------------
@ingest_app.command("sessions")
def ingest_sessions(
    file: Annotated[Path, typer.Argument(help="Session log: tab-separated, header line "
                    "session topic query_no rank doc [clicked click_time dwell].")],
    campaign: Campaign,
    run: Annotated[str | None, typer.Option("--run", "--system", help="The system that "
                   "produced the sessions: its run name in the campaign (default: the file "
                   "name).")] = None,
    team: Annotated[str | None, typer.Option(help="Team of that system.")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a session log of the same name.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest a search log of sessions (one row per shown result) into a campaign, as the
    run that names its system (one transaction)."""
    def body():
        from ..online.store import ingest_sessions as ingest
        with _open(warehouse) as wh:
            rid, rows, sessions = ingest(wh.con, file, campaign, run=run, team=team,
                                         replace=replace)
            name = wh.con.execute("SELECT name FROM run WHERE run_id = ?", [rid]).fetchone()[0]
        typer.echo(f"ingested {rows} rows of {sessions} sessions from {file} into campaign "
                   f"{campaign} as run {name}")
    _guard(body)


@ingest_app.command("preferences")
def ingest_preferences(
    file: Annotated[Path, typer.Argument(help="Preferences: topic left_run right_run "
                    "preference assessor (preference = left | right | tie).")],
    campaign: OptCampaign = None,
    replace: Annotated[bool, typer.Option(help="Drop the campaign's earlier preferences.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest side-by-side preference judgments between runs (one transaction)."""
    def body():
        from ..online.store import ingest_preferences as ingest
        with _open(warehouse, create=False) as wh:
            n = ingest(wh.con, file, campaign, replace=replace)
        typer.echo(f"ingested {n} preferences from {file}")
    _guard(body)


@ingest_app.command("known")
def ingest_known(
    file: Annotated[Path, typer.Argument(help="Known documents: user topic doc.")],
    campaign: OptCampaign = None,
    replace: Annotated[bool, typer.Option(help="Drop the campaign's earlier known "
                       "documents.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest the documents each user already knew (coverage, novelty, relative recall,
    recall effort)."""
    def body():
        from ..online.store import ingest_known as ingest
        with _open(warehouse) as wh:
            n = ingest(wh.con, file, campaign, replace=replace)
        typer.echo(f"ingested {n} known documents from {file}")
    _guard(body)


# -- interleave ------------------------------------------------------------------------------
@app.command("interleave")
def interleave(
    campaign: Campaign,
    run: Annotated[list[str] | None, typer.Option("--run", help="The two runs to "
                   "interleave: --run A --run B.")] = None,
    method: Annotated[Method, typer.Option(help="Interleaving method.")] = Method.team_draft,
    seed: Annotated[int, typer.Option(help="Random seed (recorded).")] = 1,
    depth: Annotated[int, typer.Option(help="Length of the interleaved lists (the top "
                     "`depth` of each run are mixed).")] = 10,
    name: Annotated[str | None, typer.Option(help="Name of the interleaving (default: "
                    "A~B.method.seed).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the interleaved "
                   "lists as a TREC run file.")] = None,
    first: Annotated[First, typer.Option(help="Balanced: which run goes first (random: a "
                     "seeded coin per topic; a: Baeza-Yates & Ribeiro-Neto's combine_ranking)"
                     ".")] = First.random,
    stop: Annotated[Stop, typer.Option(help="Balanced: stop when either run is exhausted "
                    "(Joachims) or only when the run whose turn it is is (combine_ranking)."
                    )] = Stop.either,
    tau: Annotated[float, typer.Option(help="Probabilistic: softmax exponent.")] = 3.0,
    clicks: Annotated[Path | None, typer.Option(help="A click log of the interleaved lists "
                      "(session-log format): infer each impression's outcome.")] = None,
    B: Annotated[int, typer.Option("-B", help="Bootstrap resamples of the summary.")] = 1000,
    replace: Annotated[bool, typer.Option(help="Replace an interleaving of the same name.")]
    = False,
    fmt: TableFormatOpt = TableFormat.table,
    warehouse: WarehouseOpt = None,
):
    """Interleave two runs, credit clicks, and test who wins (sign test, bootstrap interval).

    Two stored runs are interleaved topic by topic (--run A --run B); outcomes are inferred
    from a click log (--clicks); wins/losses/ties per pair are printed. With --run, the lists
    are made (and stored, and written with --out); with --clicks, outcomes are added to the
    interleaving --name (or the one the runs, method and seed name); with neither, every
    stored interleaving of the campaign is summarised."""
    def body():
        from ..errors import IrwError
        from ..online import interleave_store as ist
        if run is not None and len(run) != 2:
            raise IrwError("give exactly two runs: --run A --run B")
        label = name if name is not None else \
            (f"{run[0]}~{run[1]}.{method.value}.{seed}" if run else None)
        with _open(warehouse, create=False) as wh:
            if run and (clicks is None or not _exists(wh.con, campaign, label)):
                params = {"first": None if first == First.random else first.value,
                          "stop": stop.value}
                if method == Method.probabilistic:
                    params = {"tau": tau}
                elif method != Method.balanced:
                    params = {}
                made = ist.make(wh.con, campaign, run[0], run[1], method=method.value,
                                seed=seed, depth=depth, name=label, out=out, replace=replace,
                                **params)
                typer.echo(f"interleaving {made.name}: {made.topics} topics ({method.value}, "
                           f"seed {seed}, depth {depth})" + (f", run file {out}" if out else ""),
                           err=True)
                if made.skipped:
                    warn(f"{len(made.skipped)} topics are in one run only and were not "
                         "interleaved")
            if clicks is not None:
                if label is None:
                    raise IrwError("--clicks needs the interleaving: --name N or --run A --run B")
                n = ist.infer_outcomes(wh.con, campaign, label, clicks)
                typer.echo(f"{n} impressions of {label} credited from {clicks}", err=True)
            summaries = ist.summarise(wh.con, campaign, name=label if clicks or run else None,
                                      B=B, seed=seed)
        _emit([s.record() for s in summaries], fmt,
              ["interleaving", "method", "run_a", "run_b", "impressions", "no_click", "wins",
               "losses", "ties", "delta", "ci_low", "ci_high", "p_sign"])
    _guard(body)


def _exists(con, campaign: str, name: str | None) -> bool:
    if name is None:
        return False
    return con.execute("""SELECT count(*) FROM interleaving i JOIN campaign c USING (campaign_id)
                          WHERE c.name = ? AND i.name = ?""", [campaign, name]).fetchone()[0] > 0


# -- online eval / ab / preferences / measures --------------------------------------------------
@online_app.command("eval")
def online_eval(
    campaign: Campaign,
    measure: Annotated[list[str], typer.Option("--measure", "-m", help="Session, click or "
                       "user-oriented measure (repeatable), e.g. -m sDCG@10 -m CTR -m "
                       "'U_click(traversal=linear)' -m 'E(b=0.5)@10'.")],
    run: Annotated[str | None, typer.Option("--run", help="Only this system/run.")] = None,
    qrels: QrelsOpt = None,
    level: Annotated[Level, typer.Option(help="session: one value per session (its id in "
                     "the topic column); topic: the mean over the sessions of each topic.")]
    = Level.session,
    store: Annotated[bool, typer.Option(help="Store the values in the score table.")]
    = False,
    query: Annotated[bool, typer.Option("-q", help="Per-session/topic values too.")] = False,
    fmt: TableFormatOpt = TableFormat.table,
    warehouse: WarehouseOpt = None,
):
    """Evaluate session, click and user-oriented measures (SQL macros over the warehouse)."""
    def body():
        from ..online import measures as om
        with _open(warehouse, create=False) as wh:
            requests, rows, warnings = om.evaluate(wh.con, campaign, measure, run=run,
                                                   qrels=qrels, level=level.value)
            if store:
                n = om.store(wh.con, campaign, requests, rows, qrels=qrels, level=level.value)
                typer.echo(f"stored {n} values in the score table", err=True)
        for w in warnings:
            warn(w)
        _emit(_eval_records(requests, rows, query), fmt,
              ["measure", "run", "topic", "value", "n"])
    _guard(body)


def _eval_records(requests, rows, per_topic: bool) -> list[dict]:
    out = []
    for req in requests:
        mine = [r for r in rows if r[0] == req.name]
        for run_name in sorted({r[1] for r in mine}):
            values = [v for m, r, _, v in mine if r == run_name and v is not None]
            if per_topic:
                out += [{"measure": m, "run": r, "topic": t, "value": v, "n": 1}
                        for m, r, t, v in mine if r == run_name]
            out.append({"measure": req.name, "run": run_name, "topic": "all",
                        "value": sum(values) / len(values) if values else None,
                        "n": len(values)})
    return out


@online_app.command("ab")
def online_ab(
    campaign: Campaign,
    a: Annotated[str, typer.Option("--a", help="Session log of arm A (control).")],
    b: Annotated[str, typer.Option("--b", help="Session log of arm B (treatment).")],
    B: Annotated[int, typer.Option("-B", help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed (recorded).")] = 1,
    fmt: TableFormatOpt = TableFormat.table,
    warehouse: WarehouseOpt = None,
):
    """A/B test of two systems' click logs: per-arm CTR, abandonment, time to first click,
    clicks per query, mean click rank; B - A with a bootstrap interval and the unpaired
    bootstrap test."""
    def body():
        from ..online.abtest import compare_arms
        with _open(warehouse, create=False) as wh:
            rows = compare_arms(wh.con, campaign, a, b, B=B, seed=seed)
        _emit([r.__dict__ for r in rows], fmt)
    _guard(body)


@online_app.command("preferences")
def online_preferences(campaign: Campaign, fmt: TableFormatOpt = TableFormat.table,
                       warehouse: WarehouseOpt = None):
    """Side-by-side preferences per pair of runs, with a two-sided binomial (sign) test."""
    def body():
        from ..online.preferences import pair_counts
        with _open(warehouse, create=False) as wh:
            rows = pair_counts(wh.con, campaign)
        _emit([r.record() for r in rows], fmt)
    _guard(body)


@online_app.command("measures")
def online_measures():
    """List the online measures (sql/online/*.sql) with their parameters."""
    def body():
        from ..online.measures import catalog
        seen = set()
        for mdef in catalog().values():
            if mdef.name in seen:
                continue
            seen.add(mdef.name)
            params = "; ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
            alias = f" (aliases: {', '.join(mdef.aliases)})" if mdef.aliases else ""
            typer.echo(f"{mdef.name:<22} {mdef.family + '.sql':<14} {params}{alias}")
    _guard(body)


# -- irw meta predictive-power ----------------------------------------------------------------
@meta_app.command("predictive-power")
def meta_predictive_power(
    campaign: Campaign,
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", help="Stored "
                       "measure (repeatable; default: every measure stored for the "
                       "campaign).")] = None,
    qrels: QrelsOpt = None,
    fmt: TableFormatOpt = TableFormat.table,
    warehouse: WarehouseOpt = None,
):
    """Predictive power: the share of side-by-side preferences whose direction a metric's
    per-topic difference reproduces (people's ties left out; metric ties count as misses)."""
    def body():
        from ..online.preferences import predictive_power
        from ..request.evaluation import score_name
        with _open(warehouse, create=False) as wh:
            # ROUGE and nugget scores are stored under names the grammar does not read
            names = [score_name(wh.con, campaign, m)[0] for m in measure] if measure else None
            rows = predictive_power(wh.con, campaign, names, qrels=qrels)
        _emit([r.record() for r in rows], fmt)
    _guard(body)


app.add_typer(online_app, name="online")
