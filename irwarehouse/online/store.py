"""Putting session logs, preferences and known documents into the warehouse (one transaction
each), and installing the online-evaluation SQL macros (sql/online/*.sql).

What `run` means for a session log: the system that produced the sessions. `irw ingest sessions
FILE --campaign C --run NAME` stores the log under run NAME of campaign C (default: the file
name), a row of the `run` table with no ranked rows (run_row) and a `session_log` row with the
file's provenance. Session and click measures are stored in `score` under that run, so `irw
compare` and `irw meta` compare systems as they compare runs.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, WarehouseError
from ..formats.trec import sha256_of
from ..sqlfiles import DOMAIN_FILES
from ..store import digests
from ..store.ingest import campaign_id, check_name, transaction

SQL_FILES = DOMAIN_FILES["online"]


def install_macros(con) -> None:
    """Make sure the online-evaluation macros exist: a warehouse file has them (its upgrade
    creates them with the metric macros, irwarehouse.store.connection); an in-memory one gets
    them here."""
    from ..store.connection import install_domain_macros
    install_domain_macros(con, "online")


def ingest_sessions(con, path, campaign: str, *, run: str | None = None,
                    team: str | None = None, replace: bool = False) -> tuple[int, int, int]:
    """Store a session log as run `run` (default: the file name) of `campaign` (created if
    new). Returns (run_id, rows, sessions)."""
    from .formats import read_sessions
    path = Path(path)
    table, has = read_sessions(path)
    name = check_name("run", path.name if run is None else run)
    if team is not None:
        check_name("team", team)
    digest = sha256_of(path)
    con.register("stage_session", table)
    try:
        with transaction(con, f"session log {name} of campaign {campaign}"):
            cid = campaign_id(con, campaign, create=True)
            rid = _session_run(con, cid, campaign, name, team, path, digest, table.num_rows,
                               replace)
            con.execute("""
                INSERT INTO session_row (run_id, session, topic, query_no, rank, doc, clicked,
                                         click_time, dwell, file_order)
                SELECT ?, session, topic, query_no, rank, doc, clicked, click_time, dwell,
                       file_order
                FROM stage_session""", [rid])
            sessions = con.execute("SELECT count(DISTINCT session) FROM stage_session"
                                   ).fetchone()[0]
            con.execute("""
                INSERT INTO session_log (run_id, campaign_id, source_path, sha256, num_rows,
                                         num_sessions, has_clicked, has_click_time, has_dwell)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                        [rid, cid, str(path.resolve()), digest, table.num_rows, sessions,
                         has["clicked"], has["click_time"], has["dwell"]])
            digests.touch_owner(con, "run_id", [rid])
    finally:
        con.unregister("stage_session")
    return rid, table.num_rows, sessions


def _session_run(con, cid: int, campaign: str, name: str, team, path: Path, digest: str,
                 n: int, replace: bool) -> int:
    """The run row of a session log; an old session log of that name is replaced only when
    asked, and a ranked run of that name never."""
    old = con.execute("SELECT run_id FROM run WHERE campaign_id = ? AND name = ?",
                      [cid, name]).fetchone()
    if old:
        is_log = con.execute("SELECT count(*) FROM session_log WHERE run_id = ?",
                             [old[0]]).fetchone()[0]
        if not is_log:
            raise WarehouseError(f"{path}: {name!r} is a ranked run of campaign {campaign!r}; "
                                 "name the session log's system with --run")
        if not replace:
            raise WarehouseError(f"{path}: session log {name!r} is already in campaign "
                                 f"{campaign!r} (use --replace to replace it)")
        for table in ("session_row", "session_log", "score", "run"):
            digests.delete(con, table, "run_id = ?", [old[0]])
    return con.execute("""
        INSERT INTO run (campaign_id, name, team, source_path, sha256, num_rows)
        VALUES (?, ?, ?, ?, ?, ?) RETURNING run_id""",
                       [cid, name, team, str(path.resolve()), digest, n]).fetchone()[0]


def _campaign_of_runs(con, path: Path, rows, campaign: str | None) -> int:
    """The campaign of a preference file: the one given, else the only campaign that has every
    run the file names."""
    if campaign is not None:
        return campaign_id(con, campaign)
    runs = sorted({r[2] for r in rows} | {r[3] for r in rows})
    found = con.execute("""
        SELECT r.campaign_id FROM run r WHERE list_contains($runs, r.name)
        GROUP BY r.campaign_id HAVING count(DISTINCT r.name) = len($runs)""",
                        {"runs": runs}).fetchall()
    if len(found) != 1:
        raise InputError(path, None, ("no campaign has" if not found else "several campaigns "
                                      "have") + " every run the file names; give --campaign")
    return found[0][0]


def ingest_preferences(con, path, campaign: str | None = None, *,
                       replace: bool = False) -> int:
    """Store side-by-side preferences; each run named must be a run of the campaign. With
    `replace`, the campaign's earlier preferences are dropped first. Returns the row count."""
    from .formats import read_preferences
    path = Path(path)
    rows = read_preferences(path)
    cid = _campaign_of_runs(con, path, rows, campaign)
    runs = {r for (r,) in con.execute("SELECT name FROM run WHERE campaign_id = ?",
                                      [cid]).fetchall()}
    for lineno, _, left, right, _, _ in rows:
        for name in (left, right):
            if name not in runs:
                raise InputError(path, lineno, f"no run {name!r} in the campaign")
    with transaction(con, f"the preferences of {path.name}"):
        if replace:
            digests.delete(con, "preference", "campaign_id = ?", [cid])
        con.executemany("""
            INSERT INTO preference (campaign_id, topic, left_run, right_run, preference,
                                    assessor, source_path, file_order)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                        [(cid, t, lft, rgt, p, a, str(path.resolve()), lineno)
                         for lineno, t, lft, rgt, p, a in rows])
        digests.touch(con, "preference", "campaign_id = ?", [cid])
    return len(rows)


def ingest_known(con, path, campaign: str | None = None, *, replace: bool = False) -> int:
    """Store the documents each user knew for a topic. Without a campaign, the warehouse's only
    campaign is used. A triple already stored is kept (INSERT OR IGNORE); `replace` drops the
    campaign's known documents first. Returns the number of rows read."""
    from .formats import read_known
    path = Path(path)
    rows = read_known(path)
    if campaign is None:
        names = con.execute("SELECT name FROM campaign ORDER BY name").fetchall()
        if len(names) != 1:
            raise InputError(path, None, "the warehouse has "
                             + ("no campaign" if not names else "several campaigns")
                             + "; give --campaign")
        campaign = names[0][0]
    with transaction(con, f"the known documents of {path.name} in campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        if replace:
            digests.delete(con, "known_doc", "campaign_id = ?", [cid])
        con.executemany('INSERT OR IGNORE INTO known_doc (campaign_id, "user", topic, doc) '
                        "VALUES (?, ?, ?, ?)", [(cid, u, t, d) for _, u, t, d in rows])
        digests.touch(con, "known_doc", "campaign_id = ?", [cid])
    return len(rows)
