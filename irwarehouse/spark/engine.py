"""Evaluation on Spark: the same relations and metric SQL as `irw eval`, transpiled.

`irw eval` (irwarehouse.engine.evaluate) materialises the context relations its measures read as TEMP
tables, each built by its ev_make_<relation> macro, then runs each measure's m_<name> over them.
This module does the same in a SparkSession: each relation is the builder's inlined SELECT in
Spark SQL, cached and named as a temporary view; each measure is its kernel's inlined SELECT over
those views; the per-topic values come back to the driver (runs x topics x measures rows) and
form the EvalResult every `irw eval` layout prints, run values by irw_summarise (DuckDB, in
memory: the one definition of a run's value).

pyspark is an optional extra (`pip install irwarehouse[spark]`) and needs Java 17+.
"""

from __future__ import annotations

import os
import shutil
import time
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlglot import exp

from ..options import SQL_OPTIONS
from ..engine.evaluate import EvalOptions, EvalResult, Rows, gain_maps
from ..errors import IrwError, MeasureError
from ..measures import MeasureRequest
from ..measures.portability import measure_portability
from ..sqlfiles import builder, context_relations, read_sql, relations_read, statements
from .dialect import to_spark
from .export import read_manifest
from .inline import Inliner, value_tree

DEFAULT_MASTER = "local[*]"
# A small footprint by default: no UI, and on a local master as many shuffle partitions as
# cores (Spark's default 200 turns each shuffle of a campaign-sized relation into 200 tiny
# tasks). Memory of a local driver: $IRW_SPARK_MEMORY (default 2g). A cluster master keeps
# its own settings (spark-defaults.conf).
DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
}
# measures per Spark query (one UNION ALL), and queries run side by side by the driver
MEASURES_PER_QUERY = 8
CONCURRENT_QUERIES = 2
_BASE_RELATIONS = ("ev_scope", "ev_runs", "ev_judgment", "ev_topic", "ev_full_ranked",
                   "ev_ranked", "ev_run_topic")
_SQL_TYPES = {"INTEGER": "INTEGER", "DOUBLE": "DOUBLE", "DOUBLE[]": "DOUBLE[]",
              "MAP": "MAP(INTEGER, DOUBLE)"}


class SparkUnavailable(IrwError):
    """pyspark or Java is missing."""


def find_java() -> str | None:
    """The java binary Spark will start: $JAVA_HOME/bin/java, else java on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").is_file():
        return str(Path(home, "bin", "java"))
    return shutil.which("java")


def java_major(java: str) -> int | None:
    """The major version of a java binary (`java -version`: "17.0.15", "1.8.0_392" = 8)."""
    import re
    import subprocess
    try:
        text = subprocess.run([java, "-version"], capture_output=True, text=True, check=False,
                              timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(?:1\.)?(\d+)', text)
    return int(m.group(1)) if m else None


def java_problem() -> str | None:
    """Why Spark cannot start a JVM here (None: it can): no java, or one older than 17."""
    java = find_java()
    if java is None:
        return ("--engine spark needs Java 17 or later (java on PATH or $JAVA_HOME); e.g. "
                "apt-get install openjdk-17-jre-headless")
    major = java_major(java)
    if major is None or major < 17:
        return (f"--engine spark needs Java 17 or later; {java} is "
                f"{'of an unknown version' if major is None else f'Java {major}'}")
    return None


def _import_pyspark():
    try:
        with warnings.catch_warnings():
            # pyspark warns at import about pandas versions; irw never converts to pandas
            warnings.simplefilter("ignore")
            from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("--engine spark needs pyspark: pip install 'irwarehouse[spark]'"
                               ) from None
    return SparkSession


def spark_session(master: str | None = None, *, conf: dict | None = None):
    """A SparkSession (the running one if there is one): `master` (default local[*]) and the
    small default configuration, `conf` on top."""
    session_cls = _import_pyspark()
    problem = java_problem()
    if problem:
        raise SparkUnavailable(problem)
    log4j = Path(__file__).with_name("log4j2.properties")
    # started by spark-submit (irwarehouse/spark_submit.py; its JVM, which pyspark joins, says
    # so in PYSPARK_GATEWAY_PORT): spark-submit's --master, unless --spark-master was given
    submitted = master is None and "PYSPARK_GATEWAY_PORT" in os.environ
    master = master or DEFAULT_MASTER
    settings = {**DEFAULT_CONF,
                "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log4j.as_uri()}"}
    cores = None if submitted else _local_cores(master)
    if cores:
        settings["spark.sql.shuffle.partitions"] = str(cores)
        settings["spark.driver.memory"] = os.environ.get("IRW_SPARK_MEMORY", "2g")
    settings.update(conf or {})
    build = session_cls.builder.appName("irwarehouse")
    if not submitted:
        build = build.master(master)
    for key, value in settings.items():
        build = build.config(key, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spark = build.getOrCreate()
    _quiet_pyspark_logs()
    return spark


def _local_cores(master: str) -> int | None:
    """The cores of a local master (local, local[4], local[*], local[2,3]); None otherwise."""
    if master == "local":
        return 1
    if not master.startswith("local["):
        return None
    n = master[len("local["):].split(",")[0].rstrip("]")
    return (os.cpu_count() or 1) if n == "*" else int(n)


def _quiet_pyspark_logs() -> None:
    """pyspark logs every failed query with its plan as a JSON block on stderr; the error
    reaches the user as one line (run_sql) instead."""
    from pyspark.logger import PySparkLogger
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True


def register_export(spark, folder: str | Path) -> dict:
    """Name every table of an export (irwarehouse.spark.export) as a temporary view."""
    manifest = read_manifest(folder)
    for table in manifest["tables"]:
        spark.read.parquet(str(Path(folder) / table)).createOrReplaceTempView(table)
    return manifest


def _spark_errors() -> tuple[type[Exception], ...]:
    """What a failed Spark query raises: pyspark's errors (analysis, a raise_error of the
    metric SQL, ...) and py4j's (the JVM side)."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException
    return PySparkException, Py4JError


