"""Evaluation: build the context relations for some runs and one qrels, run the metric macros,
collect per-topic values and summaries. Every value is computed by the SQL in sql/metrics."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import duckdb

from . import diversity
from .errors import MeasureError
from .measures import MeasureRequest
from .sqlassets import metric_files, read_sql, sections
from .warehouse import install_macros

if TYPE_CHECKING:
    import pyarrow as pa

ORDERS = ("score", "rank", "file")

# Below this many judged documents per topic on average, rank judged documents by counting (no
# full sort of the run); above it, one window sort is cheaper. Measured on the 7M-line bench run
# (bench/bench_eval.py) with 5, 12 and 25 judged documents per topic: counting 1.2, 1.7, 2.8 CPU
# seconds vs window 3.0, 2.8, 3.5; the crossover is near 30.
COUNTING_PLAN_MAX_JUDGED_PER_LIST = 30
MACROS_PER_STATEMENT = 4


@dataclass(frozen=True)
class EvalOptions:
    """trec_eval's evaluation options, plus the ranking order and the trec_eval version."""
    threshold: int = 1                 # -l: a level >= threshold is relevant
    judged_only: bool = False          # -J: drop unjudged documents first (condensed list)
    depth: int | None = None           # -M: evaluate only the top `depth` documents
    complete: bool = False             # -c: average over every judged topic
    order: str = "score"               # score (trec_eval) | rank (rank column) | file (NTCIREVAL)
    version: int = 9                   # trec_eval semantics: 9 (9.0.8, pytrec_eval) or 10
    # NTCIREVAL diversity gains (DIN-splitqrels' L1G..L9G): (level, gain) pairs; a level not
    # listed has gain = level
    gains: tuple = ()

    def __post_init__(self):
        if self.order not in ORDERS:
            raise MeasureError(f"unknown order {self.order!r}; use one of {', '.join(ORDERS)}")
        if self.version not in (9, 10):
            raise MeasureError("trec_eval version must be 9 or 10")
        if self.depth is not None and self.depth < 0:
            raise MeasureError("depth (-M) must be >= 0")

    def describe(self) -> str:
        gains = ",".join(f"{lv}:{g:g}" for lv, g in self.gains)
        return (f"l={self.threshold};J={int(self.judged_only)};M={self.depth or ''};"
                f"c={int(self.complete)};order={self.order};v={self.version}"
                + (f";g={gains}" if gains else ""))


# Arrow types of the DuckDB column types in evaluation results
_ARROW_TYPES = {"INTEGER": "int32", "BIGINT": "int64", "VARCHAR": "string", "DOUBLE": "float64",
                "BOOLEAN": "bool_"}


class Rows:
    """A query result held as Python rows, made a pyarrow Table only when used as one: the CLI
    prints from the rows, so an evaluation never imports pyarrow (and numpy with it), 0.12 s of
    every start. Reads like the Table it stands for (to_pylist, to_pydict, ["column"], ...)."""

    def __init__(self, relation: duckdb.DuckDBPyRelation):
        self.names = list(relation.columns)
        self.types = [str(t) for t in relation.types]
        self.rows = relation.fetchall()
        self._table = None

    def to_pylist(self) -> list[dict]:
        return [dict(zip(self.names, row)) for row in self.rows]

    def to_pydict(self) -> dict[str, list]:
        return {name: [row[i] for row in self.rows] for i, name in enumerate(self.names)}

    @property
    def num_rows(self) -> int:
        return len(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def to_arrow(self) -> pa.Table:
        if self._table is None:
            import pyarrow as pa
            schema = pa.schema([(n, getattr(pa, _ARROW_TYPES[t])())
                                for n, t in zip(self.names, self.types)])
            self._table = pa.Table.from_pydict(self.to_pydict(), schema=schema)
        return self._table

    def __getitem__(self, key):
        return self.to_arrow()[key]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.to_arrow(), name)


@dataclass
class EvalResult:
    # pyarrow Tables (or Rows, which turn into one when used as a Table)
    per_topic: pa.Table | Rows         # run_id, run, topic, measure, value, text, in_run
    summary: pa.Table | Rows           # run_id, run, measure, value
    requests: list[MeasureRequest] = field(default_factory=list)
    options: EvalOptions = field(default_factory=EvalOptions)
    runid: bool = True                 # print trec_eval's `runid` row (official/all_trec/runid)
    # NTCIREVAL's gcompute blocks behind the D/DIN/IA measures (diversity.gcompute_blocks),
    # for the .Dnev / .DINnev / .nevIA layouts; None unless asked for
    gcompute: pa.Table | None = None
    # every (run_id, run, topic) of the evaluated runs, whether judged or not (ndeval prints a
    # row of zeros for a run topic absent from the qrels); filled for diversity measures
    run_topics: pa.Table | None = None

    def with_arrow(self) -> EvalResult:
        """per_topic and summary as pyarrow Tables (the Python API's promise)."""
        for name in ("per_topic", "summary"):
            value = getattr(self, name)
            if isinstance(value, Rows):
                setattr(self, name, value.to_arrow())
        return self


