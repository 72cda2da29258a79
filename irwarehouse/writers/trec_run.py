"""A stored run written back as a TREC run file (`irw export run`): `topic Q0 doc rank score
tag` in the order of the file it came from (run_row.file_order), its rank column as stored, the
run's name as the tag, and with `metadata` its ir_metadata block at the head
(formats.ir_metadata.header), which the run reader skips and `irw ingest run` reads back."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..errors import WarehouseError
from ..outfiles import written
from ..store.ingest import campaign_id
from ..store.lookup import named_id
from ..store.run_metadata import stored_metadata

_BATCH = 100_000


def write_run(con: duckdb.DuckDBPyConnection, campaign: str, run: str, out: str | Path, *,
              metadata: bool = False) -> int:
    """Write run `run` of `campaign` to `out`; returns the number of rows. A score is printed
    as the shortest decimal that reads back as the stored double (Python's repr), so that the
    file evaluates as the stored run does."""
    from ..formats.ir_metadata import header
    rid = named_id(con, "run", campaign_id(con, campaign), run, campaign)
    text = stored_metadata(con, campaign, run) if metadata else None
    if any(ch.isspace() for ch in run):
        raise WarehouseError(f"run name {run!r} holds a space, which a TREC run's tag "
                             "column cannot (rename it: irw rename run)")
    if metadata and text is None:
        raise WarehouseError(f"run {run!r} of campaign {campaign!r} has no ir_metadata "
                             "(export it without --metadata)")
    cursor = con.execute("""
        SELECT topic, doc, coalesce(rank, row_number() OVER (PARTITION BY topic
                                                              ORDER BY file_order)), score
        FROM run_row WHERE run_id = ? ORDER BY file_order""", [rid])
    rows = 0
    with written(out) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as f:
        if text is not None:
            f.write(header(text))
        while batch := cursor.fetchmany(_BATCH):
            f.writelines(f"{topic} Q0 {doc} {rank} {score!r} {run}\n"
                         for topic, doc, rank, score in batch)
            rows += len(batch)
    return rows