def _spark_call(fn, *args, **kwargs):
    """fn(...), a Spark error turned into an IrwError of one line (a raise_error of the metric
    SQL: unknown campaign, qrels or run)."""
    try:
        return fn(*args, **kwargs)
    except _spark_errors() as exc:
        raise IrwError(f"Spark: {_first_line(exc)}") from None


def run_sql(spark, sql: str, args: dict | None = None):
    """spark.sql with bound parameters."""
    return _spark_call(spark.sql, sql, args=args or None)


def collect(df) -> list:
    return _spark_call(df.collect)


def collect_arrow(df):
    """A query result as a pyarrow Table (pyspark 4's DataFrame.toArrow)."""
    return _spark_call(df.toArrow)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    # [USER_RAISED_EXCEPTION] no campaign 'x' in the warehouse SQLSTATE: P0001
    if text.startswith("[USER_RAISED_EXCEPTION]"):
        text = text.removeprefix("[USER_RAISED_EXCEPTION]").split(" SQLSTATE:")[0].strip()
    return text


# -- evaluation ------------------------------------------------------------------------------

def refuse_unportable(requests: list[MeasureRequest]) -> None:
    """An error naming every requested measure that has no Spark translation, with the
    reason from the catalog."""
    refused = {}
    for req in requests:
        portable, reason = measure_portability(req.mdef)
        if not portable:
            refused.setdefault(req.mdef.name, (req.name, reason))
    if refused:
        listed = "; ".join(f"{name} ({why})" for name, why in refused.values())
        raise MeasureError(f"not portable to Spark: {listed}. Evaluate them with the default "
                           "engine (DuckDB); docs/sql_portability.md")


def _option_values(opts: EvalOptions) -> dict:
    """The options as the context builders' arguments (no gains table: NULL, gain = level)."""
    values = opts.sql_values()
    return {**values, "gains": values["gains"] or None}


def _typed(value, sql_type: str) -> exp.Expression:
    return exp.Cast(this=value_tree(value), to=exp.DataType.build(sql_type, dialect="duckdb"))


# the builders' option parameters and their types, from the options' declaration
_BUILDER_TYPES = {o.sql: o.sql_type for o in SQL_OPTIONS}


