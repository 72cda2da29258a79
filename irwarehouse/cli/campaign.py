"""`irw campaign set|show|clear` (a campaign's evaluation profile, table campaign_profile) and
`irw campaigns` (every campaign with its counts and profile)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import (
    TableFormat,
    TableFormatOpt,
    WarehouseOpt,
    _guard,
    app,
    open_warehouse,
)
from .options import evaluation_options

campaign_app = typer.Typer(help="A campaign's evaluation profile: the qrels and options that "
                           "eval -C, report, compare and meta use unless told otherwise.",
                           no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")

CampaignArg = Annotated[str, typer.Argument(help="Campaign name.")]


@campaign_app.command("set")
@evaluation_options()
def campaign_set(campaign: CampaignArg, warehouse: WarehouseOpt = None, *, settings):
    """Set the campaign's evaluation profile, e.g. NTCIREVAL's settings for WWW-4:
    `irw campaign set www4 --gains 1:2 --order file -c -M 1000 --qrels official`.

    Options not given keep their value (`irw campaign clear` removes them all)."""
    def body():
        from ..engine.settings import save_profile
        from ..errors import IrwError
        if settings.empty:
            raise IrwError("give the options to set, e.g. irw campaign set "
                           f"{campaign} --gains 1:2 --order file -c -M 1000 --qrels NAME")
        with open_warehouse(warehouse, create=False) as wh:
            profile = save_profile(wh.con, campaign, settings)
        typer.echo(f"{campaign}: {profile.flags()}")
    _guard(body)


@campaign_app.command("show")
def campaign_show(campaign: CampaignArg, warehouse: WarehouseOpt = None):
    """Print the campaign's profile as the flags that set it."""
    def body():
        from ..engine.settings import load_profile
        from ..store.ingest import campaign_id
        with open_warehouse(warehouse, read_only=True, create=False) as wh:
            campaign_id(wh.con, campaign)
            profile = load_profile(wh.con, campaign)
        typer.echo(f"{campaign}: {profile.flags() or '(no profile: defaults)'}")
    _guard(body)


@campaign_app.command("clear")
def campaign_clear(campaign: CampaignArg, warehouse: WarehouseOpt = None):
    """Remove the campaign's profile (commands use the defaults again)."""
    def body():
        from ..engine.settings import clear_profile
        with open_warehouse(warehouse, create=False) as wh:
            had = clear_profile(wh.con, campaign)
        typer.echo(f"{campaign}: profile cleared" if had else f"{campaign}: had no profile")
    _guard(body)


@app.command("campaigns")
def campaigns(fmt: TableFormatOpt = TableFormat.table, warehouse: WarehouseOpt = None):
    """List the campaigns: runs, topics and qrels counts, and the evaluation profile."""
    def body():
        with open_warehouse(warehouse, read_only=True, create=False) as wh:
            records = campaign_records(wh.con)
        typer.echo(_render(records, fmt.value), nl=False)
    _guard(body)


def campaign_records(con) -> list[dict]:
    """One dict per campaign: name, runs, topics (judged), qrels (their names), profile."""
    from ..engine.settings import load_profile
    rows = con.execute("""
        SELECT c.name,
               (SELECT count(*) FROM run r WHERE r.campaign_id = c.campaign_id),
               (SELECT count(DISTINCT j.topic) FROM judgment j JOIN qrels q USING (qrels_id)
                WHERE q.campaign_id = c.campaign_id),
               (SELECT list(q.name ORDER BY q.name) FROM qrels q
                WHERE q.campaign_id = c.campaign_id)
        FROM campaign c ORDER BY c.name""").fetchall()
    return [{"campaign": name, "runs": runs, "topics": topics, "qrels": list(qrels or []),
             "profile": load_profile(con, name).flags()}
            for name, runs, topics, qrels in rows]


def _render(records: list[dict], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(records, indent=2) + "\n"
    if fmt in ("csv", "tsv"):
        from ..meta.render import render
        return render([{**r, "qrels": " ".join(r["qrels"])} for r in records], fmt)
    if not records:
        return "no campaigns (ingest qrels and runs with `irw ingest`)\n"
    from ..failures import clean
    table = [["campaign", "runs", "topics", "qrels", "profile"]] + [
        [clean(r["campaign"]), str(r["runs"]), str(r["topics"]),
         clean(f"{len(r['qrels'])} ({', '.join(r['qrels'])})") if r["qrels"] else "0",
         clean(r["profile"]) or "-"] for r in records]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    return "".join("  ".join(f"{c:<{w}}" for c, w in zip(row, widths)) + "  " + row[4] + "\n"
                   for row in table)
