"""Evaluation: build the context relations for some runs and one qrels, run the metric macros,
collect per-topic values and summaries. Every value is computed by the SQL in sql/metrics."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb

from ..errors import MeasureError
from ..measures import MeasureRequest
from ..options import EvalOptions
from ..sqlfiles import builder, context_relations, context_section, relations_read
from ..store.connection import configuration_locked, install_macros, need_macros
from . import diversity, relevant_rows

if TYPE_CHECKING:
    import pyarrow as pa

# Below this many judged documents per topic on average, rank judged documents by counting (no
# full sort of the run); above it, one window sort is cheaper. Measured on the 7M-line bench run
# (bench/bench_eval.py) with 5, 12 and 25 judged documents per topic: counting 1.2, 1.7, 2.8 CPU
# seconds vs window 3.0, 2.8, 3.5; the crossover is near 30.
COUNTING_PLAN_MAX_JUDGED_PER_LIST = 30
# Macro calls per statement (the loop in _evaluate): all_trec's 18 calls in statements of 6
# took ~4 ms less CPU than of 4 (in-process, alternated; bench/README.md, target 2), and
# NTCIREVAL's 52 calls (WWW-4 KASYS) no more.
MACROS_PER_STATEMENT = 6
# Runs evaluated in one context: a larger campaign is evaluated this many runs at a time, so
# that its peak memory stays that of RUNS_PER_CONTEXT runs (the context relations hold every
# judged document of the runs evaluated together). Measured on bench/bench_campaign.py's runs
# (50 topics x 1,000 documents, ~500 judged per list): no slower per run than one context.
RUNS_PER_CONTEXT = 100


# Arrow types of the DuckDB column types in evaluation results
_ARROW_TYPES = {"INTEGER": "int32", "BIGINT": "int64", "VARCHAR": "string", "DOUBLE": "float64",
                "BOOLEAN": "bool_"}


class Rows:
    """A query result held as Python rows, made a pyarrow Table only when used as one: the CLI
    prints from the rows, so an evaluation never imports pyarrow (and numpy with it), 0.12 s of
    every start. Reads like the Table it stands for (to_pylist, to_pydict, ["column"], ...)."""

    def __init__(self, relation: duckdb.DuckDBPyRelation | None = None, *,
                 names: list[str] = (), types: list[str] = (), rows: list[tuple] = ()):
        """From a DuckDB relation, or from `names`, DuckDB `types` and `rows`."""
        if relation is not None:
            names, types, rows = (list(relation.columns), [str(t) for t in relation.types],
                                  relation.fetchall())
        self.names, self.types, self.rows = list(names), list(types), list(rows)
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
    # what the checks of meaningless results read (irwarehouse.engine.checks): each evaluated
    # run's (run_id, name, number of its topics that the qrels judge), and whether the qrels
    # have subtopics (intents) at all
    coverage: list[tuple[int, str, int]] = field(default_factory=list)
    qrels_has_intents: bool = True
    # the campaign, qrels and options a stored campaign was evaluated with (request.Scope);
    # None for files
    scope: object = None
    # session, click and text measures evaluated beside the ranked ones (request.domains):
    # their names, in the order asked; and warnings of their evaluation
    extra_measures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """Jupyter: each run's values (the `all` rows), a column per measure."""
        from ..notebook import pivot, table
        rows = pivot(self.summary.to_pylist(), "run", "measure", "value")
        where = getattr(self.scope, "describe", lambda: None)()
        return table(rows, caption=f"evaluated with {where}" if where else None)

    def with_arrow(self) -> EvalResult:
        """per_topic and summary as pyarrow Tables (the Python API's promise)."""
        for name in ("per_topic", "summary"):
            value = getattr(self, name)
            if isinstance(value, Rows):
                setattr(self, name, value.to_arrow())
        return self


def _option_values(opts: EvalOptions) -> dict:
    """The context builders' parameters (sql/context.sql) for these options: name -> value
    (the gains a dict: see placeholder)."""
    return opts.sql_values()


