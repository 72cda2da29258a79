"""Putting qrels and runs into the warehouse: parse into staging tables first, then one
transaction that writes the rows and their provenance (source path, sha256, time)."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import duckdb

from ..errors import WarehouseError
from ..failures import shown, unsafe
from ..formats import QRELS_FORMATS, SAMPLED_FORMATS
from ..formats.trec import sha256_of, stage_qrels, stage_run
from . import digests, interrupts
from .relevant import TABLES as RELEVANT_TABLES
from .relevant import store_relevant_rows
from .rollback import rollback

# what a stored run's rows hang on: deleted with it when it is replaced (--replace)
RUN_DEPENDENTS = ("run_row", "run_list", "score", "judged_row", "judged_pair", *RELEVANT_TABLES,
                  "run")
NAME_LIMIT = 200            # characters of a campaign, run or qrels name


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection,
                what: str | Callable[[], str] = "earlier changes"):
    """One transaction: everything or nothing (an interrupted ingest leaves no trace). A Ctrl-C
    before the COMMIT rolls it back; once the COMMIT runs, it and the record of what it kept
    (`what`, or what it returns when called at the COMMIT, for the interrupted command's last
    line; store.interrupts) finish first. The digests of what the block touched are re-recorded
    before the COMMIT (store.digests)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        digests.seal(con)
        interrupts.check()
    except BaseException:
        rollback(con)
        raise
    with interrupts.deferred():
        try:
            con.execute("COMMIT")
        except BaseException:
            rollback(con)          # a COMMIT that failed (disk full) leaves nothing open
            raise
        if digests.in_file(con):   # files evaluated in memory keep nothing
            interrupts.kept(what() if callable(what) else what)


def campaign_id(con: duckdb.DuckDBPyConnection, name: str, *, create: bool = False) -> int:
    """The id of campaign `name`; with `create`, a new campaign when there is none (its name
    checked as every name is, check_name)."""
    row = con.execute("SELECT campaign_id FROM campaign WHERE name = ?", [name]).fetchone()
    if row:
        return row[0]
    if not create:
        raise WarehouseError(f"no campaign {shown(name)} in the warehouse")
    check_name("campaign", name)
    cid = con.execute("INSERT INTO campaign (name) VALUES (?) RETURNING campaign_id",
                      [name]).fetchone()[0]
    digests.touch(con, "campaign", "campaign_id = ?", [cid])
    return cid


def check_name(kind: str, name: str) -> str:
    """A campaign, run, team, qrels (or other stored) name as every path that stores one
    checks it: 1 to NAME_LIMIT characters, not only spaces, and none of the characters that
    can move, hide or reorder what a terminal, a page or a plot shows (failures.unsafe: line
    breaks, escape sequences, right-to-left overrides, zero-width characters)."""
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_LIMIT or \
            any(unsafe(ch) for ch in name):
        raise WarehouseError(f"bad {kind} name {shown(str(name))} (names are 1 to "
                             f"{NAME_LIMIT} characters, without control, format or "
                             "zero-width characters)")
    return name


def replace_named(con: duckdb.DuckDBPyConnection, table: str, cid: int, name: str, *,
                  kind: str, campaign: str, source, replace: bool,
                  dependents: tuple[str, ...]) -> int | None:
    """The one rule for a name already taken in a campaign: refused unless `replace`; with it,
    the old row of `table` and the rows keyed by its id in `dependents` (the tables that hang
    on it, `table` itself last) are deleted. Returns the old id, None when the name is new.
    `table` and `dependents` are this package's own table names, never user input."""
    key = f"{table}_id"
    old = con.execute(f"SELECT {key} FROM {table} WHERE campaign_id = ? AND name = ?",
                      [cid, name]).fetchone()
    if old is None:
        return None
    if not replace:
        where = f"{source}: " if source else ""
        raise WarehouseError(f"{where}{kind} {name!r} is already in campaign {campaign!r} "
                             "(use --replace to replace it)")
    for dependent in dependents:
        digests.delete(con, dependent, f"{key} = ?", [old[0]])
    return old[0]


