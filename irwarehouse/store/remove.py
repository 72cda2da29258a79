"""`irw rm`: remove a run or a qrels from a campaign, with every row that hangs on it, in one
transaction (the same rule as `--replace` without the new one). A run or qrels a pool was built
from is kept: removing it would change what the pool says it was made of. A whole campaign
goes with everything of it, its pools included, in one transaction."""

from __future__ import annotations

import duckdb

from ..errors import WarehouseError
from . import digests
from .ingest import campaign_id, transaction
from .lookup import named_id

KINDS = ("run", "qrels")
# The ids a campaign's rows hang on, each with the table that owns it; every table with one of
# these columns (found in DuckDB's catalog, so tables added later are covered) or with
# campaign_id loses the campaign's rows.
_OWNED_IDS = (("run_id", "run"), ("qrels_id", "qrels"), ("pool_id", "pool"),
              ("interleaving_id", "interleaving"))
# text_token's owners: source 'run' -> run_id; 'ref' and 'nugget' -> qrels_id
_TOKENS = {"run": ("run",), "qrels": ("ref", "nugget")}
_POOLS = {"run": "SELECT p.name FROM pool_run r JOIN pool p USING (pool_id) WHERE r.run_id = ?",
          "qrels": "SELECT name FROM pool WHERE qrels_id = ?"}


def _tables_with(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """tables_having, pools excepted (a run's or qrels' pools are refused above, never
    deleted)."""
    return [t for t in digests.tables_having(con, column) if t not in ("pool", "pool_run")]


def remove(con: duckdb.DuckDBPyConnection, kind: str, campaign: str, name: str) -> int:
    """Remove run or qrels `name` of `campaign` and the rows that hang on it (scores, judged
    rows, tokens, ...). Returns the number of rows removed."""
    if kind not in KINDS:
        raise WarehouseError(f"irw rm removes a run or a qrels, not {kind!r}")
    cid = campaign_id(con, campaign)
    key = f"{kind}_id"
    item_id = named_id(con, kind, cid, name, campaign)
    pools = [p for (p,) in con.execute(_POOLS[kind], [item_id]).fetchall()]
    if pools:
        raise WarehouseError(f"{kind} {name!r} of campaign {campaign!r} is part of pool "
                             f"{pools[0]!r}; it is kept (a pool records what it was made of)")
    removed = 0
    with transaction(con, f"the removal of {kind} {name} from campaign {campaign}"):
        # a campaign's profile outlives the qrels it named: it falls back to no qrels choice
        tables = [t for t in _tables_with(con, key)
                  if t not in (kind, "campaign_profile")] + [kind]
        for table in tables:
            removed += digests.delete(con, table, f"{key} = ?", [item_id])
        if kind == "qrels":
            digests.touch(con, "campaign_profile", "qrels_id = ?", [item_id])
            con.execute("UPDATE campaign_profile SET qrels_id = NULL WHERE qrels_id = ?",
                        [item_id]).fetchall()
        sources = _TOKENS[kind]
        removed += digests.delete(
            con, "text_token", f"owner_id = ? AND source IN ({', '.join('?' for _ in sources)})",
            [item_id, *sources])
    return removed


def remove_campaign(con: duckdb.DuckDBPyConnection, campaign: str) -> int:
    """Remove campaign `campaign` and every row of it: runs, qrels, topics, scores, pools,
    significance results, texts, sessions, ... (every table with campaign_id, or an id owned
    by one of the campaign's rows), in one transaction. Returns the number of rows removed."""
    cid = campaign_id(con, campaign)
    removed = 0
    with transaction(con, f"the removal of campaign {campaign}"):
        for key, owner in _OWNED_IDS:
            owned = f"SELECT {key} FROM {owner} WHERE campaign_id = ?"
            if key == "run_id":     # text_token's owner_id is a run_id or a qrels_id
                removed += digests.delete(con, "text_token", f"source = 'run' AND owner_id "
                                          f"IN ({owned})", [cid])
            elif key == "qrels_id":
                removed += digests.delete(con, "text_token", f"source IN ('ref', 'nugget') "
                                          f"AND owner_id IN ({owned})", [cid])
            for table in digests.tables_having(con, key):
                if table != owner and table != "campaign" and \
                        "campaign_id" not in _columns(con, table):
                    removed += digests.delete(con, table, f"{key} IN ({owned})", [cid])
        # significance rows name their campaign (irw compare --store)
        removed += digests.delete(con, "significance", "campaign = ?", [campaign])
        for table in digests.tables_having(con, "campaign_id"):
            if table != "campaign":
                removed += digests.delete(con, table, "campaign_id = ?", [cid])
        removed += digests.delete(con, "campaign", "campaign_id = ?", [cid])
    return removed


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    return {c for (c,) in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ?", [table]).fetchall()}
