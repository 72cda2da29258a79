"""`irw init` and `irw ingest ...`: qrels, runs (one file or a folder), intents, document
lengths into a warehouse, each in one transaction."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import (
    Campaign,
    QrelsFormat,
    WarehouseOpt,
    _guard,
    _warehouse_path,
    app,
    choices,
    ingest_app,
    open_warehouse,
)


@app.command()
def init(warehouse: WarehouseOpt = None):
    """Create a warehouse file (or bring an existing one's schema up to date)."""
    def body():
        from ..store.connection import connect
        from ..store.storage import clients
        path = _warehouse_path(warehouse)
        con = connect(path)
        try:
            opens = clients(con)
        finally:
            con.close()
        typer.echo(f"warehouse ready: {path} ({opens})")
    _guard(body)


@ingest_app.command("qrels")
def ingest_qrels(
    file: Annotated[Path, typer.Argument(help="Qrels file (may be gzipped), or "
                    "irds:DATASET_ID (an ir_datasets dataset's qrels).")],
    campaign: Campaign,
    name: Annotated[str | None, typer.Option(help="Name of this judgment set "
                                                "(default: the file name).")] = None,
    fmt: Annotated[QrelsFormat | None, typer.Option("--format", help="qrels: topic iter doc "
                   "rel; diversity: topic subtopic doc rel; ntcir_qrels: topic doc Lx; "
                   "sampleval: topic iter doc stratum rel (sample_eval.pl); prels: topic doc "
                   "rel method probability (statAP_MQ_eval). Default: read from the first "
                   "lines (3 fields: ntcir_qrels; 4 with Lx levels: diversity; 4 with numbers: "
                   "qrels; 5: sampleval or prels).")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a qrels of the same name.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest judgments into a campaign (one transaction).

    FILE may be `irds:DATASET_ID`: the qrels of an ir_datasets dataset (ad hoc, or diversity
    with subtopics), its ID and the ir_datasets version recorded as their source."""
    def body():
        from contextlib import nullcontext

        from ..formats.irds import dataset_id
        from ..formats.sniff import format_named, sniff_qrels_format
        if dataset_id(file) is not None:
            return _ingest_irds_qrels(str(file), campaign, name, fmt, replace, warehouse)
        qformat = fmt.value if fmt else sniff_qrels_format(file, flag="--format")
        named = nullcontext() if fmt else format_named(file, qformat, "--format")
        with open_warehouse(warehouse) as wh, named:
            qid = wh.ingest_qrels(file, campaign, name=name, fmt=qformat, replace=replace)
            n = wh.con.execute("SELECT num_rows FROM qrels WHERE qrels_id = ?", [qid]).fetchone()
        typer.echo(f"ingested {n[0]} judgments from {file} into campaign {campaign}")
    _guard(body)


def _ingest_irds_qrels(source: str, campaign, name, fmt, replace, warehouse) -> None:
    from ..errors import IrwError
    if fmt is not None:
        raise IrwError("--format does not apply to irds: sources (the dataset's qrels type, ad "
                       "hoc or diversity, decides)")
    with open_warehouse(warehouse) as wh:
        qid = wh.ingest_qrels(source, campaign, name=name, replace=replace)
        n, kind, version = wh.con.execute("SELECT num_rows, format, source_version FROM qrels "
                                          "WHERE qrels_id = ?", [qid]).fetchone()
    typer.echo(f"ingested {n} judgments ({kind}) from {source} ({version}) into campaign "
               f"{campaign}")


@ingest_app.command("run")
def ingest_run(
    file: Annotated[Path, typer.Argument(help="TREC run file (may be gzipped).")],
    campaign: Campaign,
    name: Annotated[str | None, typer.Option(help="Run name (default: its run tag).")] = None,
    team: Annotated[str | None, typer.Option(help="Team that submitted the run.")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a run of the same name.")] = False,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents "
                                             "instead of refusing the file.")] = False,
    metadata: Annotated[Path | None, typer.Option(
        help="The run's ir_metadata (ir-metadata.org; Breuer et al., SIGIR 2022) as a YAML "
        "file. Default: the `# ir_metadata.start` ... `# ir_metadata.end` block at the head "
        "of the run file, if any.")] = None,
    warehouse: WarehouseOpt = None,
):
    """Ingest a run into a campaign (one transaction), with its ir_metadata if it has any."""
    def body():
        with open_warehouse(warehouse) as wh:
            rid = wh.ingest_run(file, campaign, name=name, team=team, replace=replace,
                                keep_first=keep_first, metadata=metadata)
            row = wh.con.execute("SELECT name, num_rows, ir_metadata IS NOT NULL FROM run "
                                 "WHERE run_id = ?", [rid]).fetchone()
        typer.echo(f"ingested run {row[0]} ({row[1]} rows) from {file} into campaign {campaign}"
                   + (" with its ir_metadata" if row[2] else ""))
    _guard(body)


# the first name of sakai2013, still accepted
Scheme = choices("Scheme", "uniform", "sakai2013", "seed001")


@ingest_app.command("intents")
def ingest_intents(
    campaign: Campaign,
    file: Annotated[Path | None, typer.Argument(
        help="Intent file: NTCIREVAL Iprob (topic intent prob) or DINprob (topic intent prob "
        "inf|nav).")] = None,
    normalise: Annotated[bool, typer.Option(help="Rescale a topic's probabilities that do "
                                            "not sum to 1 (otherwise an error).")] = False,
    scheme: Annotated[Scheme | None, typer.Option(
        help="Instead of a file: probabilities for every intent of the campaign's diversity "
        "qrels: uniform, or the j-th of n intents 2^(n-j+1)/sum 2^k (sakai2013: Sakai, IPSJ "
        "Journal of Information Processing 2013, Table 1; seed001, its first name, is still "
        "accepted).")] = None,
    warehouse: WarehouseOpt = None,
):
    """Ingest intent probabilities and types (diversity measures) into a campaign."""
    def body():
        from ..errors import IrwError
        if (file is None) == (scheme is None):
            raise IrwError("give an intent FILE or --scheme")
        with open_warehouse(warehouse) as wh:
            if file is not None:
                n = wh.ingest_intents(file, campaign, normalise=normalise)
                typer.echo(f"ingested {n} intents from {file} into campaign {campaign}")
            else:
                n = wh.assign_intent_probabilities(campaign, scheme=scheme.value)
                typer.echo(f"{scheme.value} probabilities for {n} intents of campaign "
                           f"{campaign}")
    _guard(body)


@ingest_app.command("alphas")
def ingest_alphas(
    file: Annotated[Path, typer.Argument(help="Per-topic alphas: topic alpha (alpha in [0, "
                                         "1]), one line per topic.")],
    campaign: Campaign,
    warehouse: WarehouseOpt = None,
):
    """Ingest a novelty parameter alpha per topic (alpha-nDCG-Pr; Leelanupab, Zuccon & Jose,
    ICTIR 2011) into a campaign."""
    def body():
        with open_warehouse(warehouse) as wh:
            n = wh.ingest_topic_alphas(file, campaign)
            typer.echo(f"ingested the alphas of {n} topics from {file} into campaign {campaign}")
    _guard(body)


LengthUnit = choices("LengthUnit", "words", "chars")


@ingest_app.command("doclengths")
def ingest_doclengths(
    file: Annotated[Path, typer.Argument(help="Lengths: docno<TAB>length (in --unit), or "
                                         "docno<TAB>words<TAB>chars; may be gzipped.")],
    campaign: Campaign,
    unit: Annotated[LengthUnit, typer.Option(help="Unit of a 2-field line: words (TBG) or "
                    "chars (U-measure).")] = LengthUnit.words,
    warehouse: WarehouseOpt = None,
):
    """Ingest document lengths (for TBG and the U-measure) into a campaign (one transaction)."""
    def body():
        with open_warehouse(warehouse) as wh:
            n = wh.ingest_doclengths(file, campaign, unit=unit.value)
        typer.echo(f"ingested {n} document lengths ({unit.value}) from {file} into campaign "
                   f"{campaign}")
    _guard(body)


TopicFormat = choices("TopicFormat", "trec", "xml", "tsv")


@ingest_app.command("topics")
def ingest_topics(
    file: Annotated[Path, typer.Argument(help="Topic file: TREC <top> topics, NTCIR/TREC XML "
                    "(<topics><topic><number>..</number><query>..</query>), or id<TAB>title "
                    "lines; may be gzipped. Or irds:DATASET_ID (an ir_datasets dataset's "
                    "queries).")],
    campaign: Campaign,
    fmt: Annotated[TopicFormat | None, typer.Option("--format", help="File format (default: "
                   "told from the first line).")] = None,
    warehouse: WarehouseOpt = None,
):
    """Ingest topic statements (id, title, description, type) into a campaign's topic table
    (one transaction), so that reports show titles.

    FILE may be `irds:DATASET_ID`: the queries of an ir_datasets dataset."""
    def body():
        from ..errors import IrwError
        from ..formats.irds import dataset_id
        from ..formats.topics import read_topics
        from ..store.topics import store_topics
        did = dataset_id(file)
        if did is not None:
            if fmt is not None:
                raise IrwError("--format does not apply to irds: sources")
            from ..store.irds import ingest_irds_topics
            with open_warehouse(warehouse) as wh:
                n, judged = ingest_irds_topics(wh.con, did, campaign)
        else:
            topics = read_topics(file, fmt.value if fmt else None)
            with open_warehouse(warehouse) as wh:
                n, judged = store_topics(wh.con, campaign, topics,
                                         source=str(Path(file).resolve()))
        typer.echo(f"ingested {n} topics from {file} into campaign {campaign}"
                   + (f" ({judged} of them judged in its qrels)" if judged is not None else ""))
        if judged == 0:
            typer.echo(f"irw: warning: no topic of {file} is judged in campaign {campaign}'s "
                       "qrels; are the ids spelled alike (e.g. 0201 and 201)?", err=True)
    _guard(body)


@ingest_app.command("teams")
def ingest_teams(
    file: Annotated[Path, typer.Argument(help="Team mapping: run<TAB>team lines (# comments); "
                    "may cover several campaigns.")],
    campaign: Campaign,
    warehouse: WarehouseOpt = None,
):
    """Set the team of a campaign's runs from a mapping file (one transaction), so that
    run_family and cross-campaign views join a team's runs across years."""
    def body():
        from ..analyst.teams import read_team_file, set_teams
        teams = read_team_file(file)
        with open_warehouse(warehouse) as wh:
            n, absent, unmapped = set_teams(wh.con, campaign, teams)
        typer.echo(f"set the team of {n} runs of campaign {campaign} from {file}"
                   + (f" ({len(absent)} runs of the file are in other campaigns or none)"
                      if absent else ""))
        if unmapped:
            typer.echo(f"irw: note: {len(unmapped)} runs of campaign {campaign} are not in the "
                       f"file and keep their team: {', '.join(unmapped[:5])}"
                       + (", ..." if len(unmapped) > 5 else ""), err=True)
    _guard(body)


RunNames = choices("RunNames", "tag", "file")


@ingest_app.command("runs")
def ingest_runs(
    folder: Annotated[Path, typer.Argument(help="Folder of TREC run files (may be gzipped).",
                      exists=True, file_okay=False)],
    campaign: Campaign,
    team_pattern: Annotated[str | None, typer.Option(
        help="Regex on the file name; its first group is the team (default: the run name up "
        "to its first digit or dot).")] = None,
    glob: Annotated[str, typer.Option(help="Only files matching this glob.")] = "*",
    names: Annotated[RunNames, typer.Option(help="Name runs by their run tag or by their "
                     "file name (for runs that share a tag).")] = RunNames.tag,
    year: Annotated[int | None, typer.Option(help="Record the campaign's year.")] = None,
    venue: Annotated[str | None, typer.Option(help="Record the campaign's venue.")] = None,
    replace: Annotated[bool, typer.Option(help="Replace runs of the same name.")] = False,
    skip_existing: Annotated[bool, typer.Option(help="Skip runs already stored.")] = False,
    keep_going: Annotated[bool, typer.Option(help="Store the good files and list the bad "
                          "ones (file:line: error) at the end, exit 1; without it one bad "
                          "file stores nothing.")] = False,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest every run file of a folder, all or nothing (one read of the files, one
    transaction), with a progress bar."""
    def body():
        from ..analyst.bulk import StderrProgress, ingest_folder, run_files
        files = run_files(folder, glob)
        with open_warehouse(warehouse) as wh:
            bar = StderrProgress(len(files), "checking runs")
            result = ingest_folder(wh.con, folder, campaign, team_pattern=team_pattern,
                                   glob=glob, replace=replace, skip_existing=skip_existing,
                                   keep_going=keep_going, keep_first=keep_first,
                                   names=names.value, year=year, venue=venue,
                                   progress=bar.step)
        for name, run, team in result.stored:
            typer.echo(f"{name}\t{run}\tteam={team or ''}")
        for name, why in result.skipped:
            typer.echo(f"skipped {name}: {why}", err=True)
        for name, error in result.failed:
            typer.echo(f"irw: error: {error}", err=True)
        typer.echo(f"{len(result.stored)} runs stored in campaign {campaign}"
                   + (f", {len(result.skipped)} skipped" if result.skipped else "")
                   + (f", {len(result.failed)} failed" if result.failed else ""), err=True)
        if result.failed:
            raise typer.Exit(1)
    _guard(body)