def ingest_qrels(con: duckdb.DuckDBPyConnection, path, campaign: str, *, name: str | None = None,
                 fmt: str = "qrels", replace: bool = False, digest: bool = True) -> int:
    """Store a qrels file under `campaign` (created if new) as judgment set `name`
    (default: the file name). Returns its qrels_id. `digest=False`: no sha256 of the file
    (qrels.sha256 NULL; a private warehouse that is thrown away: 4 ms of the everyday run)."""
    if fmt not in QRELS_FORMATS:
        raise WarehouseError(f"unknown qrels format {fmt!r}; use one of {', '.join(QRELS_FORMATS)}")
    path = Path(path)
    name = check_name("qrels", path.name if name is None else name)
    if fmt in SAMPLED_FORMATS:
        from ..formats.sampled import stage_sampled
        n = stage_sampled(con, path, fmt)
    else:
        n = stage_qrels(con, path, fmt_name=fmt)
    return store_staged_qrels(con, campaign, name=name, fmt=fmt, source=str(path.resolve()),
                              digest=sha256_of(path) if digest else None, num_rows=n,
                              replace=replace, label=path)


def store_staged_qrels(con: duckdb.DuckDBPyConnection, campaign: str, *, name: str, fmt: str,
                       source: str, digest: str | None, num_rows: int, replace: bool = False,
                       version: str | None = None, label=None) -> int:
    """Write the validated TEMP table stage_qrels (and stage_sample for sampled formats) as
    qrels `name` of `campaign`, in one transaction (shared by files and ir_datasets, whose
    `version` is recorded as source_version; `label`: the source as the user gave it, for
    messages). Returns its qrels_id."""
    name = check_name("qrels", name)
    with transaction(con, f"qrels {name} of campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        return write_staged_qrels(con, cid, campaign, name=name, fmt=fmt, source=source,
                                  digest=digest, num_rows=num_rows, replace=replace,
                                  version=version, label=label)


def write_staged_qrels(con: duckdb.DuckDBPyConnection, cid: int, campaign: str, *, name: str,
                       fmt: str, source: str, digest: str | None, num_rows: int,
                       replace: bool = False, version: str | None = None, label=None) -> int:
    """store_staged_qrels inside the caller's transaction, for campaign id `cid`."""
    replace_named(con, "qrels", cid, name, kind="qrels", campaign=campaign,
                  source=source if label is None else label,
                  replace=replace, dependents=("judgment", "judgment_sample", "score",
                                               "judged_row", "judged_pair", *RELEVANT_TABLES,
                                               "qrels"))
    qid = con.execute("""
        INSERT INTO qrels (campaign_id, name, format, source_path, sha256, num_rows,
                           source_version)
        VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING qrels_id""",
                      [cid, name, fmt, source, digest, num_rows, version]).fetchone()[0]
    con.execute("INSERT INTO judgment SELECT ?, topic, intent, doc, rel FROM stage_qrels", [qid])
    if fmt in SAMPLED_FORMATS:
        con.execute("INSERT INTO judgment_sample SELECT ?, topic, doc, stratum, probability "
                    "FROM stage_sample", [qid])
    con.execute("INSERT OR IGNORE INTO topic (campaign_id, topic) "
                "SELECT DISTINCT ?, topic FROM stage_qrels", [cid])
    runs = [r for (r,) in con.execute("SELECT run_id FROM run WHERE campaign_id = ? "
                                      "AND run_id IN (SELECT run_id FROM run_row "
                                      "WHERE score_rank IS NOT NULL)", [cid]).fetchall()]
    store_judged_rows(con, [qid], runs)
    for table in ("qrels", "judgment", "judgment_sample"):
        digests.touch(con, table, "qrels_id = ?", [qid])
    digests.touch(con, "topic", "campaign_id = ?", [cid])
    return qid


