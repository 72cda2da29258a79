"""Qrels and runs held in memory, as Arrow tables with the warehouse's column names.

What researchers hold: a pandas or polars DataFrame, a pyarrow Table, pytrec_eval's dict of
dicts ({query_id: {doc_id: relevance or score}}), an iterable of ir_measures' `Qrel` /
`ScoredDoc` (or ir_datasets') namedtuples, a ranx `Qrels` / `Run`. `qrels_table(obj)` and
`run_table(obj)` turn each into one Arrow table: (topic, doc, rel[, intent]) and
(topic, doc, score[, rank][, tag]). They only find the columns and check their types; the rows
are checked where a table is staged (analyst.tables: stage_qrels_table, stage_run_table), with
the file reader's rules and a message naming the row.

Column names of every tool are recognised, the first present in each list winning (PyTerrier's
frames hold `docid`, an index's internal number, beside `docno`, the document's name; and
`query`, the query's text, beside `qid`). pandas, polars, ranx and ir_measures are never imported
here: an object is recognised by its type's module and name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

import pyarrow as pa

from ..errors import InputError

# role -> the column names that hold it, in order of preference
TOPIC = ("topic", "query_id", "qid", "q_id")
DOC = ("doc", "doc_id", "docno", "docid")
SCORE = ("score", "sim")
# ranx's Qrels.to_dataframe() names the level `score`: read only when no other name is there
REL = ("rel", "relevance", "label", "judgment", "score")
RANK = ("rank",)
TAG = ("tag", "run_name", "runid", "run")
INTENT = ("intent", "subtopic", "subtopic_id")


class Frame(NamedTuple):
    """An in-memory input as the table the warehouse stages, where it came from (for messages
    and provenance) and the name it carries (a ranx Run's), if any."""
    table: pa.Table
    source: str
    name: str | None = None


def qrels_table(obj, what: str = "qrels", *, source: str | None = None) -> Frame:
    """Judgments: columns topic, doc, rel (and intent: the subtopic of diversity qrels).
    `what` names the input in messages (`qrels (pandas DataFrame): row 3: ...`), `source`
    instead (a file's path)."""
    table, source, name = _arrow(obj, what, value="relevance", source=source)
    return Frame(_columns(table, source, [("topic", TOPIC, True), ("doc", DOC, True),
                                          ("rel", REL, True), ("intent", INTENT, False)]),
                 source, name)


def run_table(obj, what: str = "run", *, source: str | None = None) -> Frame:
    """A ranked list: columns topic, doc, score (and rank, tag when given)."""
    table, source, name = _arrow(obj, what, value="score", source=source)
    return Frame(_columns(table, source, [("topic", TOPIC, True), ("doc", DOC, True),
                                          ("score", SCORE, True), ("rank", RANK, False),
                                          ("tag", TAG, False)]),
                 source, name)


def kind_of(obj) -> str:
    """What an input is, in words ('pandas DataFrame', 'dict', ...)."""
    module = type(obj).__module__.split(".")[0]
    name = type(obj).__name__
    if module in ("pandas", "polars", "ranx", "pyarrow"):
        return f"{module} {name}"
    return name


# -- any input -> an Arrow table ----------------------------------------------------------------
def _arrow(obj, what: str, *, value: str, source: str | None
           ) -> tuple[pa.Table, str, str | None]:
    source = source or f"{what} ({kind_of(obj)})"
    module = type(obj).__module__.split(".")[0]
    kind = type(obj).__name__
    if isinstance(obj, pa.Table):
        return obj, source, None
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj]), source, None
    if module == "pandas" and kind == "DataFrame":
        try:
            return pa.Table.from_pandas(obj, preserve_index=False), source, None
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise InputError(source, None, f"a column of mixed or unreadable types ({exc})") \
                from None
    if module == "polars" and kind in ("DataFrame", "LazyFrame"):
        frame = obj.collect() if kind == "LazyFrame" else obj
        return frame.to_arrow(), source, None
    if module == "ranx" and kind in ("Qrels", "Run"):
        name = getattr(obj, "name", None) if kind == "Run" else None
        return _nested(obj.to_dict(), source, value), source, name or None
    if isinstance(obj, Mapping):
        return _nested(obj, source, value), source, None
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        return _records(obj, source), source, None
    raise InputError(source, None, f"cannot read a {kind_of(obj)}: give a pandas or polars "
                     "DataFrame, a pyarrow Table, a dict {query_id: {doc_id: value}}, "
                     "ir_measures' namedtuples, a ranx object or a path")