def placeholder(value, name: str | None = None) -> tuple[str, list | dict]:
    """A parameter's SQL placeholder and its bound values: `?` (or `$name`) and the value; a
    dict (gains, level -> gain) as MAP(INTEGER, DOUBLE) built in SQL from its two lists, in the
    order given. Not a MAP bound from Python: executing a statement with a duckdb.Value MAP
    imports numpy (0.07 s of every all_trec evaluation); the two lists cost 1-3 ms. The order
    matters: trec_eval's gain table (G, ndcg_rel, Rndcg) lists the level=gain parameters first,
    in that order, and the order decides ties between gains less than 1 apart
    (sql/metrics/gain.sql)."""
    if isinstance(value, dict):
        levels = list(value)
        gains = [value[k] for k in levels]
        if name is None:
            return "map(?::INTEGER[], ?::DOUBLE[])", [levels, gains]
        return (f"map(${name}_levels::INTEGER[], ${name}_gains::DOUBLE[])",
                {f"{name}_levels": levels, f"{name}_gains": gains})
    if name is None:
        return "?", [value]
    return f"${name}", {name: value}


def _materialise(con: duckdb.DuckDBPyConnection, relation: str, macro: str, args: list,
                 values: dict) -> None:
    """CREATE TEMP TABLE <relation> AS FROM <macro>(<bound args>); names are the project's."""
    texts, bound = [], {}
    for a in args:
        text, value = placeholder(values[a], a)
        texts.append(text)
        bound.update(value)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {relation} AS FROM {macro}({', '.join(texts)})",
                bound)


def build_context(con: duckdb.DuckDBPyConnection, run_ids: list[int], qrels_id: int,
                  opts: EvalOptions, relations=None, alphas=(), *,
                  file_order: bool = False, kept=(), kernels=(), gain_maps=()) -> str:
    """Materialise the context relations (sql/context.sql) the measures read, as TEMP tables,
    each once for every measure: `relations` (default: ev_ranked, ev_run_topic and what they
    need), the greedy ideal lists for `alphas`, trec_eval's ideal rankings for the gain tables
    `gain_maps` (dicts, level -> gain; ev_gain_ideal). `file_order`: run_row is a view over staged
    files scanned in their order (engine.files), ranked by the 'file' plan. `kept`: relations
    that stand from the previous batch of the same qrels and options (RUN_FREE: they do not
    depend on the runs). `kernels`: the measures' macros; when relevant_rows.usable says so,
    ev_ranked and ev_relevant are views of the stored relevant rows instead. Returns the
    ranking plan used ('stored', 'window', 'counting' or 'file')."""
    relations = set(relations or relations_read(["ev_make_run_topic"])) | {
        "ev_scope", "ev_runs", "ev_judgment", "ev_topic", "ev_full_ranked", "ev_ranked",
        "ev_run_topic"}
    values = _option_values(opts)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_scope AS SELECT campaign_id, qrels_id "
                "FROM qrels WHERE qrels_id = ?", [qrels_id])
    con.execute("CREATE OR REPLACE TEMP TABLE ev_runs AS SELECT unnest($ids::INTEGER[]) AS run_id",
                {"ids": list(run_ids)})
    plan = None
    relevant_rows.restore(con)
    fast = False
    # the file plan ranks only the relevant documents when the measures read no others
    # (relevant_rows.fits), into ev_ranked itself
    relevant_only = file_order and relevant_rows.fits(opts, kernels)
    for relation in context_relations():
        if relation not in relations or relation in kept \
                or relation in ("ev_scope", "ev_runs", "ev_sorted", "ev_file_marks"):
            continue
        if relation == "ev_full_ranked":
            plan = _rank(con, opts, values, file_order,
                         relevant_only)
            fast = relevant_rows.usable(con, opts, kernels, plan, qrels_id)
            if fast:
                relevant_rows.build(con, opts, qrels_id)
        elif fast and relation in relevant_rows.VIEWS:
            continue
        elif relation == "ev_ranked" and plan == "file" and relevant_only:
            continue                # built by _rank (ev_relevant from it, as for any plan)
        elif relation == "ev_ranked" and plan == "stored" and not opts.judged_only:
            _materialise(con, "ev_ranked", "ev_make_ranked_stored",
                         ["relevance_level", "max_docs"], values)
        elif relation == "ev_gain_ideal":
            for i, gains in enumerate(gain_maps or ({},)):
                text, bound = placeholder(gains, "gains")
                con.execute(("CREATE OR REPLACE TEMP TABLE ev_gain_ideal AS " if i == 0 else
                             "INSERT INTO ev_gain_ideal ") + f"FROM ev_make_gain_ideal({text})",
                            bound)
        elif relation == "ev_div_ideal":
            con.execute("CREATE OR REPLACE TEMP TABLE ev_div_ideal AS FROM ev_make_div_ideal(1.0) "
                        "LIMIT 0")
            for alpha in alphas:
                con.execute("INSERT INTO ev_div_ideal FROM ev_make_div_ideal(?)", [float(alpha)])
        else:
            make = builder(relation)
            _materialise(con, relation, make.name, list(make.args), values)
    return plan


