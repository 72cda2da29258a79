"""Qrels and topics of an ir_datasets dataset by its ID (MacAvaney et al., "Simplified Data
Wrangling with ir_datasets", SIGIR 2021): `irds:DATASET_ID` where a command takes a qrels or
topic file (`irw ingest qrels irds:ID -C C`, `irw ingest topics irds:ID -C C`, `irw eval
irds:ID RUN`) and `Warehouse.ingest_ir_datasets`.

ir_datasets is an optional dependency (`pip install 'irwarehouse[irds]'`); it downloads a
dataset's files into IR_DATASETS_HOME on first use. Its judgments become rows (topic, intent,
doc, rel) as a qrels file's would:

* ad hoc qrels (TrecQrel, GenericQrel, ...: query_id, doc_id, relevance) -> intent '', format
  `qrels`;
* diversity qrels (TrecSubQrel: query_id, doc_id, relevance, subtopic_id, the TREC Web track's
  `qrels.diversity` read as ndeval reads it) -> intent = subtopic_id, format `diversity`;
* sampled judgments (TrecPrel: query_id, doc_id, relevance, method, iprob; the Million Query
  track's and the TREC 2009 Web track's prels) -> format `prels`, read as a prels file's lines
  (formats.sampled), for statAP.

The rows are checked as a file's lines are (no empty topic or document, no control character,
an integer level in 32 bits, no (topic, intent, document) twice: the error names the row, counted
from 1 in ir_datasets' order), then stored by the same code as a file's (store.ingest). What is
recorded as provenance: source_path `irds:ID`, source_version `ir_datasets X.Y.Z`, and as
sha256 the digest of the rows as ir_datasets yields them (one `topic<TAB>intent<TAB>doc<TAB>rel`
line each), so that a changed download shows as a changed digest."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import InputError, IrwError
from ..failures import shown
from .lines import character_problem

PREFIX = "irds:"
INSTALL = "pip install 'irwarehouse[irds]'"
LEVEL_BITS = 32


def dataset_id(source) -> str | None:
    """The ID of `irds:ID` (a str or a Path given on the command line), else None."""
    text = str(source) if source is not None else ""
    return text[len(PREFIX):] if text.startswith(PREFIX) else None


def _library():
    try:
        import ir_datasets
    except ImportError:
        raise IrwError(f"irds: sources need the ir_datasets package: {INSTALL}") from None
    return ir_datasets


def version() -> str:
    """`ir_datasets X.Y.Z`, the provenance's source_version."""
    return f"ir_datasets {_library().__version__}"


def load(did: str):
    """The ir_datasets Dataset of an ID; an unknown ID is one line."""
    ir_datasets = _library()
    if not did:
        raise IrwError("irds: needs a dataset ID, e.g. irds:clueweb09/en/trec-web-2012/diversity")
    try:
        return ir_datasets.load(did)
    except KeyError:
        raise IrwError(f"ir_datasets has no dataset {shown(did)} (its IDs: "
                       "https://ir-datasets.com)") from None


def _rows(did: str, what: str, iterate):
    """ir_datasets' rows of `what` (qrels, queries); a download or parse that fails (no
    network, a file missing) is one line naming the dataset."""
    try:
        yield from iterate()
    except IrwError:
        raise
    except Exception as exc:  # noqa: BLE001 - ir_datasets raises bare RuntimeErrors, OSErrors
        # ir_datasets' download failure carries the list of sources tried as a second
        # argument: its first says what happened, its log (stderr) names the sources
        first = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
        text = " ".join(first.split())[:300] or type(exc).__name__
        raise IrwError(f"ir_datasets could not provide the {what} of {did}: {text}") from None


@dataclass(frozen=True)
class IrdsQrels:
    """The judgments of a dataset as an Arrow table (topic, intent, doc, rel), with its
    qrels format (`qrels` or `diversity`) and provenance."""
    table: object               # pyarrow.Table (None for prels)
    fmt: str
    source: str                 # irds:ID
    version: str                # ir_datasets X.Y.Z
    sha256: str
    sampled: list | None = None     # prels: formats.sampled.SampledJudgment rows


def read_qrels(did: str) -> IrdsQrels:
    """The judgments of dataset `did`, checked row by row."""
    import pyarrow as pa
    ds = load(did)
    source = PREFIX + did
    if not ds.has_qrels():
        raise IrwError(f"ir_datasets' {did} has no qrels")
    fields = ds.qrels_cls()._fields
    if "iprob" in fields:
        return _read_prels(did, ds)
    diversity = "subtopic_id" in fields
    topics, intents, docs, levels = [], [], [], []
    digest = hashlib.sha256()
    for row, qrel in enumerate(_rows(did, "qrels", ds.qrels_iter), 1):
        topic, doc, rel = qrel.query_id, qrel.doc_id, qrel.relevance
        intent = qrel.subtopic_id if diversity else ""
        _check_row(source, row, topic, intent, doc, rel)
        topics.append(topic)
        intents.append(intent)
        docs.append(doc)
        levels.append(rel)
        digest.update(f"{topic}\t{intent}\t{doc}\t{rel}\n".encode())
    if not topics:
        raise InputError(source, None, "no judgments (empty qrels)")
    table = pa.table({"topic": pa.array(topics, pa.string()),
                      "intent": pa.array(intents, pa.string()),
                      "doc": pa.array(docs, pa.string()),
                      "rel": pa.array(levels, pa.int32())})
    return IrdsQrels(table, "diversity" if diversity else "qrels", source, version(),
                     digest.hexdigest())


