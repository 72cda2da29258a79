"""`irw rename run|qrels|campaign OLD NEW`: a new name for a stored run, qrels or campaign, in
one transaction. Rows hang on integer ids, so only the name and the few places that record a
name as text change: significance results (campaign, run_a, run_b), interleavings (run_a,
run_b) and preference judgments (left_run, right_run)."""

from __future__ import annotations

import duckdb

from ..errors import WarehouseError
from . import digests
from .ingest import campaign_id, check_name, transaction
from .lookup import named_id

KINDS = ("run", "qrels", "campaign")


def rename(con: duckdb.DuckDBPyConnection, kind: str, old: str, new: str,
           campaign: str | None = None) -> None:
    """Rename `kind` `old` to `new` (a run or qrels of `campaign`; a campaign itself)."""
    if kind not in KINDS:
        raise WarehouseError(f"irw rename renames a run, a qrels or a campaign, not {kind!r}")
    check_name(kind, new)
    if old == new:
        raise WarehouseError(f"{kind} {old!r} already has that name")
    if kind == "campaign":
        cid = campaign_id(con, old)
        if con.execute("SELECT 1 FROM campaign WHERE name = ?", [new]).fetchone():
            raise WarehouseError(f"a campaign {new!r} exists already")
        with transaction(con, f"the renaming of campaign {old} to {new}"):
            con.execute("UPDATE campaign SET name = ? WHERE campaign_id = ?", [new, cid])
            con.execute("UPDATE significance SET campaign = ? WHERE campaign = ?", [new, old])
            digests.touch(con, "campaign", "campaign_id = ?", [cid])
            digests.touch(con, "significance")
        return
    if campaign is None:
        raise WarehouseError(f"renaming a {kind} needs its campaign (-C NAME)")
    cid = campaign_id(con, campaign)
    key = f"{kind}_id"
    item_id = named_id(con, kind, cid, old, campaign)
    if con.execute(f"SELECT 1 FROM {kind} WHERE campaign_id = ? AND name = ?",
                   [cid, new]).fetchone():
        raise WarehouseError(f"campaign {campaign!r} has a {kind} {new!r} already")
    with transaction(con, f"the renaming of {kind} {old} to {new} in campaign {campaign}"):
        con.execute(f"UPDATE {kind} SET name = ? WHERE {key} = ?", [new, item_id])
        digests.touch(con, kind, f"{key} = ?", [item_id])
        if kind == "run":
            for column in ("run_a", "run_b"):
                con.execute(f"UPDATE significance SET {column} = ? WHERE campaign = ? AND "
                            f"{column} = ?", [new, campaign, old])
                con.execute(f"UPDATE interleaving SET {column} = ? WHERE campaign_id = ? AND "
                            f"{column} = ?", [new, cid, old])
            for column in ("left_run", "right_run"):
                con.execute(f"UPDATE preference SET {column} = ? WHERE campaign_id = ? AND "
                            f"{column} = ?", [new, cid, old])
            digests.touch(con, "significance")
            for table in ("interleaving", "preference"):
                digests.touch(con, table, "campaign_id = ?", [cid])
