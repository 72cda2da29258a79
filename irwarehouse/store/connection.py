"""Opening a warehouse: a DuckDB file (or memory) with the schema, the evaluation context and
metric macros (sql/context.sql, sql/metrics), the metric macros analysts call and the measure
catalog (irwarehouse.store.macros)."""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

import duckdb

from ..errors import IrwError, StorageError, WarehouseError
from ..failures import COMPACT_HINT
from ..sqlfiles import (
    builder,
    context_relations,
    context_section,
    domain_files,
    files_for,
    install_order,
    macro_closure,
    macros_in,
    metric_files,
    read_sql,
    relations_read,
    sql_digest,
    statements,
)
from . import digests, interrupts, lifetime
from .locking import open_waiting
from .rollback import rollback

DEFAULT_PATH = "irw.duckdb"
ENV_VAR = "IRW_WAREHOUSE"
DIGEST_KEY = "sql_sha256"


def default_path() -> str:
    return os.environ.get(ENV_VAR, DEFAULT_PATH)


def _create_macros(con: duckdb.DuckDBPyConnection, paths, temp: bool = False) -> None:
    """Create the macros of some metric files, each after those it calls (DuckDB checks a
    macro's references when it is created). `temp`: as TEMP macros (a read-only connection to a
    warehouse older than this code)."""
    macros = [m for path in paths for m in macros_in(path)]
    for mdef in install_order(macros):
        sql = mdef.sql
        if temp:
            sql = sql.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO", 1)
        con.execute(sql)


def _context_sql(temp: bool = False) -> str:
    text = context_section("macros")
    return text.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO") if temp \
        else text