class SparkEvaluation:
    """One evaluation's context relations in a SparkSession (cached views), and the kernels
    run over them."""

    def __init__(self, spark, campaign: str, *, qrels: str | None = None,
                 runs: list[str] | None = None):
        self.spark, self.campaign, self.qrels, self.runs = spark, campaign, qrels, runs
        self.inliner = Inliner(portable=True)
        self.cached = []
        self.timings: list[tuple[str, float]] = []     # (relation, seconds to build it)

    def close(self) -> None:
        for df in self.cached:
            df.unpersist()
        self.cached = []

    def _view(self, relation: str, sql: str, args: dict | None = None) -> None:
        """Materialise a relation, as `irw eval` makes a TEMP table: computed now (its errors
        surface here) and kept by the executors without its lineage, so that the relations
        and kernels built on it read it instead of recomputing it (a cached DataFrame is
        matched by plan, and Spark does not match it inside subqueries)."""
        start = time.perf_counter()
        df = run_sql(self.spark, sql, args)
        df = _spark_call(df.localCheckpoint, eager=True)
        self.timings.append((relation, time.perf_counter() - start))
        df.createOrReplaceTempView(relation)
        self.cached.append(df)

    def build(self, relations, opts: EvalOptions, alphas=(), gains=()) -> None:
        """Materialise the context relations, in waves of relations whose inputs are built:
        the jobs of a wave run side by side (ev_full_ranked, ev_listed and ev_div_ranked
        each rank every list)."""
        needed = [r for r in context_relations()
                  if r in set(relations) | set(_BASE_RELATIONS) and r != "ev_sorted"]
        built: set[str] = set()
        while len(built) < len(needed):
            wave = [r for r in needed if r not in built
                    and _inputs(r) & set(needed) <= built]
            if not wave:
                raise IrwError(f"context relations read each other in a circle: {needed}")
            if "ev_runs" in wave and self.runs:
                self._runs_view()
                wave.remove("ev_runs")
                built.add("ev_runs")
            plans = [self._plan(relation, opts, alphas, gains) for relation in wave]
            with ThreadPoolExecutor(max_workers=CONCURRENT_QUERIES) as pool:
                list(pool.map(lambda plan: self._view(*plan), plans))
            built.update(wave)

    def _plan(self, relation: str, opts: EvalOptions, alphas, gains=()) -> tuple:
        """(relation, Spark SQL, bound values) of a context relation's builder: ev_div_ideal
        for the novelty discounts `alphas`, ev_gain_ideal for the gain tables `gains`."""
        values = _option_values(opts)
        args = None
        if relation == "ev_scope":
            qrels = exp.Placeholder(this="qrels") if self.qrels is not None else exp.Null()
            tree = self.inliner.call("ev_make_scope", [exp.Placeholder(this="campaign"),
                                                       qrels])
            args = {"campaign": self.campaign, **({"qrels": self.qrels} if self.qrels else {})}
        elif relation == "ev_runs":
            tree = self.inliner.call("ev_make_runs", [exp.Null()])
        elif relation == "ev_div_ideal":
            tree = _union([self.inliner.call("ev_make_div_ideal", [_typed(float(a), "DOUBLE")])
                           for a in (alphas or (0.5,))])
        elif relation == "ev_gain_ideal":
            # each table's builder a subquery: Spark refuses a UNION of WITH queries
            tree = _union([exp.select("*").from_(self.inliner.call(
                               "ev_make_gain_ideal", [_typed(g, "MAP(INTEGER, DOUBLE)")])
                               .subquery(f"gain_table_{i}"))
                           for i, g in enumerate(gains or ({},))])
        else:
            make = builder(relation)
            tree = self.inliner.call(make.name, [_typed(values[a], _BUILDER_TYPES[a])
                                                 for a in make.args])
        return relation, to_spark(tree, pretty=False), args

    def _runs_view(self) -> None:
        """ev_runs: every run of the campaign (ev_make_runs), or the runs named, looked up by
        name on the driver (a name never reaches SQL text; one the campaign lacks is an
        error naming it)."""
        ids = dict(collect(run_sql(self.spark, "SELECT r.name, r.run_id FROM run r WHERE "
                                               "r.campaign_id = (SELECT campaign_id "
                                               "FROM ev_scope)")))
        missing = [name for name in self.runs if name not in ids]
        if missing:
            raise IrwError(f"no run {missing[0]!r} in the campaign")
        df = self.spark.createDataFrame([(ids[n],) for n in dict.fromkeys(self.runs)],
                                        "run_id INT")
        df = _spark_call(df.localCheckpoint, eager=True)
        df.createOrReplaceTempView("ev_runs")
        self.cached.append(df)

    def measure_rows(self, requests: list[MeasureRequest], progress=None) -> list:
        """(run_id, topic, measure, value, text) of the requests, over the built views, a few
        measures per Spark query. A building block that several of the requested kernels
        call with the same arguments (ntcir_list, ev_ntd_at, ev_base, ...) is materialised
        once, like a context relation, and read by each."""
        calls = [(req, [_typed(a, _SQL_TYPES[p.type]) for p, a in zip(req.mdef.params,
                                                                      req.args)])
                 for req in requests]
        counts = Counter()
        counting = Inliner(portable=True, seen=set())
        for req, args in calls:
            counting.seen = set()
            counting.call(req.mdef.kernel, args)
            counts.update(counting.seen)
        # a building block two or more measures read is materialised once
        shared = {key: None for key, n in counts.items() if n > 1}
        inliner = Inliner(portable=True, shared=shared, materialise=self._shared_view)
        queries = []
        for i in range(0, len(calls), MEASURES_PER_QUERY):
            parts, values = [], {}
            for j, (req, args) in enumerate(calls[i:i + MEASURES_PER_QUERY]):
                parts.append(_kernel_select(inliner.call(req.mdef.kernel, args), req, j))
                values[f"m{j}"] = req.name
            queries.append((to_spark(_union(parts), pretty=False), values))

        # The queries read only materialised relations and are independent: Spark runs them
        # side by side (a small query leaves cores idle while it is scheduled and shuffled).
        def run(query):
            rows = collect(run_sql(self.spark, *query))
            if progress:
                progress()
            return rows
        with ThreadPoolExecutor(max_workers=CONCURRENT_QUERIES) as pool:
            return [row for rows in pool.map(run, queries) for row in rows]

    def _shared_view(self, key, tree: exp.Expression) -> str:
        name = f"ev_shared_{len(self.cached)}"
        self._view(name, to_spark(tree, pretty=False))
        return name

    def scalar(self, sql: str):
        return collect(run_sql(self.spark, sql))[0][0]