# The macros of each ranking plan (sql/context.sql), created when it is chosen on a private
# warehouse that creates its macros as they are needed (store.connection.need_macros)
PLAN_MACROS = {"file": ["ev_make_file_marks", "ev_file_list_lengths", "ev_make_full_ranked_file"],
               "stored": ["ev_make_full_ranked_stored", "ev_make_ranked_stored"],
               "window": ["ev_make_sorted", "ev_make_full_ranked_sorted"],
               "counting": ["ev_make_full_ranked_counting"]}


def _rank(con: duckdb.DuckDBPyConnection, opts: EvalOptions, values: dict,
          file_order: bool = False, relevant_only: bool = False) -> str:
    """ev_full_ranked by the cheapest plan (choose_plan); densely judged files staged in their
    order (`file_order`) by their positions instead of a sort (sql/context.sql, plan: file
    order; _rank_files). Sparsely judged ones keep the counting plan: on bench_eval.py's large
    run (5 judged documents a topic, a quarter of the scores tied) it needs 2.2 s CPU for 3M
    lines where the file order needs 3.3, as most of its marks are ties."""
    plan = choose_plan(con, opts)
    if file_order and plan == "window":
        plan = "file"
    need_macros(con, PLAN_MACROS[plan])
    args = {**values, "float32_scores": opts.version < 10}
    if plan == "file":
        _rank_files(con, args, relevant_only)
        return plan
    if plan == "stored" and not opts.judged_only:
        # ev_ranked is built from the stored ranks directly (build_context); an empty
        # ev_full_ranked, so that nothing reads an earlier evaluation's
        con.execute("CREATE OR REPLACE TEMP TABLE ev_full_ranked AS "
                    "FROM ev_make_full_ranked_stored(NULL) LIMIT 0")
    elif plan == "stored":
        _materialise(con, "ev_full_ranked", "ev_make_full_ranked_stored", ["max_docs"], args)
    elif plan == "window":
        _materialise(con, "ev_sorted", "ev_make_sorted", ["sort_order", "float32_scores"], args)
        _materialise(con, "ev_full_ranked", "ev_make_full_ranked_sorted", ["max_docs"], args)
        con.execute("DROP TABLE ev_sorted")
    else:
        _materialise(con, "ev_full_ranked", "ev_make_full_ranked_counting",
                     ["sort_order", "float32_scores", "max_docs"], args)
    return plan


