"""Small warehouses for the online tests: qrels, runs, session logs and doc lengths written
to files and ingested through the same functions as the CLI."""

from __future__ import annotations

from pathlib import Path

from irwarehouse.api import Warehouse
from irwarehouse.online import measures as om
from irwarehouse.online.store import ingest_sessions

HEADER = ("session", "topic", "query_no", "rank", "doc", "clicked", "click_time", "dwell")


def write_qrels(path: Path, qrels: dict[tuple[str, str], int]) -> Path:
    path.write_text("".join(f"{t} 0 {d} {r}\n" for (t, d), r in sorted(qrels.items())))
    return path


def write_sessions(path: Path, rows, header=HEADER) -> Path:
    lines = ["\t".join(header)]
    for row in rows:
        lines.append("\t".join("" if v is None else str(v) for v in row))
    path.write_text("\n".join(lines) + "\n")
    return path


def warehouse(tmp: Path, qrels=None, sessions=None, *, campaign="c", run="sys") -> Warehouse:
    wh = Warehouse(None)
    if qrels is not None:
        wh.ingest_qrels(write_qrels(tmp / "qrels.txt", qrels), campaign)
    if sessions is not None:
        ingest_sessions(wh.con, write_sessions(tmp / f"{run}.tsv", sessions), campaign, run=run)
    return wh


def values(wh, measure: str, campaign="c", **kw) -> dict[str, float]:
    _, rows, _ = om.evaluate(wh.con, campaign, [measure], **kw)
    return {topic: v for _, _, topic, v in rows}