def _nested(obj: Mapping, source: str, value: str) -> pa.Table:
    """pytrec_eval's shape, {query_id: {doc_id: value}}, in iteration order."""
    topics, docs, values = [], [], []
    for topic, inner in obj.items():
        if not isinstance(inner, Mapping):
            raise InputError(source, None, f"query {topic!r} maps to a {type(inner).__name__}, "
                             f"not a dict {{doc_id: {value}}}")
        for doc, v in inner.items():
            topics.append(topic)
            docs.append(doc)
            values.append(v)
    column = "rel" if value == "relevance" else "score"
    return pa.table({"topic": _python_column(topics, source, "query id"),
                     "doc": _python_column(docs, source, "document id"),
                     column: _python_column(values, source, value)})


def _records(rows: Iterable, source: str) -> pa.Table:
    """namedtuples (ir_measures' Qrel and ScoredDoc, ir_datasets' TrecQrel, ...) or dicts."""
    columns: dict[str, list] = {}
    n = 0
    for n, row in enumerate(rows, 1):
        if isinstance(row, Mapping):
            record = row
        elif hasattr(row, "_fields"):
            record = dict(zip(row._fields, row))
        else:
            raise InputError(source, None, f"row {n}: a {type(row).__name__}, not a named tuple "
                             "(ir_measures' Qrel or ScoredDoc) or a dict")
        if n == 1:
            columns = {k: [] for k in record}
        elif record.keys() != columns.keys():
            raise InputError(source, None, f"row {n}: fields {', '.join(record)} differ from "
                             f"the first row's ({', '.join(columns)})")
        for k, v in record.items():
            columns[k].append(v)
    if n == 0:
        raise InputError(source, None, "no rows (an empty iterable)")
    return pa.table({k: _python_column(v, source, k) for k, v in columns.items()})


def _python_column(values: list, source: str, what: str) -> pa.Array:
    """Python values as one Arrow column; NaN stays NaN (refused where the rows are checked)."""
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(source, None, f"the {what} values mix types ({exc})") from None


# -- the columns, found and type-checked -------------------------------------------------------
def _columns(table: pa.Table, source: str, roles) -> pa.Table:
    names = table.column_names
    if len(set(names)) != len(names):
        raise InputError(source, None, "two columns have the same name")
    out = {}
    for role, aliases, required in roles:
        found = next((n for n in aliases if n in names and n not in out.values()), None)
        if found is None:
            if required:
                raise InputError(source, None, f"missing column: the {role} (one of "
                                 f"{', '.join(aliases)}; the table has "
                                 f"{', '.join(names) or 'no columns'})")
            continue
        out[role] = found
    return pa.table({role: _typed(table[col], role, col, source) for role, col in out.items()})


def _typed(column, role: str, name: str, source: str):
    """A column in the type its role takes: names as strings (an integer id as its digits),
    numbers as numbers (text is read as the files' text is: analyst.tables checks each value)."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind) or \
        getattr(pa.types, "is_string_view", lambda _: False)(kind)
    if pa.types.is_null(kind):
        return column                # every value missing: the row check names the first
    if role in ("topic", "doc", "intent", "tag"):
        if text:
            return column.cast(pa.string())
        if pa.types.is_integer(kind):
            return column.cast(pa.string())
        raise InputError(source, None, f"column {name!r} ({role}) holds {kind} values; "
                         "ids are strings or integers")
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind) \
            or text:
        return column
    raise InputError(source, None, f"column {name!r} ({role}) holds {kind} values, not "
                     "numbers")