def _inputs(relation: str) -> set[str]:
    """The context relations a relation's builder reads."""
    if relation == "ev_scope":
        return set()
    return set(relations_read([builder(relation).name])) - {relation}


def _kernel_select(kernel: exp.Expression, req: MeasureRequest, i: int) -> exp.Expression:
    """SELECT run_id, topic, <measure name, bound as $m<i>>, value, text FROM (<kernel>) m."""
    if req.mdef.kind == "text":
        value, text = "CAST(NULL AS DOUBLE)", "CAST(m.value AS VARCHAR)"
    else:
        value, text = "CAST(m.value AS DOUBLE)", "CAST(NULL AS VARCHAR)"
    select = exp.select("m.run_id", "m.topic", f"$m{i} AS measure", f"{value} AS value",
                        f"{text} AS text", dialect="duckdb")
    return select.from_(exp.Subquery(this=kernel, alias=exp.TableAlias(
        this=exp.to_identifier("m"))))


def _union(parts: list[exp.Expression], distinct: bool = False) -> exp.Expression:
    tree = parts[0]
    for part in parts[1:]:
        tree = exp.union(tree, part, distinct=distinct)
    return tree


def _alphas(requests: list[MeasureRequest]) -> list[float]:
    return sorted({float(a) for r in requests if "ev_div_ideal" in r.mdef.context
                   for p, a in zip(r.mdef.params, r.args) if p.name == "alpha"})


