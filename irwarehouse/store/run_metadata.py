"""A stored run's ir_metadata (run.ir_metadata; irwarehouse/formats/ir_metadata.py): read back
for `irw runs`, the report and `irw export run --metadata`. A warehouse made before the column
existed, opened read-only (not upgraded), reads as having none."""

from __future__ import annotations

import duckdb

from .ingest import campaign_id
from .lookup import named_id


def has_metadata_column(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("""
        SELECT count(*) FROM duckdb_columns()
        WHERE database_name = current_database() AND schema_name = 'main'
          AND table_name = 'run' AND column_name = 'ir_metadata'""").fetchone()[0])


def stored_metadata(con: duckdb.DuckDBPyConnection, campaign: str, run: str) -> str | None:
    """The ir_metadata YAML of run `run` of `campaign` (None: none stored); an unknown
    campaign or run is an error naming it."""
    rid = named_id(con, "run", campaign_id(con, campaign), run, campaign)
    if not has_metadata_column(con):
        return None
    return con.execute("SELECT ir_metadata FROM run WHERE run_id = ?", [rid]).fetchone()[0]


def campaign_metadata(con: duckdb.DuckDBPyConnection, campaign: str | None
                      ) -> dict[tuple[str, str], str]:
    """{(campaign, run): ir_metadata YAML} of the runs that have one, of one campaign or all."""
    if not has_metadata_column(con):
        return {}
    return {(c, r): text for c, r, text in con.execute("""
        SELECT c.name, r.name, r.ir_metadata FROM run r JOIN campaign c USING (campaign_id)
        WHERE r.ir_metadata IS NOT NULL AND ($campaign IS NULL OR c.name = $campaign)
        ORDER BY c.name, r.name""", {"campaign": campaign}).fetchall()}
