"""Storing a campaign's topic statements (`irw ingest topics`) in the `topic` table, in one
transaction; a topic stored before is replaced, the others stay."""

from __future__ import annotations

import duckdb

from ..formats.topics import Topic
from . import digests
from .ingest import campaign_id, transaction


def store_topics(con: duckdb.DuckDBPyConnection, campaign: str, topics: list[Topic], *,
                 source: str | None = None, version: str | None = None
                 ) -> tuple[int, int | None]:
    """Store `topics` in `campaign` (created if new), with where they came from (`source`: the
    topic file's path or `irds:ID`; `version`: the software's, for ir_datasets). Returns
    (topics stored, how many of them the campaign's qrels judge; None when it has no qrels)."""
    with transaction(con, f"the topics of campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        write_topics(con, cid, topics, source=source, version=version)
    return len(topics), judged_count(con, cid, topics)


def write_topics(con: duckdb.DuckDBPyConnection, cid: int, topics: list[Topic], *,
                 source: str | None, version: str | None) -> None:
    """store_topics inside the caller's transaction, for campaign id `cid`."""
    con.executemany("""
        INSERT OR REPLACE INTO topic (campaign_id, topic, title, description, topic_type,
                                      source_path, source_version)
        VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    [[cid, t.topic, t.title, t.description, t.topic_type, source, version]
                     for t in topics])
    digests.touch(con, "topic", "campaign_id = ?", [cid])


def judged_count(con: duckdb.DuckDBPyConnection, cid: int, topics: list[Topic]) -> int | None:
    """How many of `topics` the qrels of campaign `cid` judge (None: it has no qrels)."""
    has_qrels = con.execute("SELECT count(*) FROM qrels WHERE campaign_id = ?",
                            [cid]).fetchone()[0]
    if not has_qrels:
        return None
    return con.execute("""
        SELECT count(DISTINCT j.topic) FROM judgment j JOIN qrels q USING (qrels_id)
        WHERE q.campaign_id = ? AND j.topic IN (SELECT unnest(?::VARCHAR[]))""",
                       [cid, [t.topic for t in topics]]).fetchone()[0]