def _context_params(qrels_id: int, opts: EvalOptions) -> dict:
    return {
        "qrels_id": qrels_id, "threshold": opts.threshold, "judged_only": opts.judged_only,
        "depth": opts.depth, "order": opts.order, "version": opts.version,
        "float_scores": opts.version < 10, "complete": opts.complete,
        "div_gains": _bind(dict(opts.gains)),
    }


def _used(sql: str, params: dict) -> dict:
    return {k: v for k, v in params.items() if f"${k}" in sql}


def build_context(con: duckdb.DuckDBPyConnection, run_ids: list[int], qrels_id: int,
                  opts: EvalOptions) -> str:
    """Fill the ev_* relations; returns the ranking plan used ('stored', 'window' or
    'counting')."""
    sql = sections(read_sql("context.sql"))
    params = _context_params(qrels_id, opts)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_runs AS SELECT unnest($ids::INTEGER[]) AS run_id",
                {"ids": list(run_ids)})
    for name in ("options", "judgment", "topic"):
        con.execute(sql[name], _used(sql[name], params))
    plan = choose_plan(con, opts)
    steps = ["sorted_window", "ranked_window"] if plan == "window" else [f"ranked_{plan}"]
    for name in steps:
        con.execute(sql[name], _used(sql[name], params))
    if plan == "window":
        con.execute("DROP TABLE ev_sorted")
    for name in ("finish_ranked", "run_topic"):
        con.execute(sql[name], _used(sql[name], params))
    return plan


def choose_plan(con: duckdb.DuckDBPyConnection, opts: EvalOptions | None = None) -> str:
    """'stored' when every run has the trec_eval 9 score-order rank stored at ingestion and that
    is the order asked for; otherwise 'counting' when few documents per topic are judged relative
    to the list lengths, else 'window'."""
    opts = opts or EvalOptions()
    if opts.order == "score" and opts.version < 10:
        missing = con.execute("""
            SELECT EXISTS (SELECT 1 FROM run_row
                           WHERE run_id IN (SELECT run_id FROM ev_runs)
                             AND score_rank IS NULL)""").fetchone()[0]
        if not missing:
            return "stored"
    judged, lists = con.execute(
        "SELECT (SELECT count(*) FROM ev_judgment), "
        "(SELECT count(*) FROM ev_topic)").fetchone()
    per_topic = judged / lists if lists else 0
    return "counting" if per_topic <= COUNTING_PLAN_MAX_JUDGED_PER_LIST else "window"


def _macro_query(requests: list[MeasureRequest]) -> tuple[str, list]:
    """One UNION ALL over the requested macros; names come from the registry (the project's SQL
    files), every parameter is a bound value."""
    parts, values = [], []
    for req in requests:
        placeholders = ", ".join("?" for _ in req.args)
        if req.mdef.kind == "text":
            columns = "CAST(NULL AS DOUBLE) AS value, CAST(value AS VARCHAR) AS text"
        else:
            columns = "CAST(value AS DOUBLE) AS value, CAST(NULL AS VARCHAR) AS text"
        parts.append(f"SELECT run_id, topic, ? AS measure, {columns} "
                     f"FROM {req.mdef.macro}({placeholders})")
        values.append(req.name)
        values.extend(_bind(a) for a in req.args)
    return "\nUNION ALL\n".join(parts), values


def _bind(value):
    if isinstance(value, dict):
        # Keep the order the pairs were given in: trec_eval's gain table (G, ndcg_rel, Rndcg)
        # lists the level=gain parameters first, in that order, and the order decides ties
        # between gains less than 1 apart (sql/metrics/gain.sql).
        keys = list(value)
        return duckdb.Value({"key": keys, "value": [value[k] for k in keys]},
                            duckdb.map_type(duckdb.sqltype("INTEGER"), duckdb.sqltype("DOUBLE")))
    return value