def store_judged_rows(con: duckdb.DuckDBPyConnection, qrels_ids: list[int],
                      run_ids: list[int]) -> None:
    """Store the judged documents of runs for qrels of their campaign (judged_row, with the
    pairs in judged_pair): the join every later evaluation of them starts from
    (sql/context.sql, ev_make_judged_rows). The runs must have their trec_eval 9 ranks
    (run_row.score_rank). Call inside the transaction that writes the runs or the qrels."""
    if not qrels_ids or not run_ids:
        return
    ids = {"q": list(qrels_ids), "r": list(run_ids)}
    con.execute("INSERT INTO judged_row SELECT * FROM ev_make_judged_rows($q, $r)", ids)
    con.execute("INSERT INTO judged_pair SELECT q, r FROM unnest($q) a(q), unnest($r) b(r)", ids)
    for table in ("judged_row", "judged_pair"):
        digests.touch(con, table, "list_contains($q, qrels_id) AND list_contains($r, run_id)",
                      ids)
    store_relevant_rows(con, qrels_ids, run_ids)


def ingest_run(con: duckdb.DuckDBPyConnection, path, campaign: str, *, name: str | None = None,
               team: str | None = None, replace: bool = False, keep_first: bool = False,
               metadata=None) -> int:
    """Store a TREC run under `campaign` (created if new). Its name is `name` or the run tag of
    the file; a name already stored is refused unless `replace`. Its ir_metadata is the YAML
    file `metadata`, else the block at the head of the run file, if any
    (formats.ir_metadata). Returns its run_id."""
    from ..formats import ir_metadata
    path = Path(path)
    tag = stage_run(con, path, keep_first=keep_first)
    text = ir_metadata.read_file(metadata, run_tag=tag) if metadata is not None \
        else ir_metadata.embedded(path, run_tag=tag)
    return store_staged_run(con, campaign, name=tag if name is None else name, team=team,
                            source=str(path.resolve()), digest=sha256_of(path), replace=replace,
                            metadata=text)


def store_staged_run(con: duckdb.DuckDBPyConnection, campaign: str, *, name: str,
                     team: str | None, source: str, digest: str, replace: bool = False,
                     metadata: str | None = None) -> int:
    """Write the validated TEMP table stage_run as run `name` of `campaign`, with its
    ir_metadata text `metadata`, in one transaction (shared by file and table ingest).
    Returns its run_id."""
    name = check_name("run", name)
    if team is not None:
        check_name("team", team)
    with transaction(con, f"run {name} of campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        replace_named(con, "run", cid, name, kind="run", campaign=campaign, source=source,
                      replace=replace, dependents=RUN_DEPENDENTS)
        n = con.execute("SELECT count(*) FROM stage_run").fetchone()[0]
        rid = con.execute("""
            INSERT INTO run (campaign_id, name, team, source_path, sha256, num_rows, ir_metadata)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING run_id""",
                          [cid, name, team, source, digest, n, metadata]).fetchone()[0]
        # score_rank: trec_eval 9's order (float32 score desc, docno desc), as ranked_window.
        con.execute("""
            INSERT INTO run_row (run_id, topic, doc, score, rank, file_order, score_rank)
            SELECT ?, topic, doc, score, rank, file_order,
                   row_number() OVER (
                       PARTITION BY topic
                       ORDER BY ev_sort_num('score', true, score, rank, file_order) DESC,
                                ev_sort_doc('score', doc) DESC)
            FROM (SELECT *, rowid AS file_order FROM stage_run)""", [rid])
        con.execute("INSERT INTO run_list SELECT run_id, topic, count(*) FROM run_row "
                    "WHERE run_id = ? GROUP BY run_id, topic", [rid])
        qrels = [q for (q,) in con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ?",
                                           [cid]).fetchall()]
        store_judged_rows(con, qrels, [rid])
        for table in ("run", "run_row", "run_list"):
            digests.touch(con, table, "run_id = ?", [rid])
    return rid