def _read_prels(did: str, ds) -> IrdsQrels:
    """Sampled judgments with inclusion probabilities (TrecPrel: the Million Query track's and
    the TREC 2009 Web track's prels) read as a prels file's lines are (formats.sampled: rel
    -999 skipped, method 0 or 2 read with probability 1, a probability outside (0, 1]
    refused), format `prels` (statAP)."""
    from .sampled import prels_judgment
    source = PREFIX + did
    rows, seen = [], {}
    digest = hashlib.sha256()
    for row, qrel in enumerate(_rows(did, "qrels", ds.qrels_iter), 1):
        topic, doc, rel = qrel.query_id, qrel.doc_id, qrel.relevance
        _check_row(source, row, topic, "", doc, rel)
        fields = [topic, doc, str(rel), str(qrel.method), repr(float(qrel.iprob))]
        digest.update(("\t".join(fields) + "\n").encode())
        try:
            judgment = prels_judgment(source, row, fields)
        except InputError as exc:
            raise InputError(source, None, f"judgment {row}: {exc.message}") from None
        if judgment is None:
            continue
        if (topic, doc) in seen:
            raise InputError(source, None, f"judgment {row}: document {shown(doc)} judged "
                             f"twice for topic {shown(topic)} (first at judgment "
                             f"{seen[topic, doc]})")
        seen[topic, doc] = row
        rows.append(judgment)
    if not rows:
        raise InputError(source, None, "no judgments (empty qrels)")
    return IrdsQrels(None, "prels", source, version(), digest.hexdigest(), rows)


def _check_row(source: str, row: int, topic, intent, doc, rel) -> None:
    """The checks a qrels line gets (formats.trec), on one of ir_datasets' rows."""
    where = f"judgment {row}"
    for what, value in (("topic", topic), ("subtopic", intent), ("document", doc)):
        if not isinstance(value, str):
            raise InputError(source, None, f"{where}: {what} {value!r} is not text")
        if what != "subtopic" and not value.strip():
            raise InputError(source, None, f"{where}: empty {what}")
        problem = character_problem(value)
        if problem:
            raise InputError(source, None, f"{where}: {what} {shown(value)}: {problem}")
    if isinstance(rel, bool) or not isinstance(rel, int):
        raise InputError(source, None, f"{where}: relevance level {rel!r} is not an integer")
    if not -(2 ** (LEVEL_BITS - 1)) <= rel < 2 ** (LEVEL_BITS - 1):
        raise InputError(source, None, f"{where}: relevance level {rel} is out of range")


def read_topics(did: str) -> tuple[list, str, str]:
    """(topics, source `irds:ID`, version) of dataset `did`'s queries: the id, the title (the
    query's `title`, `query` or `text` field, else its default text), the description and the
    type (the TREC Web track's faceted/ambiguous) where the query type has them."""
    from .topics import Topic, _clean
    ds = load(did)
    source = PREFIX + did
    if not ds.has_queries():
        raise IrwError(f"ir_datasets' {did} has no queries")
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for row, query in enumerate(_rows(did, "queries", ds.queries_iter), 1):
        fields = query._fields
        title = next((getattr(query, f) for f in ("title", "query", "text") if f in fields),
                     None)
        if title is None and hasattr(query, "default_text"):
            title = query.default_text()
        description = getattr(query, "description", None) if "description" in fields else None
        kind = getattr(query, "type", None) if "type" in fields else None
        topic = Topic(query.query_id, _clean(title), _clean(description),
                      _clean(kind) if isinstance(kind, str) else None, row)
        where = f"query {row}"
        if not isinstance(topic.topic, str) or not topic.topic.strip():
            raise InputError(source, None, f"{where}: empty query id")
        for text in (topic.topic, topic.title, topic.description, topic.topic_type):
            problem = character_problem(text) if text else None
            if problem:
                raise InputError(source, None, f"{where}: {problem}")
        if topic.topic in seen:
            raise InputError(source, None, f"{where}: query id {shown(topic.topic)} again "
                             f"(first at query {seen[topic.topic]})")
        seen[topic.topic] = row
        topics.append(topic)
    if not topics:
        raise InputError(source, None, "no queries")
    return topics, source, version()