def _temp_schema(con: duckdb.DuckDBPyConnection) -> None:
    """On a read-only connection to a warehouse older than this code: TEMP copies of the
    tables of sql/schema.sql that the evaluation reads and the file lacks (empty: runs are
    then ranked and counted from run_row) and of the macro irw_summarise. Relevant rows
    stored without AP's running sum (relevant_row.precision_sum, which the SQL reads) are
    left unread the same way: empty TEMP relevant_row and relevant_pair stand in front of
    them, so every run is ranked from judged_row as before they existed."""
    have = {n for (n,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                      "WHERE database_name <> 'temp'").fetchall()}
    if "relevant_row" in have and not con.execute(
            "SELECT count(*) FROM duckdb_columns() WHERE database_name <> 'temp' "
            "AND table_name = 'relevant_row' AND column_name = 'precision_sum'").fetchone()[0]:
        have -= {"relevant_row", "relevant_pair"}
    read = read_sql("context.sql") + "".join(p.read_text(encoding="utf-8")
                                             for p in metric_files())
    for _, stmt in statements(read_sql("schema.sql")):
        table = re.match(r"CREATE TABLE IF NOT EXISTS (\w+) ", stmt)
        if table and table.group(1) not in have and re.search(rf"\b{table.group(1)}\b", read):
            con.execute(stmt.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
        if stmt.startswith("CREATE OR REPLACE MACRO irw_summarise("):
            con.execute(stmt.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO", 1))


def _mark_installed(con: duckdb.DuckDBPyConnection, families) -> None:
    con.execute("CREATE TEMP TABLE IF NOT EXISTS ev_installed_family (family VARCHAR)")
    con.execute("INSERT INTO ev_installed_family SELECT unnest($f)", {"f": sorted(families)})


def install_macros(con: duckdb.DuckDBPyConnection, kernels=None) -> None:
    """Make the evaluation context macros and the metric macros `kernels` call (all when None)
    exist on a connection, creating the missing ones: in memory (files evaluated without a
    warehouse) only what an evaluation needs, ~0.2 s less than all of them; a warehouse file
    has them all already (upgrade)."""
    con.execute(context_section("shapes"))
    con.execute("CREATE TEMP TABLE IF NOT EXISTS ev_installed_family (family VARCHAR)")
    done = {f for (f,) in con.execute("SELECT family FROM ev_installed_family").fetchall()}
    if "lazy" in done and kernels is not None:
        _install_needed(con, kernels)
        return
    temp = "temp" in done
    if "context" not in done:
        con.execute(_context_sql(temp))
        _mark_installed(con, ["context"])
    files = metric_files() if kernels is None else files_for(kernels)
    pending = [p for p in files if p.stem not in done]
    if pending:
        _create_macros(con, pending, temp=temp)
        _mark_installed(con, [p.stem for p in pending])


def _lean_schema(con: duckdb.DuckDBPyConnection) -> None:
    """sql/schema.sql without the analysts' views and macros (all but irw_summarise, which
    `irw eval` calls): 0.015 s less for a private warehouse that evaluates files; its 70
    statements in one transaction (2 ms less than each in its own)."""
    kept = [stmt for _, stmt in statements(read_sql("schema.sql"))
            if not (stmt.startswith("CREATE OR REPLACE VIEW") or (
                stmt.startswith("CREATE OR REPLACE MACRO")
                and not stmt.startswith("CREATE OR REPLACE MACRO irw_summarise(")))]
    con.execute("BEGIN TRANSACTION;\n" + "".join(kept) + "COMMIT;")


# The context macro any evaluation calls besides the builders of the relations its measures
# read (choose_plan); the chosen ranking plan's macros are created when it is chosen
# (need_macros in engine.evaluate._rank: the five plans' macros cost 6 ms to create).
_PLAN_MACROS = ("ev_stored_runs",)
_ALWAYS_BUILT = ("ev_judgment", "ev_topic", "ev_ranked", "ev_run_topic")
# ev_full_ranked is built by the plan's macros, never by its general builder
_NOT_BUILT = ("ev_scope", "ev_runs", "ev_sorted", "ev_file_marks", "ev_full_ranked")


# The context macros that storing a run or qrels calls (irwarehouse.store.ingest).
_INGEST_MACROS = ("ev_sort_num", "ev_sort_doc", "ev_make_judged_rows", "ev_make_relevant_rows")


def _install_needed(con: duckdb.DuckDBPyConnection, kernels, macros=None) -> None:
    """On a private in-memory warehouse (connect(None, lean=True)): create only the macros
    an evaluation of `kernels` calls, each once per connection: the kernels, the builders of
    the context relations they read, the ranking plans, and what those call (map and P.10:
    13 of the 29 macros of context.sql, 4 of the 18 of their metric files: 0.03 s less).
    `macros`: these macros and what they call instead."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS ev_installed_macro (name VARCHAR)")
    have = {n for (n,) in con.execute("SELECT name FROM ev_installed_macro").fetchall()}
    if macros is None:
        relations = set(relations_read(kernels)) | set(_ALWAYS_BUILT)
        builders = [builder(r).name for r in context_relations()
                    if r in relations and r not in _NOT_BUILT]
        macros = [*kernels, *builders, *_PLAN_MACROS]
    todo = [m for m in install_order(macro_closure(macros)) if m.name not in have]
    if todo:
        # one execute for all of them, in their order (all_trec's ~50: about 1 ms less than one
        # each; each macro is still a statement of its own, parsed and checked by DuckDB)
        con.execute("".join(mdef.sql for mdef in todo))
        con.execute("INSERT INTO ev_installed_macro SELECT unnest($n)",
                    {"n": [m.name for m in todo]})


def need_macros(con: duckdb.DuckDBPyConnection, names) -> None:
    """Create the macros `names` (and what they call) on a private warehouse that creates its
    macros as an evaluation needs them (connect(None, lean=True)); every other connection has
    them all already."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS ev_installed_family (family VARCHAR)")
    if con.execute("SELECT count(*) FROM ev_installed_family WHERE family = 'lazy'"
                   ).fetchone()[0]:
        _install_needed(con, [], names)


# trec_eval's ranking order (sql/context.sql), which store/ranks.py sorts ties by
SORT_MACROS = ("ev_float32", "ev_sort_num", "ev_sort_doc")


def install_sort_macros(con: duckdb.DuckDBPyConnection) -> None:
    """trec_eval's ranking order (SORT_MACROS) on a bare connection, the one a large folder's
    batches are read on (analyst.bulk): its ties are ranked by the same macros as a warehouse's."""
    _install_needed(con, [], SORT_MACROS)


def install_domain_macros(con: duckdb.DuckDBPyConnection, domain: str) -> None:
    """The macros of sql/<domain>/ (online, texts) on a connection that lacks them (an
    in-memory warehouse, or a read-only one older than this code: as TEMP macros there)."""
    have = {n for (n,) in con.execute("SELECT function_name FROM duckdb_functions() "
                                      "WHERE function_type = 'table_macro'").fetchall()}
    paths = [p for d, p in domain_files() if d == domain]
    if {m.name for p in paths for m in macros_in(p)} <= have:
        return
    temp = bool(con.execute("SELECT count(*) FROM ev_installed_family WHERE family = 'temp'")
                .fetchone()[0]) if "ev_installed_family" in _temp_tables(con) else False
    _create_macros(con, paths, temp=temp)


def _temp_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {n for (n,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                      "WHERE database_name = 'temp'").fetchall()}


def _backfill(con: duckdb.DuckDBPyConnection) -> None:
    """What a warehouse made by an older version lacks: trec_eval 9 ranks of stored runs,
    their list lengths (run_list) and judged rows (judged_row), and the catalog measure of
    stored scores (score.family)."""
    from .ingest import store_judged_rows
    from .relevant import backfill_relevant_rows
    from .rekey import backfill_gain_maps, rekey_scores
    changed = con.execute("""
        UPDATE run_row SET score_rank = ranked.r
        FROM (SELECT rowid AS rid,
                     row_number() OVER (
                         PARTITION BY run_id, topic
                         ORDER BY ev_sort_num('score', true, score, rank, file_order) DESC,
                                  ev_sort_doc('score', doc) DESC) AS r
              FROM run_row
              WHERE run_id IN (SELECT DISTINCT run_id FROM run_row WHERE score_rank IS NULL)
             ) ranked
        WHERE run_row.rowid = ranked.rid""").fetchone()[0]
    if changed:
        digests.touch(con, "run_row")
    if con.execute("""
            INSERT INTO run_list SELECT run_id, topic, count(*) FROM run_row
            WHERE run_id NOT IN (SELECT DISTINCT run_id FROM run_list)
            GROUP BY run_id, topic""").fetchone()[0]:
        digests.touch(con, "run_list")
    # judged rows of every campaign that has none yet (an older warehouse has none at all)
    for (cid,) in con.execute("""
            SELECT campaign_id FROM qrels
            WHERE campaign_id NOT IN (SELECT q.campaign_id FROM judged_pair p
                                      JOIN qrels q USING (qrels_id))
            GROUP BY campaign_id ORDER BY campaign_id""").fetchall():
        qrels = [q for (q,) in con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ?",
                                           [cid]).fetchall()]
        runs = [r for (r,) in con.execute("SELECT run_id FROM run WHERE campaign_id = ?",
                                          [cid]).fetchall()]
        store_judged_rows(con, qrels, runs)
    backfill_relevant_rows(con)     # relevant_row of the pairs judged before it existed
    _backfill_score_family(con)
    if rekey_scores(con)[0]:
        digests.touch(con, "score")
    if backfill_gain_maps(con):
        digests.touch(con, "campaign_profile")