def ingest_intents(con: duckdb.DuckDBPyConnection, path, campaign: str, *,
                   normalise: bool = False) -> int:
    """Store intent probabilities and types (NTCIREVAL Iprob/DINprob or a plain table) in the
    `intent` table of `campaign` (created if new); an intent already stored is replaced.
    Returns the number of intents read."""
    from ..formats.intents import read_intents
    rows = read_intents(Path(path), normalise=normalise)
    with transaction(con, f"the intents of {Path(path).name} in campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        con.executemany("INSERT OR REPLACE INTO intent (campaign_id, topic, intent, probability, "
                        "intent_type) VALUES (?, ?, ?, ?, ?)",
                        [(cid, r.topic, r.intent, r.probability, r.intent_type) for r in rows])
        digests.touch(con, "intent", "campaign_id = ?", [cid])
    return len(rows)


def ingest_topic_alphas(con: duckdb.DuckDBPyConnection, path, campaign: str) -> int:
    """Store per-topic alphas (`topic alpha`; formats.intents.read_topic_alphas) in the
    `topic_alpha` table of `campaign` (created if new; a topic's earlier alpha is replaced), in
    one transaction. Returns the number of topics."""
    from ..formats.intents import read_topic_alphas
    alphas = read_topic_alphas(Path(path))
    with transaction(con, f"the alphas of {Path(path).name} in campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        con.executemany("INSERT OR REPLACE INTO topic_alpha (campaign_id, topic, alpha) "
                        "VALUES (?, ?, ?)",
                        [(cid, t, a) for t, a in alphas.items()])
        digests.touch(con, "topic_alpha", "campaign_id = ?", [cid])
    return len(alphas)


def ingest_doclengths(con: duckdb.DuckDBPyConnection, path, campaign: str, *,
                      unit: str = "words") -> int:
    """Store document lengths (irwarehouse.formats.doclengths) in the `doc` table of `campaign`
    (created if new), in one transaction. A document already stored keeps the length of the
    other unit, so words and characters may come from two files. Returns the number of
    documents read."""
    from ..formats.doclengths import read_doclengths
    table = read_doclengths(Path(path), unit=unit)
    con.register("stage_doclengths", table)
    try:
        with transaction(con, f"the document lengths of {Path(path).name} in campaign "
                         f"{campaign}"):
            cid = campaign_id(con, campaign, create=True)
            con.execute("""
                INSERT INTO doc (campaign_id, doc, length_words, length_chars)
                SELECT ?, doc, length_words, length_chars FROM stage_doclengths
                ON CONFLICT DO UPDATE SET
                    length_words = coalesce(excluded.length_words, length_words),
                    length_chars = coalesce(excluded.length_chars, length_chars)""", [cid])
            digests.touch(con, "doc", "campaign_id = ?", [cid])
    finally:
        con.unregister("stage_doclengths")
    return table.num_rows


def assign_intent_probabilities(con: duckdb.DuckDBPyConnection, campaign: str, *,
                                scheme: str = "sakai2013", qrels_name: str | None = None) -> int:
    """Give every topic of a campaign's diversity qrels probabilities by `scheme` (uniform or
    the non-uniform 2^(n-j+1)/sum 2^k of Sakai, IPSJ JIP 2013) over its intents with a relevant
    document, keeping stored intent types. Returns the number of intents written."""
    from ..formats.intents import scheme_probabilities
    cid = campaign_id(con, campaign)
    rows = con.execute("""
        SELECT j.topic, list(DISTINCT j.intent)
        FROM judgment j JOIN qrels q USING (qrels_id)
        WHERE q.campaign_id = ? AND (? IS NULL OR q.name = ?) AND j.rel >= 1 AND j.intent <> ''
        GROUP BY j.topic""", [cid, qrels_name, qrels_name]).fetchall()
    if not rows:
        raise WarehouseError(f"campaign {campaign!r} has no per-intent judgments")
    values = [(cid, topic, intent, prob) for topic, intents in rows
              for intent, prob in scheme_probabilities(intents, scheme).items()]
    with transaction(con):
        con.executemany("""
            INSERT INTO intent (campaign_id, topic, intent, probability) VALUES (?, ?, ?, ?)
            ON CONFLICT DO UPDATE SET probability = excluded.probability""", values)
        digests.touch(con, "intent", "campaign_id = ?", [cid])
    return len(values)


class StagedRun(NamedTuple):
    """A run staged in TEMP table stage_runs (rows with fi = `fi`), and what it is stored as."""
    fi: int
    path: Path
    name: str
    team: str | None
    sha256: str
    metadata: str | None = None     # its ir_metadata YAML (formats.ir_metadata)


def set_campaign_facts(con: duckdb.DuckDBPyConnection, cid: int, *, year: int | None,
                       venue: str | None) -> None:
    if year is not None:
        con.execute("UPDATE campaign SET year = ? WHERE campaign_id = ?", [year, cid])
    if venue is not None:
        con.execute("UPDATE campaign SET venue = ? WHERE campaign_id = ?", [venue, cid])
    digests.touch(con, "campaign", "campaign_id = ?", [cid])


def write_staged_runs(con: duckdb.DuckDBPyConnection, cid: int, campaign: str,
                      runs: list[StagedRun], stage: duckdb.DuckDBPyConnection, *,
                      replace: bool = False) -> list[int]:
    """Write staged runs as runs of campaign `cid` (analyst.bulk), inside the caller's
    transaction, with the same rows, provenance, stored ranks, list lengths, judged documents
    and digests as store_staged_run gives each run alone. The rows are those of TEMP table
    stage_runs (fi, topic, doc, score, rank; rowids 0..N-1 in file order) on connection
    `stage`: `con` itself, or a connection of its own (a large folder read a batch at a time,
    analyst.bulk), whose rows are then handed over as an Arrow stream, read once. Staged
    files not in `runs` (skipped) are left out. A name already stored is refused unless
    `replace`. Returns the run_ids, in the order of `runs`."""
    from .ranks import score_ranks, staged_lists

    if not runs:
        return []
    lists = staged_lists(stage)
    files = _file_spans(lists)
    # file_order counts from 0 in each file, as when the file is ingested alone (the digest
    # covers it): a file's rows are contiguous in stage_runs (the CSV reader keeps file
    # order, formats.trec._stage_fast); its span verifies it.
    if any(n != last - first + 1 for n, first, last in files.values()):
        raise WarehouseError("internal error: a staged file's rows are not contiguous")
    run_ids = _insert_runs(con, cid, campaign, runs, {fi: n for fi, (n, _, _) in files.items()},
                           replace=replace)
    ranks = score_ranks(stage, lists)
    size = max(files)
    ids: list[int | None] = [None] * size          # run_id and first rowid by fi (1-based)
    firsts: list[int | None] = [None] * size
    for run, rid in zip(runs, run_ids):
        ids[run.fi - 1], firsts[run.fi - 1] = rid, files[run.fi][1]
    _insert_rows(con, stage, ranks, ids, firsts)
    listed = [(ids[fi - 1], topic, int(n)) for fi, topic, n in zip(lists.fi, lists.topic, lists.n)
              if ids[fi - 1] is not None]
    con.execute("INSERT INTO run_list SELECT unnest($r), unnest($t), unnest($n)",
                {"r": [r for r, _, _ in listed], "t": [t for _, t, _ in listed],
                 "n": [n for _, _, n in listed]})
    qrels = [q for (q,) in con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ?",
                                       [cid]).fetchall()]
    store_judged_rows(con, qrels, run_ids)
    for table in ("run", "run_row", "run_list"):
        digests.touch(con, table, "list_contains($ids, run_id)", {"ids": run_ids})
    return run_ids