def evaluate_spark(spark, campaign: str, requests: list[MeasureRequest],
                   opts: EvalOptions | None = None, *, qrels: str | None = None,
                   runs: list[str] | None = None, progress=None) -> EvalResult:
    """Evaluate `requests` on the tables registered in `spark` (register_export): the same
    EvalResult as irwarehouse.engine.evaluate.evaluate, computed by Spark."""
    opts = opts or EvalOptions()
    if not requests:
        raise MeasureError("no measures requested")
    refuse_unportable(requests)
    # Requests with options of their own (M' on the condensed list, ir_measures' rel= and
    # judged_only=) run on the context their options build, as in engine.evaluate.
    by_options: dict[EvalOptions, list[MeasureRequest]] = {opts: []}
    for r in requests:
        by_options.setdefault(r.eval_options(opts), []).append(r)
    groups = [(o, reqs) for o, reqs in by_options.items() if reqs]
    total = sum(len(range(0, len(g), MEASURES_PER_QUERY)) for _, g in groups) + len(groups)
    report = progress or (lambda done, total: None)
    done, rows, in_run, names, summaries = 0, [], {}, {}, []
    for group_opts, group in groups:
        ev = SparkEvaluation(spark, campaign, qrels=qrels, runs=runs)
        try:
            ev.build(relations_read([r.mdef.kernel for r in group]), group_opts,
                     _alphas(group), gain_maps(group))
            done += 1
            report(done, total)

            def step():
                nonlocal done
                done += 1
                report(done, total)
            group_rows = ev.measure_rows(group, step)
            for r in collect(run_sql(spark, "SELECT rt.run_id, rt.topic, rt.in_run, n.name "
                                            "FROM ev_run_topic rt JOIN run n "
                                            "ON n.run_id = rt.run_id")):
                in_run[(r[0], r[1])] = r[2]
                names[r[0]] = r[3]
            # -c: a run's value counts the relevant documents of this group's context
            judged_relevant = (ev.scalar("SELECT count(*) FROM ev_judgment WHERE rel > 0")
                               if group_opts.complete else None)
            summaries.append((group_rows, group, judged_relevant))
            rows += group_rows
        finally:
            ev.close()
    return _result(rows, in_run, names, requests, opts, summaries)


def _result(rows, in_run, names, requests, opts, summaries) -> EvalResult:
    order = {r.name: i for i, r in enumerate(requests)}

    def per_topic_of(rows):
        return sorted(((r[0], names[r[0]], r[1], r[2], r[3], r[4], in_run[(r[0], r[1])])
                       for r in rows), key=lambda t: (t[0], t[2], order[t[3]]))
    per_topic_rows = Rows(names=["run_id", "run", "topic", "measure", "value", "text",
                                 "in_run"],
                          types=["INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE",
                                 "VARCHAR", "BOOLEAN"], rows=per_topic_of(rows))
    run_values = [row for group_rows, group, judged in summaries
                  for row in summarise(per_topic_of(group_rows), group, judged).rows]
    run_values.sort(key=lambda s: (s[0], order[s[2]]))
    summary = Rows(names=["run_id", "run", "measure", "value"],
                   types=["INTEGER", "VARCHAR", "VARCHAR", "DOUBLE"], rows=run_values)
    return EvalResult(per_topic_rows, summary, list(requests), opts)


def summarise(per_topic: list[tuple], requests: list[MeasureRequest],
              judged_relevant: int | None) -> Rows:
    """Run values by irw_summarise (sql/schema.sql), in DuckDB: the one definition of how a
    run's value is formed from its per-topic values in topic order."""
    import duckdb
    import pyarrow as pa
    kinds = {r.name: r.mdef.summary for r in requests}
    order = {r.name: i for i, r in enumerate(requests)}
    con = duckdb.connect()
    try:
        for _, stmt in statements(read_sql("schema.sql")):
            if stmt.startswith("CREATE OR REPLACE MACRO irw_summarise("):
                con.execute(stmt)
        kept = [r for r in per_topic if kinds[r[3]] != "none"]
        s = pa.table({"run_id": pa.array([r[0] for r in kept], pa.int32()),
                      "run": [r[1] for r in kept], "topic": [r[2] for r in kept],
                      "measure": [r[3] for r in kept],
                      "summary": [kinds[r[3]] for r in kept],
                      "value": pa.array([r[4] for r in kept], pa.float64())})
        con.register("s", s)
        out = con.execute("""
            SELECT run_id, any_value(run), measure,
                   irw_summarise(any_value(summary), list(value ORDER BY topic), ?)
            FROM s GROUP BY run_id, measure""", [judged_relevant]).fetchall()
    finally:
        con.close()
    out.sort(key=lambda s: (s[0], order[s[2]]))
    return Rows(names=["run_id", "run", "measure", "value"],
                types=["INTEGER", "VARCHAR", "VARCHAR", "DOUBLE"], rows=out)
