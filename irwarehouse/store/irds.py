"""Storing an ir_datasets dataset's qrels and queries (irwarehouse.formats.irds) by the code
that stores a file's: the rows are staged as TEMP table stage_qrels, checked, and written by
store.ingest.write_staged_qrels and store.topics.write_topics, in one transaction."""

from __future__ import annotations

import duckdb

from ..errors import InputError
from ..failures import shown
from ..formats.irds import IrdsQrels, read_qrels, read_topics
from .connection import registered
from .ingest import campaign_id, check_name, store_staged_qrels, transaction, write_staged_qrels
from .topics import judged_count, store_topics, write_topics


def stage_irds_qrels(con: duckdb.DuckDBPyConnection, qrels: IrdsQrels) -> int:
    """TEMP table stage_qrels(topic, intent, doc, rel) of a dataset's judgments; a (topic,
    intent, document) judged twice is an error naming both rows, as a file's duplicate names
    both lines (prels: also TEMP table stage_sample, formats.sampled). Returns the number of
    judgments."""
    if qrels.sampled is not None:
        from ..formats.sampled import stage_sampled_rows
        return stage_sampled_rows(con, qrels.sampled)
    with registered(con, "irds_qrels", qrels.table):
        con.execute("CREATE OR REPLACE TEMP TABLE stage_qrels AS "
                    "SELECT topic, intent, doc, rel FROM irds_qrels")
    dup = con.execute("""
        SELECT topic, intent, doc, min(rowid) + 1, (list(rowid ORDER BY rowid))[2] + 1
        FROM stage_qrels GROUP BY topic, intent, doc HAVING count(*) > 1
        ORDER BY 5 LIMIT 1""").fetchall()
    if dup:
        topic, intent, doc, first, again = dup[0]
        sub = f" subtopic {shown(intent)}" if intent else ""
        raise InputError(qrels.source, None, f"judgment {again}: document {shown(doc)} judged "
                         f"twice for topic {shown(topic)}{sub} (first at judgment {first})")
    return qrels.table.num_rows


def ingest_irds_qrels(con: duckdb.DuckDBPyConnection, did: str, campaign: str, *,
                      name: str | None = None, replace: bool = False) -> int:
    """Store dataset `did`'s judgments as qrels `name` (default: the dataset ID) of `campaign`
    (created if new). Returns its qrels_id."""
    qrels = read_qrels(did)
    name = check_name("qrels", did if name is None else name)
    n = stage_irds_qrels(con, qrels)
    return store_staged_qrels(con, campaign, name=name, fmt=qrels.fmt, source=qrels.source,
                              digest=qrels.sha256, num_rows=n, replace=replace,
                              version=qrels.version)


def ingest_irds_topics(con: duckdb.DuckDBPyConnection, did: str, campaign: str
                       ) -> tuple[int, int | None]:
    """Store dataset `did`'s queries as the topics of `campaign`; (topics, judged: see
    store.topics.store_topics)."""
    topics, source, version = read_topics(did)
    return store_topics(con, campaign, topics, source=source, version=version)


def ingest_ir_datasets(con: duckdb.DuckDBPyConnection, did: str, campaign: str, *,
                       name: str | None = None, replace: bool = False) -> dict:
    """Store what dataset `did` has of qrels and queries in `campaign`, read and checked
    first, then written in one transaction (all or nothing). Returns {qrels_id, judgments,
    format, topics, judged_topics, source, version}; the qrels entries are None for a
    dataset without qrels, the topic ones for one without queries."""
    from ..errors import IrwError
    from ..formats.irds import load
    ds = load(did)
    if not ds.has_qrels() and not ds.has_queries():
        raise IrwError(f"ir_datasets' {did} has neither qrels nor queries")
    qrels = read_qrels(did) if ds.has_qrels() else None
    topics, source, version = read_topics(did) if ds.has_queries() else (None, None, None)
    out = {"qrels_id": None, "judgments": None, "format": None, "topics": None,
           "judged_topics": None, "source": f"irds:{did}",
           "version": qrels.version if qrels else version}
    if qrels is not None:
        name = check_name("qrels", did if name is None else name)
        out["judgments"] = stage_irds_qrels(con, qrels)
        out["format"] = qrels.fmt
    with transaction(con, f"the qrels and topics of {did} in campaign {campaign}"):
        cid = campaign_id(con, campaign, create=True)
        if qrels is not None:
            out["qrels_id"] = write_staged_qrels(
                con, cid, campaign, name=name, fmt=qrels.fmt, source=qrels.source,
                digest=qrels.sha256, num_rows=out["judgments"], replace=replace,
                version=qrels.version)
        if topics is not None:
            write_topics(con, cid, topics, source=source, version=version)
    if topics is not None:
        out["topics"] = len(topics)
        out["judged_topics"] = judged_count(con, cid, topics)
    return out