def _rank_files(con: duckdb.DuckDBPyConnection, args: dict, relevant_only: bool) -> None:
    """The file plan (sql/context.sql, plan: file order): the marks of the files' order, the
    list lengths they give stored as run_list (the lengths ev_run_topic reads for stored runs,
    instead of counting every row again; runs of an earlier group of options have theirs),
    then ev_full_ranked. When the measures read only the relevant documents (`relevant_only`,
    relevant_rows.fits), only those are ranked, straight into ev_ranked (ev_relevant is then
    ev_make_relevant's over it, as for every plan), ev_full_ranked left empty as the stored
    plan leaves it."""
    _materialise(con, "ev_file_marks", "ev_make_file_marks", ["sort_order", "float32_scores"],
                 args)
    from ..store import digests
    from ..store.ingest import transaction
    with transaction(con):
        con.execute("INSERT INTO run_list SELECT run_id, topic, n FROM ev_file_list_lengths() "
                    "WHERE run_id NOT IN (SELECT run_id FROM run_list)")
        digests.touch(con, "run_list")
    if not relevant_only:
        _materialise(con, "ev_full_ranked", "ev_make_full_ranked_file",
                     ["sort_order", "float32_scores", "max_docs", "min_rel"],
                     {**args, "min_rel": None})
        return
    ranked = ("FROM ev_make_full_ranked_file($sort_order, $float32_scores, $max_docs, "
              "$relevance_level)")
    bound = {k: args[k] for k in ("sort_order", "float32_scores", "max_docs", "relevance_level")}
    con.execute("CREATE OR REPLACE TEMP TABLE ev_ranked AS SELECT run_id, topic, "
                f"full_rank AS rank, rel, rel >= $relevance_level AS is_rel {ranked}", bound)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_full_ranked (run_id INTEGER, topic VARCHAR, "
                "full_rank BIGINT, rel INTEGER)")


def choose_plan(con: duckdb.DuckDBPyConnection, opts: EvalOptions | None = None) -> str:
    """'stored' when every run's judged documents are stored for the qrels (judged_row: runs
    ingested into a warehouse) and trec_eval 9's score order is asked for; otherwise
    'counting' when few documents per topic are judged relative to the list lengths, else
    'window' (one sort)."""
    opts = opts or EvalOptions()
    if opts.order == "score" and opts.version < 10:
        missing = con.execute("""
            SELECT count(*) FROM ev_runs
            WHERE run_id NOT IN (SELECT run_id FROM ev_stored_runs())""").fetchone()[0]
        if not missing:
            return "stored"
    judged, lists = con.execute(
        "SELECT (SELECT count(*) FROM ev_judgment), "
        "(SELECT count(*) FROM ev_topic)").fetchone()
    per_topic = judged / lists if lists else 0
    return "counting" if per_topic <= COUNTING_PLAN_MAX_JUDGED_PER_LIST else "window"


# The context relations that do not depend on the evaluated runs: built once for all batches
# of one group of options (100 files in 5 batches: 0.05 s CPU less).
RUN_FREE = ("ev_options", "ev_judgment", "ev_sample", "ev_topic", "ev_gain_ideal")


def batchable(requests: list[MeasureRequest], opts: EvalOptions) -> bool:
    """Whether runs may be evaluated a batch at a time (run_batches): one group of options
    and no diversity measure."""
    return len({r.eval_options(opts) for r in requests}) == 1 and \
        not diversity.needed(requests)


def run_batches(run_ids: list[int], batchable: bool) -> list[list[int]]:
    """The runs evaluated together, RUNS_PER_CONTEXT at a time when `batchable` (one group of
    options, no diversity measure: their gcompute blocks and run topics come from one
    context); the values of a run do not depend on the runs evaluated beside it."""
    run_ids = list(run_ids)
    if not batchable or len(run_ids) <= RUNS_PER_CONTEXT:
        return [run_ids]
    return [run_ids[i:i + RUNS_PER_CONTEXT] for i in range(0, len(run_ids), RUNS_PER_CONTEXT)]


# Parameter types whose values a lateral call reads from a list (cutoffs, recall levels)
_LATERAL_TYPES = ("INTEGER", "DOUBLE")