def _file_spans(lists) -> dict[int, tuple[int, int, int]]:
    """{fi: (rows, first rowid, last rowid)} of the staged files, from their lists."""
    spans: dict[int, tuple[int, int, int]] = {}
    for fi, n, first, last in zip(lists.fi.tolist(), lists.n.tolist(), lists.first.tolist(),
                                  lists.last.tolist()):
        m, a, b = spans.get(fi, (0, first, last))
        spans[fi] = (m + n, min(a, first), max(b, last))
    return spans


def _insert_runs(con: duckdb.DuckDBPyConnection, cid: int, campaign: str, runs: list[StagedRun],
                 counts: dict[int, int], *, replace: bool) -> list[int]:
    """The run rows of `runs` (`counts`: rows by fi), the old runs of their names deleted
    first when `replace`. Returns their run_ids, in order."""
    taken = {n for (n,) in con.execute(
        "SELECT name FROM run WHERE campaign_id = $cid AND list_contains($names, name)",
        {"cid": cid, "names": [r.name for r in runs]}).fetchall()}
    for run in runs:
        if run.name in taken:
            replace_named(con, "run", cid, run.name, kind="run", campaign=campaign,
                          source=run.path, replace=replace,
                          dependents=RUN_DEPENDENTS)
    # one INSERT for all (one each cost 1.5 ms a run); the ids follow the files' order
    made = dict(con.execute("""
        INSERT INTO run (campaign_id, name, team, source_path, sha256, num_rows, ir_metadata)
        SELECT $cid, unnest($names), unnest($teams), unnest($sources), unnest($digests),
               unnest($counts), unnest($metadata)
        RETURNING name, run_id""", {
        "cid": cid, "names": [r.name for r in runs], "teams": [r.team for r in runs],
        "sources": [str(r.path.resolve()) for r in runs], "digests": [r.sha256 for r in runs],
        "counts": [counts[r.fi] for r in runs], "metadata": [r.metadata for r in runs]
    }).fetchall())
    return [made[r.name] for r in runs]