def _prepare_extras(con: duckdb.DuckDBPyConnection, requests: list[MeasureRequest],
                    params: dict) -> None:
    """The context relations only some measures read: the diversity context, and the lists
    of every retrieved document (ev_listed, ev_div_listed; header `needs:`)."""
    if diversity.needed(requests):
        diversity.prepare(con, requests, params)
    needs = {r.mdef.needs for r in requests}
    sql = sections(read_sql("context.sql"))
    if "div_listed" in needs:         # diversity ranks read scores as doubles (div_ranked)
        con.execute(sql["listed"], _used(sql["listed"], {**params, "float_scores": False}))
        con.execute(sql["div_listed"])
    if "listed" in needs:
        con.execute(sql["listed"], _used(sql["listed"], params))


def evaluate(con: duckdb.DuckDBPyConnection, run_ids: list[int], qrels_id: int,
             requests: list[MeasureRequest], opts: EvalOptions = EvalOptions(),
             progress=None, gcompute: bool = False) -> EvalResult:
    """`progress(done, total)`, when given, is called after the ranking and after each batch
    of measures (the CLI draws a bar on a terminal). `gcompute`: also fetch NTCIREVAL's
    gcompute blocks of the requested D/DIN/IA measures (the .Dnev/.DINnev/.nevIA layouts)."""
    if not requests:
        raise MeasureError("no measures requested")
    # M' (condensed) requests run after the others, on the context rebuilt as -J builds it.
    groups = [(opts, [r for r in requests if not r.condensed]),
              (replace(opts, judged_only=True), [r for r in requests if r.condensed])]
    groups = [(o, reqs) for o, reqs in groups if reqs]
    total = sum(len(range(0, len(reqs), MACROS_PER_STATEMENT)) for _, reqs in groups) + 1
    report = progress or (lambda done, total: None)
    families = {r.mdef.family for r in requests}
    if diversity.needed(requests):
        families |= {p.stem for p in metric_files() if p.stem.startswith("diversity")}
    install_macros(con, families)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_scores (run_id INTEGER, topic VARCHAR, "
                "measure VARCHAR, value DOUBLE, text VARCHAR)")
    done = 0
    for group_opts, group in groups:
        build_context(con, run_ids, qrels_id, group_opts)
        if done == 0:
            done = 1
            report(done, total)
        _prepare_extras(con, group, _context_params(qrels_id, group_opts))
        # A few macros per statement: planning one UNION ALL of many macros grows faster than
        # linearly (52 NTCIREVAL macros: seconds in one statement, a fraction in small batches).
        for i in range(0, len(group), MACROS_PER_STATEMENT):
            query, values = _macro_query(group[i:i + MACROS_PER_STATEMENT])
            con.execute(f"INSERT INTO ev_scores {query}", values)
            done += 1
            report(done, total)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_measures (measure VARCHAR, summary VARCHAR, "
                "ord INTEGER)")
    con.executemany("INSERT INTO ev_measures VALUES (?, ?, ?)",
                    [(r.name, r.mdef.summary, i) for i, r in enumerate(requests)])
    con.execute(sections(read_sql("context.sql"))["summary"])
    per_topic = Rows(con.sql("""
        SELECT s.run_id, r.name AS run, s.topic, s.measure, s.value, s.text, rt.in_run
        FROM ev_scores s
        JOIN run r ON r.run_id = s.run_id
        JOIN ev_run_topic rt ON rt.run_id = s.run_id AND rt.topic = s.topic
        JOIN ev_measures m ON m.measure = s.measure
        ORDER BY s.run_id, s.topic, m.ord"""))
    summary = Rows(con.sql("""
        SELECT s.run_id, r.name AS run, s.measure, s.value
        FROM ev_summary s JOIN run r ON r.run_id = s.run_id
        JOIN ev_measures m ON m.measure = s.measure
        ORDER BY s.run_id, m.ord"""))
    blocks = (diversity.gcompute_blocks(con, requests)
              if gcompute and diversity.needed(requests) else None)
    run_topics = con.sql("""
        SELECT DISTINCT r.run_id, n.name AS run, r.topic
        FROM run_row r JOIN run n ON n.run_id = r.run_id
        WHERE r.run_id IN (SELECT run_id FROM ev_runs)""").to_arrow_table() \
        if diversity.needed(requests) else None
    return EvalResult(per_topic, summary, list(requests), opts, gcompute=blocks,
                      run_topics=run_topics)


def definition_hash(req: MeasureRequest) -> str:
    """A hash of the SQL file that defines a measure, stored with materialised scores."""
    from .sqlassets import sql_dir
    text = (sql_dir() / "metrics" / f"{req.mdef.family}.sql").read_bytes()
    return hashlib.sha256(text).hexdigest()[:16]