def macro_calls(requests: list[MeasureRequest]) -> list[list[MeasureRequest]]:
    """The requests as macro calls, in the order first asked: the requests of one kernel whose
    parameters are all numbers (P at trec_eval's nine cutoffs, iprec_at_recall at eleven
    levels) make one call, the kernel evaluated LATERAL over the list of their arguments, so
    that DuckDB plans it once rather than once per cutoff (all_trec: 69 of its 94 measures in 8
    calls; P at 9 cutoffs 4 ms instead of 19, bench/README.md); the requests of measures that
    share a table macro (`shares:`, sql/metrics) with the same arguments make one call of it,
    when there are several (all_trec's nine count and set measures: one plan instead of nine),
    and those whose arguments are numbers one call LATERAL over their arguments (P, recall,
    relative_P and success at their cutoffs: one plan instead of four); every other request
    is a call of its own."""
    calls: dict = {}
    for r in requests:
        numeric = r.args and all(p.type in _LATERAL_TYPES for p in r.mdef.params)
        if r.mdef.shares:
            key = ("shares", r.mdef.shares) if numeric else \
                ("shares", r.mdef.shares, repr(r.args))
        else:
            key = (r.mdef.kernel, r.mdef.kind) if numeric else (id(r),)
        calls.setdefault(key, []).append(r)
    return list(calls.values())


def shared_call(call: list[MeasureRequest]) -> bool:
    """Whether a call (macro_calls) is one of a shared table macro for several measures."""
    return len(call) > 1 and bool(call[0].mdef.shares) and \
        len({r.mdef.shares for r in call}) == 1


def called_macros(calls: list[list[MeasureRequest]]) -> list[str]:
    """The macros the calls call: a shared table macro for several of its measures, otherwise
    each request's kernel (the measures' own macros are then not created: engine files)."""
    names: list[str] = []
    for call in calls:
        names += [call[0].mdef.shares] if shared_call(call) else [r.mdef.kernel for r in call]
    return list(dict.fromkeys(names))


def _macro_query(calls: list[list[MeasureRequest]]) -> tuple[str, list]:
    """One UNION ALL over the macro calls (macro_calls); names come from the registry (the
    project's SQL files), every parameter is a bound value (placeholder)."""
    parts, values = [], []
    for call in calls:
        req = call[0]
        if req.mdef.kind == "text":
            columns = "CAST(NULL AS DOUBLE) AS value, CAST(m.value AS VARCHAR) AS text"
        else:
            columns = "CAST(m.value AS DOUBLE) AS value, CAST(NULL AS VARCHAR) AS text"
        if shared_call(call) and len({repr(r.args) for r in call}) > 1:
            parts.append(_shared_lateral(call, values))
            continue
        if shared_call(call):
            # one row per measure of each list: the measures' columns as one list, unnested
            # beside their names (the columns are the measures' canonical names, identifiers)
            texts, bound = [], []
            for a in req.args:
                text, value = placeholder(a)
                texts.append(text)
                bound.extend(value)
            columns = ", ".join(f'CAST(m."{r.mdef.name}" AS DOUBLE)' for r in call)
            parts.append(f"SELECT m.run_id, m.topic, unnest(?::VARCHAR[]) AS measure, "
                         f"unnest([{columns}]) AS value, CAST(NULL AS VARCHAR) AS text "
                         f"FROM {req.mdef.shares}({', '.join(texts)}) m")
            values += [[r.name for r in call], *bound]
            continue
        if len(call) == 1:
            texts, bound = [], []
            for a in req.args:
                text, value = placeholder(a)
                texts.append(text)
                bound.extend(value)
            parts.append(f"SELECT m.run_id, m.topic, ? AS measure, {columns} "
                         f"FROM {req.mdef.kernel}({', '.join(texts)}) m")
            values += [req.name, *bound]
            continue
        types = [p.type for p in req.mdef.params]
        lists = "".join(f", unnest(?::{t}[]) AS a{i}" for i, t in enumerate(types))
        args = ", ".join(f"a.a{i}" for i in range(len(types)))
        parts.append(f"SELECT m.run_id, m.topic, a.measure, {columns} "
                     f"FROM (SELECT unnest(?::VARCHAR[]) AS measure{lists}) a, "
                     f"LATERAL {req.mdef.kernel}({args}) m")
        values += [[r.name for r in call], *([r.args[i] for r in call]
                                              for i in range(len(types)))]
    return "\nUNION ALL\n".join(parts), values