def _backfill_score_family(con: duckdb.DuckDBPyConnection) -> None:
    """score.family held the SQL file of a measure before it named its catalog measure."""
    from ..measures import parse_measures
    stale = con.execute("""SELECT DISTINCT measure FROM score
                           WHERE family NOT IN (SELECT measure FROM measure_catalog)""").fetchall()
    for (measure,) in stale:
        try:
            requests = parse_measures([measure])
        except IrwError:                # a name this version no longer reads: left as it was
            requests = []
        if len(requests) == 1:
            con.execute("UPDATE score SET family = ? WHERE measure = ?",
                        [requests[0].mdef.name, measure])
            digests.touch(con, "score", "measure = ?", [measure])


def upgrade(con: duckdb.DuckDBPyConnection) -> None:
    """Bring a warehouse file up to this version's SQL in one transaction: the schema, every
    context and metric macro (persistent), the metric macros analysts call, the measure
    catalog, and what older warehouses lack (_backfill); then record the SQL's digest and the
    digests of the tables it changed (all of them in a file made before table digests). Done
    only when the recorded digest differs."""
    from ..measures import registry
    from .analyst_macros import analyst_macros
    from .macros import CATALOG_COLUMNS, callable_sql, catalog_rows, domain_catalog_rows
    digest = sql_digest()
    con.execute("BEGIN TRANSACTION")
    try:
        had_digests, before = digests.has_digests(con), _table_columns(con)
        con.execute(read_sql("schema.sql"))
        digests.forget_tables(con)
        con.execute(context_section("shapes"))
        con.execute(_context_sql())
        _create_macros(con, metric_files())
        defs = list(registry().values())
        for mdef in defs:
            con.execute(callable_sql(mdef))
        for analyst in analyst_macros():              # irw_cg_curve, irw_cg_curve_mean
            con.execute(analyst.sql())
        _create_macros(con, [p for _, p in domain_files()])
        con.execute("DELETE FROM measure_catalog")
        columns = ", ".join(f'"{c}"' for c in CATALOG_COLUMNS)
        con.executemany(f"INSERT INTO measure_catalog ({columns}) VALUES "
                        f"({', '.join('?' * len(CATALOG_COLUMNS))})",
                        catalog_rows(defs) + domain_catalog_rows())
        _backfill(con)
        con.execute("INSERT OR REPLACE INTO irw_meta VALUES (?, ?)", [DIGEST_KEY, digest])
        after = _table_columns(con)
        # a table whose columns changed has new row hashes (store.digests)
        digests.seal(con, list(digests.data_tables(con)) if not had_digests else
                     ["irw_meta", "measure_catalog",
                      *(t for t, columns in after.items() if before.get(t) != columns)])
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, data):
    """`data` (an Arrow table) visible to SQL as `name` for a block. When the block fails
    inside a transaction DuckDB has aborted (a full disk), the unregister is refused: the
    block's error is the one to report."""
    con.register(name, data)
    try:
        yield
    except BaseException:
        try:
            con.unregister(name)
        except duckdb.Error:
            pass
        raise
    con.unregister(name)