def _insert_rows(con: duckdb.DuckDBPyConnection, stage: duckdb.DuckDBPyConnection, ranks,
                 ids: list, firsts: list) -> None:
    """INSERT the staged rows of the files with a run id (`ids`, `firsts`: run_id and first
    rowid by fi) into run_row, with their score_rank `ranks` (numpy, in rowid order, paired
    with the rows by a positional join: no join on keys)."""
    import numpy as np

    # every staged file stored under consecutive ids (a folder without skipped files): the run
    # id is the file's number moved, and no row is left out (no lookup, no filter per row)
    offset = ids[0] - 1 if None not in ids and ids == list(range(ids[0], ids[0] + len(ids))) \
        else None
    run_id = "CAST(" + ("$ids[s.fi]" if offset is None else "s.fi + $offset") + " AS INTEGER)"
    select = f"""
        SELECT {run_id} AS run_id, s.topic, s.doc, s.score, s.rank,
               s.rowid - $firsts[s.fi] AS file_order, k.r AS score_rank
        FROM stage_runs s POSITIONAL JOIN irw_score_rank k
        {'WHERE $ids[s.fi] IS NOT NULL' if offset is None else ''}"""
    params = {"firsts": firsts, **({"ids": ids} if offset is None else {"offset": offset})}
    # the ranks as score_ranks made them (32-bit while they fit; stored as BIGINT): a copy to
    # 64 bits cost 40 MB and its page faults at 5M rows
    stage.register("irw_score_rank", {"r": np.ascontiguousarray(ranks)})
    try:
        if stage is con:
            con.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order, "
                        f"score_rank) {select}", params)
        else:
            con.register("irw_stage_stream",
                         stage.sql(select, params=params).to_arrow_reader(1 << 20))
            try:
                con.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order, "
                            "score_rank) SELECT * FROM irw_stage_stream")
            finally:
                con.unregister("irw_stage_stream")
    finally:
        stage.unregister("irw_score_rank")