def _shared_lateral(call: list[MeasureRequest], values: list) -> str:
    """A shared table macro's call (shared_call) LATERAL over the distinct arguments of its
    requests, numbers (P at nine cutoffs, success at three): one row per argument tuple with,
    for each measure of the call, its request's name there (NULL when that measure is not
    asked at those arguments); each list's row then unnested into one row per named measure.
    Appends the bound values to `values`; returns the SQL."""
    req = call[0]
    measures = list(dict.fromkeys(r.mdef.name for r in call))
    args = list(dict.fromkeys(tuple(r.args) for r in call))
    named = {(r.mdef.name, tuple(r.args)): r.name for r in call}
    types = [p.type for p in req.mdef.params]
    lists = ", ".join([f"unnest(?::VARCHAR[]) AS n{j}" for j in range(len(measures))] +
                      [f"unnest(?::{t}[]) AS a{i}" for i, t in enumerate(types)])
    names = ", ".join(f"a.n{j}" for j in range(len(measures)))
    columns = ", ".join(f'CAST(m."{name}" AS DOUBLE)' for name in measures)
    values += [[named.get((name, a)) for a in args] for name in measures]
    values += [[a[i] for a in args] for i in range(len(types))]
    called = ", ".join(f"a.a{i}" for i in range(len(types)))
    return (f"SELECT * FROM (SELECT m.run_id, m.topic, unnest([{names}]) AS measure, "
            f"unnest([{columns}]) AS value, CAST(NULL AS VARCHAR) AS text "
            f"FROM (SELECT {lists}) a, LATERAL {req.mdef.shares}({called}) m) "
            f"WHERE measure IS NOT NULL")


def gain_maps(requests: list[MeasureRequest]) -> list[dict]:
    """The gain tables (level -> gain, in the order given) of the requested measures that read
    trec_eval's ideal rankings (ev_gain_ideal), each once."""
    maps: dict = {}
    for r in requests:
        if "ev_gain_ideal" in r.mdef.context:
            for p, a in zip(r.mdef.params, r.args):
                if p.name == "gains":
                    maps.setdefault(tuple((a or {}).items()), dict(a or {}))
    return list(maps.values())


def _alphas(requests: list[MeasureRequest]) -> list[float]:
    """The novelty discounts of the requested measures that read ndeval's ideal lists."""
    return sorted({float(a) for r in requests if "ev_div_ideal" in r.mdef.context
                   for p, a in zip(r.mdef.params, r.args) if p.name == "alpha"})


# DuckDB optimizers the evaluation's statements run without (join_filters_off)
_OFF_OPTIMIZERS = ("join_filter_pushdown",)


@contextmanager
def join_filters_off(con: duckdb.DuckDBPyConnection):
    """The evaluation's statements without DuckDB's join filter pushdown, the user's setting
    back afterwards. The pushdown turns every hash join into a filter on its probe side, set up
    at a fixed cost of ~0.7 ms a join whatever the rows (a 100 x 100-row join of ev_run_topic
    and ev_topic: 1.2 ms with it, 0.5 without, DuckDB 2.0.1), and the metric macros are mostly
    small joins of the context relations: all_trec's scores 0.21 -> 0.15 s CPU on one TREC run
    (bench/README.md, target 2). It only drops probe rows that have no match, so every value is
    the same. A connection whose settings are locked (`irw serve`'s) keeps its own."""
    if configuration_locked(con):
        yield
        return
    before = con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0]
    names = [n.strip() for n in before.split(",") if n.strip()]
    con.execute("SET disabled_optimizers = ?",
                [",".join(names + [n for n in _OFF_OPTIMIZERS if n not in names])])
    try:
        yield
    finally:
        con.execute("SET disabled_optimizers = ?", [before])