def _table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    return {t: c for t, c in con.execute("""
        SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns()
        WHERE database_name = current_database() AND schema_name = 'main'
          AND table_name IN (SELECT table_name FROM duckdb_tables()
                             WHERE database_name = current_database())
        GROUP BY table_name""").fetchall()}


def recorded_digest(con: duckdb.DuckDBPyConnection) -> str | None:
    try:
        row = con.execute("SELECT value FROM irw_meta WHERE key = ?", [DIGEST_KEY]).fetchone()
    except duckdb.CatalogException:          # a new warehouse, or one from before irw_meta
        return None
    return row[0] if row else None


# Files smaller than this in all (qrels and runs) are read and evaluated on one DuckDB thread: a
# TREC-size run (100 topics x 1,000 documents, 5 MB, with 2.7 MB of qrels) takes 9% less CPU and
# no more wall time on one thread than on two, the threads' hand-offs costing more than they
# save; a 2M-line run (106 MB) is 1.1-1.5x faster in wall time on two (bench/README.md,
# "The everyday run").
ONE_THREAD_BELOW_BYTES = 32 * 2**20


def configuration_locked(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connection's settings are locked (analyst.query's guarded connections, e.g.
    `irw serve`'s): an evaluation then runs with them as they are."""
    return bool(con.execute("SELECT current_setting('lock_configuration')").fetchone()[0])


def fit_threads(con: duckdb.DuckDBPyConnection, paths) -> None:
    """One thread for a private warehouse whose input files are small (ONE_THREAD_BELOW_BYTES);
    DuckDB's default (every core) otherwise, or when a path is not a readable file (an
    `irds:` ID, a folder: the readers report what is wrong with it)."""
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except (OSError, TypeError, ValueError):
            return
    if total < ONE_THREAD_BELOW_BYTES:
        con.execute("SET threads = 1")


def connect(path: str | os.PathLike | None = None, *, read_only: bool = False,
            create: bool = True, macros: bool = True,
            wait: float | None = None, lean: bool = False) -> duckdb.DuckDBPyConnection:
    """Connect to a warehouse file (None = a private in-memory warehouse). A file is brought up
    to date (upgrade) on a read-write open when its SQL is older than this version's; a
    read-only open of an up-to-date file writes nothing, and one of an older file evaluates
    with TEMP copies of the macros (and warns that the file's own are out of date). In memory,
    everything is created as in a file, or with `macros=False` the schema and the context
    macros, evaluate() creating the metric macros it needs. `lean` (in memory, files evaluated
    without a warehouse: api.evaluate_files): the tables only (no analyst views) and, as an
    evaluation runs, only the macros it calls (_install_needed). A file another process holds
    is waited for up to `wait` seconds (None: store.locking's default, 30 s)."""
    if path is None or str(path) == ":memory:":
        con = duckdb.connect(":memory:")
        interrupts.track(con)
        if macros:              # everything a file has, the analysts' macros and catalog too
            upgrade(con)
            _mark_installed(con, ["context", *(path.stem for path in metric_files())])
        elif lean:              # the macros an evaluation needs, when it runs (_install_needed)
            _lean_schema(con)
            con.execute(context_section("shapes"))
            _mark_installed(con, ["lazy"])
            _install_needed(con, [], _INGEST_MACROS)
        else:
            con.execute(read_sql("schema.sql"))
            install_macros(con, [])
        return con
    p = Path(path)
    if not create and not p.exists():
        raise WarehouseError(f"no warehouse at {p} (create one with `irw init`)")
    if p.is_dir():
        raise WarehouseError(f"{p} is a folder, not a warehouse file")
    made = not p.exists()
    con = open_waiting(p, read_only=read_only, wait=wait)
    interrupts.track(con)
    try:
        _prepare(con, p, read_only=read_only, macros=macros)
    except BaseException as exc:
        try:
            con.close()             # a failed open holds no lock on the file
        except duckdb.Error:
            pass
        if made:                    # nor leaves a half-made warehouse (a full disk)
            for leftover in (p, p.with_name(p.name + ".wal")):
                leftover.unlink(missing_ok=True)
            if "No space left on device" in str(exc):
                raise StorageError(f"disk full: no room to create the warehouse {p} "
                                   f"({_first_line(exc)}); no file was left") from None
        raise
    return con


def _prepare(con: duckdb.DuckDBPyConnection, p: Path, *, read_only: bool,
             macros: bool) -> None:
    """Bring a file up to date on a read-write open, or give an older file read-only TEMP
    copies of the macros; then the session's context shapes."""
    if recorded_digest(con) != sql_digest():
        if not read_only:
            upgrade(con)
        else:
            print(f"irw: warning: {p} was made by another version of irw; its metric macros "
                  "are out of date (open it once read-write, e.g. `irw init`, to update it)",
                  file=sys.stderr)
            _temp_schema(con)
            _mark_installed(con, ["temp"])
            install_macros(con, None if macros else [])
            return
    con.execute(context_section("shapes"))
    _mark_installed(con, ["context", *(path.stem for path in metric_files())])


def close(con: duckdb.DuckDBPyConnection, *, checkpoint: bool = True) -> None:
    """Close a connection, checkpointing a read-write one first so that a failed checkpoint is
    reported (DuckDB's close would swallow it and leave the write-ahead log behind). The
    committed changes are safe in the log either way: DuckDB applies it at the next open."""
    path = _database_path(con)
    try:
        if checkpoint and path != "memory" and not _read_only(con):
            con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        con.close()
        raise StorageError(f"the changes are committed but writing them into {path} failed: "
                           f"{_first_line(exc)}; they are kept in {path}.wal and applied "
                           f"when the warehouse is next opened ({COMPACT_HINT} once space is "
                           "free)") from None
    con.close()


def leave_to_exit(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether to leave the private in-memory warehouse `con` open for the process's exit
    instead of closing it: in a process of one command (store.lifetime, the `irw` console
    script, which ends with os._exit right after), DuckDB freeing the buffers of a TREC-size
    run costs about 5 ms of CPU that the exit spends anyway (issue 32 target 1). Not when
    DuckDB's temporary directory exists (it spilled to disk: closing removes its files), and
    never a warehouse file (closing checkpoints it). Kept referenced until the exit, since
    the connection's destructor would close it."""
    if not lifetime.ONE_COMMAND["on"] or _database_path(con) != "memory":
        return False
    try:
        (folder,) = con.execute("SELECT current_setting('temp_directory')").fetchone()
    except duckdb.Error:
        return False
    if folder and os.path.lexists(folder):
        return False
    _LEFT_TO_EXIT.append(con)
    return True


_LEFT_TO_EXIT: list = []


def _first_line(exc: BaseException) -> str:
    """DuckDB's message without its "FATAL Error: Failed to create checkpoint because of
    error:" wrapping."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text.rsplit("because of error: ", 1)[-1]


@contextmanager
def opened(path, **options):
    """A connection (connect(path, **options)) for a block: closed with `close` when the block
    ends well, plainly when it raises (its error is the one to report)."""
    con = connect(path, **options)
    try:
        yield con
    except BaseException:
        close(con, checkpoint=False)
        raise
    close(con)


def _read_only(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        return con.execute("SELECT readonly FROM duckdb_databases() "
                           "WHERE database_name = current_database()").fetchone()[0]
    except duckdb.Error:
        return True


def _database_path(con: duckdb.DuckDBPyConnection) -> str:
    try:
        return con.execute("SELECT path FROM duckdb_databases() "
                           "WHERE database_name = current_database()").fetchone()[0] or "memory"
    except duckdb.Error:
        return "the warehouse"