def evaluate(con: duckdb.DuckDBPyConnection, run_ids: list[int], qrels_id: int,
             requests: list[MeasureRequest], opts: EvalOptions = EvalOptions(),
             progress=None, gcompute: bool = False, *, batches: list[list[int]] | None = None,
             prepare=None, file_order: bool = False) -> EvalResult:
    """Evaluate `requests` for the runs `run_ids` against `qrels_id` (_evaluate), with the
    optimizers of join_filters_off off.
    """
    with join_filters_off(con):
        return _evaluate(con, run_ids, qrels_id, requests, opts, progress, gcompute,
                         batches=batches, prepare=prepare, file_order=file_order)


def _evaluate(con: duckdb.DuckDBPyConnection, run_ids: list[int], qrels_id: int,
              requests: list[MeasureRequest], opts: EvalOptions,
              progress=None, gcompute: bool = False, *, batches: list[list[int]] | None = None,
              prepare=None, file_order: bool = False) -> EvalResult:
    """`progress(done, total)`, when given, is called after the ranking and after each batch
    of measures (the CLI draws a bar on a terminal). `gcompute`: also fetch NTCIREVAL's
    gcompute blocks of the requested D/DIN/IA measures (the .Dnev/.DINnev/.nevIA layouts).
    `batches`: the runs evaluated together, in order (default run_batches); `prepare(i)` is
    called before batch i is evaluated (engine.files stages that batch's files then);
    `file_order`: see build_context."""
    if not requests:
        raise MeasureError("no measures requested")
    # Requests with options of their own (M' on the condensed list, ir_measures' rel= and
    # judged_only=) run after the others, each group on the context its options build.
    by_options: dict[EvalOptions, list[MeasureRequest]] = {opts: []}
    for r in requests:
        by_options.setdefault(r.eval_options(opts), []).append(r)
    groups = [(o, reqs, macro_calls(reqs)) for o, reqs in by_options.items() if reqs]
    kernels = [r.mdef.kernel for r in requests]
    # the macros created: a shared table macro stands for its measures' own (macro_calls)
    called = [m for _, _, calls in groups for m in called_macros(calls)]
    has_diversity = diversity.needed(requests)
    blocks = gcompute and has_diversity
    if blocks:
        kernels.append("ev_ntd_gcompute")
        called.append("ev_ntd_gcompute")
    if batches is None:
        batches = run_batches(run_ids, len(groups) == 1 and not has_diversity)
    total = len(batches) * (sum(len(range(0, len(calls), MACROS_PER_STATEMENT))
                                for _, _, calls in groups) + len(groups))
    report = progress or (lambda done, total: None)
    install_macros(con, called)
    con.execute("CREATE OR REPLACE TEMP TABLE ev_scores (run_id INTEGER, topic VARCHAR, "
                "measure VARCHAR, value DOUBLE, text VARCHAR)")
    con.execute("CREATE OR REPLACE TEMP TABLE ev_measures (measure VARCHAR, summary VARCHAR, "
                "ord INTEGER)")
    # one statement from three lists (executemany runs one statement a row: all_trec's 94
    # rows 8 ms instead of 3)
    con.execute("INSERT INTO ev_measures SELECT unnest($m), unnest($s), unnest($o)",
                {"m": [r.name for r in requests], "s": [r.mdef.summary for r in requests],
                 "o": list(range(len(requests)))})
    con.execute("CREATE OR REPLACE TEMP TABLE ev_summary (run_id INTEGER, measure VARCHAR, "
                "value DOUBLE)")
    con.execute("CREATE OR REPLACE TEMP TABLE ev_run_topics (run_id INTEGER, topic VARCHAR, "
                "in_run BOOLEAN)")
    # one DuckDB thread while a small evaluation reads stored relevant rows
    with relevant_rows.one_thread(con, groups[0][0] if len(groups) == 1 else None, kernels,
                                  qrels_id, run_ids):
        done = 0
        gcompute_rows = None
        for i, batch in enumerate(batches):
            if prepare is not None:
                prepare(i)
            for group_opts, group, group_calls in groups:
                group_blocks = blocks and diversity.needed(group)
                names = [r.mdef.kernel for r in group] + (["ev_ntd_gcompute"] if group_blocks
                                                          else [])
                build_context(con, batch, qrels_id, group_opts, relations_read(names),
                              _alphas(group), file_order=file_order,
                              kept=RUN_FREE if i and len(groups) == 1 else (), kernels=names,
                              gain_maps=gain_maps(group))
                done += 1
                report(done, total)
                # A few macros per statement: planning one UNION ALL of many macros grows faster
                # than linearly (52 NTCIREVAL macros: seconds in one statement, a fraction in
                # small batches).
                for j in range(0, len(group_calls), MACROS_PER_STATEMENT):
                    query, values = _macro_query(group_calls[j:j + MACROS_PER_STATEMENT])
                    con.execute(f"INSERT INTO ev_scores {query}", values)
                    done += 1
                    report(done, total)
                # the run values and gcompute blocks of this group, while its context stands
                con.execute(context_section("summary"), {"complete": group_opts.complete,
                                                         "measures": [r.name for r in group]})
                if group_blocks and gcompute_rows is None:
                    gcompute_rows = diversity.gcompute_blocks(con, group)
            # the evaluated lists of the last group's context (whether each was in the run)
            con.execute("INSERT INTO ev_run_topics SELECT run_id, topic, in_run FROM ev_run_topic")
    relevant_rows.restore(con)      # TEMP tables again where views of relevant_row stood
    if len(batches) > 1:
        # ev_runs: every evaluated run again (store_scores replaces the values of these)
        con.execute("CREATE OR REPLACE TEMP TABLE ev_runs AS "
                    "SELECT unnest($ids::INTEGER[]) AS run_id", {"ids": list(run_ids)})
    per_topic = Rows(con.sql("""
        SELECT s.run_id, r.name AS run, s.topic, s.measure, s.value, s.text, rt.in_run
        FROM ev_scores s
        JOIN run r ON r.run_id = s.run_id
        JOIN ev_run_topics rt ON rt.run_id = s.run_id AND rt.topic = s.topic
        JOIN ev_measures m ON m.measure = s.measure
        ORDER BY s.run_id, s.topic, m.ord"""))
    summary = Rows(con.sql("""
        SELECT s.run_id, r.name AS run, s.measure, s.value
        FROM ev_summary s JOIN run r ON r.run_id = s.run_id
        JOIN ev_measures m ON m.measure = s.measure
        ORDER BY s.run_id, m.ord"""))
    run_topics = con.sql("""
        SELECT DISTINCT r.run_id, n.name AS run, r.topic
        FROM run_row r JOIN run n ON n.run_id = r.run_id
        WHERE r.run_id IN (SELECT run_id FROM ev_runs)""").to_arrow_table() \
        if has_diversity else None
    # every batch's lists (ev_run_topics), not the last batch's context (ev_run_topic): a run of
    # an earlier batch is not "without a topic in common with the qrels"
    coverage = con.execute("""
        SELECT e.run_id, r.name, count(DISTINCT rt.topic) FILTER (WHERE rt.in_run)
        FROM (SELECT DISTINCT run_id FROM ev_runs) e JOIN run r ON r.run_id = e.run_id
        LEFT JOIN ev_run_topics rt ON rt.run_id = e.run_id
        GROUP BY e.run_id, r.name ORDER BY e.run_id""").fetchall()
    intents = con.execute("SELECT count(*) > 0 FROM (SELECT 1 FROM judgment WHERE qrels_id = ? "
                          "AND intent <> '' LIMIT 1)", [qrels_id]).fetchall()[0][0] \
        if has_diversity else True
    return EvalResult(per_topic, summary, list(requests), opts, gcompute=gcompute_rows,
                      run_topics=run_topics, coverage=coverage, qrels_has_intents=intents)
