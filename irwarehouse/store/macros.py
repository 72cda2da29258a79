"""The measure catalog: the metric macros an analyst calls and the `measure_catalog` relation,
both made from the measures' SQL (sql/metrics/*.sql) and the evaluation context
(sql/context.sql).

For a measure whose macro over the evaluation context is `m_<name>(params)`, the macro an
analyst calls is

    irw_<name>(campaign, qrels := NULL, run := NULL, <params> := <defaults>,
               relevance_level := NULL, judged_only := NULL, max_docs := NULL,
               sort_order := NULL, trec_eval_version := NULL, complete := NULL
               [, gains := NULL for the diversity measures that read per-intent gains])

An evaluation option not given takes the campaign's profile value (`irw campaign set`), else
its default (irwarehouse.options declares both); an explicit argument wins. So does the
qrels (the profile's, else the campaign's only one) and a measure's `gains` (the profile's -g).

The body first reads every argument in a CTE without a FROM clause (ev_args), so that an
argument taken from the caller's row (`FROM campaign c, irw_map(c.name)`, a column in a join or
a subquery) is read in the caller's scope, never captured by a table of the macro's own body;
then resolves the options against the profile (ev_call); then defines every context relation
m_<name> reads as a CTE, built by context.sql's ev_make_<relation> from those values; then
selects (run, topic, value) from m_<name>: one definition of each measure, whichever path calls
it. The text of these macros is written here from the headers and the option declaration; no
user input reaches it (the parameters are the call's).
"""

from __future__ import annotations

from ..errors import SqlAssetError
from ..measures.catalog import MeasureDef, ParamDef
from ..measures.portability import measure_portability
from ..options import SQL_OPTIONS
from ..sqlfiles import builder
from .relevant import FAST_KERNELS

# The evaluation options of every metric macro: (name, SQL type, default); NULL: the profile's
# value, else the option's default (resolved in the macro's ev_call).
_OPTION_ORDER = ("relevance_level", "judged_only", "max_docs", "sort_order", "trec_eval_version",
                 "complete")
OPTIONS = tuple((o.sql, o.sql_type, "NULL") for name in _OPTION_ORDER
                for o in SQL_OPTIONS if o.sql == name)
# the options a macro resolves against the campaign's profile (gains apart: _resolved_names)
OPTION_NAMES = frozenset(name for name, _, _ in OPTIONS)
# NTCIREVAL's diversity gains (DIN-splitqrels' L1G..L9G; -g), for measures reading them.
DIVERSITY_GAINS = ("gains", "MAP(INTEGER, DOUBLE)", "NULL")
_SQL_TYPES = {"INTEGER": "INTEGER", "DOUBLE": "DOUBLE", "DOUBLE[]": "DOUBLE[]",
              "MAP": "MAP(INTEGER, DOUBLE)"}


def _default(p: ParamDef) -> str:
    """The SQL default of a measure parameter in its metric macro: NULL for a family whose
    trec_eval default is a list of values (P's cutoffs; the macro then asks for one)."""
    if p.is_list_default:
        return "NULL"
    if p.type == "MAP":
        pairs = [x.split(":") for x in p.default.strip("{} ").split(",") if x.strip()]
        if not pairs:
            return "NULL"
        return "MAP {" + ", ".join(f"{int(k)}: {float(v)!r}" for k, v in pairs) + "}"
    if p.type == "DOUBLE[]":
        return f"CAST({p.default} AS DOUBLE[])"
    return p.default


def _literal(value) -> str:
    """An option's default (irwarehouse.options.OPTIONS) as an SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _typed(name: str, sql_type: str) -> str:
    return f"CAST({name} AS {sql_type})"


def callable_params(mdef: MeasureDef) -> list[tuple[str, str, str]]:
    """(name, SQL type, default) of the metric macro's named parameters, after `campaign`."""
    params = [("qrels", "VARCHAR", "NULL"), ("run", "VARCHAR", "NULL")]
    params += [(p.name, _SQL_TYPES[p.type], _default(p)) for p in mdef.params]
    params += OPTIONS
    own = {p.name for p in mdef.params}
    if "ev_div_judgment" in mdef.context and "gains" not in own:
        params.append(DIVERSITY_GAINS)
    return params


def _resolved_names(mdef: MeasureDef) -> set[str]:
    """The parameters a metric macro resolves against the campaign's profile: the evaluation
    options, and a `gains` table where `irw eval` gives it the request's -g (the diversity
    measures' per-intent gains; NTCIREVAL's labelled measures, whose gains the grammar binds
    from -g: measures.resolve._bind_ntcir). Any other parameter is the measure's own, as
    given."""
    names = set(OPTION_NAMES)
    own = {p.name for p in mdef.params}
    if "gains" not in own and "ev_div_judgment" in mdef.context:
        names.add("gains")
    elif "gains" in own and mdef.dialect == "ntcireval" and mdef.ntcir:
        names.add("gains")
    return names


def _resolved(params: list[tuple[str, str, str]], resolved: set[str]) -> str:
    """The body of the ev_call CTE: the call's arguments resolved against the campaign's
    profile. An option: the argument, else the profile's value, else the option's default; the
    qrels: the argument, else the profile's; a `gains` table (when -g gives it): the argument,
    else the profile's -g, else gain = level."""
    options = {o.sql: o for o in SQL_OPTIONS}
    columns = ["a.call_campaign AS campaign_name",
               "coalesce(a.call_qrels, pq.name) AS qrels_name",
               "a.call_run AS run_name"]
    for name, sql_type, _ in params[2:]:
        if name not in resolved:
            continue
        if name == "gains":
            value = "coalesce(a.call_gains, p.gain_map)"
        else:
            option = options[name]
            value = f"coalesce(a.call_{name}, p.{option.profile}, {_literal(option.default)})"
        columns.append(f"{_typed(value, sql_type)} AS value_{name}")
    return ("\n        SELECT " + ",\n               ".join(columns) + "\n"
            "        FROM ev_args a\n"
            "        LEFT JOIN campaign pc ON pc.name = a.call_campaign\n"
            "        LEFT JOIN campaign_profile p ON p.campaign_id = pc.campaign_id\n"
            "        LEFT JOIN qrels pq ON pq.qrels_id = p.qrels_id")


def argument(name: str, sql_type: str, resolved: set[str]) -> str:
    """An argument of a context builder or kernel: an option (or a gains table -g gives) as
    resolved in ev_call (a scalar subquery); a measure's own parameter as given, typed (a
    subquery cannot reach the lambdas of the ndeval measures, and a measure parameter has no
    profile default)."""
    if name in resolved:
        return f"(SELECT ev_call.value_{name} FROM ev_call)"
    return _typed(name, sql_type)


def context_ctes(relations, params: list[tuple[str, str, str]], resolved: set[str],
                 who: str) -> list[str]:
    """The CTEs of a macro an analyst calls (a metric macro; store/analyst_macros.py's curves
    share them): its arguments read once (ev_args), resolved against the campaign's profile
    (ev_call), then every context relation `relations` names, built by its ev_make_<relation>
    builder from those values. `params`: the macro's (name, SQL type, default) after
    `campaign`; `resolved`: the ones the profile may give (the options)."""
    return [_cte(name, body) for name, body in _context(relations, params, resolved, who)]


# the CTEs materialised whatever their number of readers (see _stored_rows)
_MATERIALIZED = frozenset({"ev_slow_judgment"})


def _cte(name: str, body: str) -> str:
    return f"    {name} AS {'MATERIALIZED ' if name in _MATERIALIZED else ''}({body})"


def _context(relations, params: list[tuple[str, str, str]], resolved: set[str],
             who: str) -> list[tuple[str, str]]:
    """context_ctes as (name, body) pairs, in order."""
    types = {name: sql_type for name, sql_type, _ in params}
    args = ", ".join(["campaign AS call_campaign", "qrels AS call_qrels", "run AS call_run"]
                     + [f"{n} AS call_{n}" for n, _, _ in params if n in resolved])
    ctes = [("ev_args", f"SELECT {args}"), ("ev_call", _checked(_resolved(params, resolved),
                                                                types, resolved))]
    scope = {"ev_scope": "(SELECT ev_call.campaign_name FROM ev_call), "
                         "(SELECT ev_call.qrels_name FROM ev_call)",
             "ev_runs": "(SELECT ev_call.run_name FROM ev_call)"}
    for relation in relations:
        if relation in scope:
            call = scope[relation]
        else:
            make = builder(relation)
            missing = [a for a in make.args if a not in types]
            if missing:
                raise SqlAssetError(f"{who}: {make.name} needs {missing}, which is "
                                    "no parameter of its metric macro")
            call = ", ".join(argument(a, types[a], resolved) for a in make.args)
        ctes.append((relation, f"FROM ev_make_{relation.removeprefix('ev_')}({call})"))
    return ctes


# The kernels that read nothing of a ranking but its relevant documents (their ranks, levels
# and running count), which relevant_row stores per (qrels, run) pair at ingestion
# (engine/relevant_rows.py lists why each qualifies).
RELEVANT_ROW_KERNELS = FAST_KERNELS
# what those kernels' context must be for the stored rows to stand in for it (ev_lists reads
# ev_run_topic and ev_topic only)
_RELEVANT_ROW_CONTEXT = frozenset({"ev_scope", "ev_runs", "ev_judgment", "ev_topic",
                                   "ev_full_ranked", "ev_ranked", "ev_relevant", "ev_run_topic",
                                   "ev_lists"})


_RANKING_OPTIONS = ("sort_order", "trec_eval_version", "max_docs")


def _checked(call: str, types: dict, resolved: set[str]) -> str:
    """ev_call's body with the ranking options checked (ev_check_ranking) on its one row, so
    that an invalid option fails every call. Checked only where the rows are ranked, the check
    never ran when the option itself left no row to check (max_docs := -1 gave every list 0)."""
    if not all(name in types and name in resolved for name in _RANKING_OPTIONS):
        return call
    values = ", ".join(f"c.value_{name}" for name in _RANKING_OPTIONS)
    return f"SELECT * FROM ({call}) c WHERE ev_check_ranking({values})"


def _of_call(expression: str) -> str:
    """A value of the resolved call (ev_call's one row) as a scalar subquery."""
    return f"(SELECT {expression} FROM ev_call)"


def _stored_rows(ctes: list[tuple[str, str]], resolved: set[str],
                 types: dict) -> list[tuple[str, str]]:
    """A RELEVANT_ROW_KERNELS macro's context (name, body pairs) made to read relevant_row for
    the runs whose rows apply (ev_relevant_runs: every run stored for the qrels when the
    resolved options are -l 1, no -J, trec_eval 9's score order), and to rank the others
    (ev_slow_runs) as before.

    - ev_call has checked the ranking options (_checked), so the stored rows take them as
      they are, and so does the others' ranking (ev_full_ranked_plans; each derived option
      one scalar subquery).
    - ev_full_ranked, the copy of judged_row's rows, is built for the other runs only (a nested
      ev_runs names them, and ev_judgment is empty when there are none), so over a stored
      campaign nothing of judged_row is read; ev_ranked stays the others' ranking for the
      builders after it (ev_relevant reads relevant_row for the stored runs itself; ev_run_topic
      reads ev_ranked only under -J, when no run's rows apply), and the kernel sees
      ev_ranked_all: the stored runs' relevant rows, then the others' (callable_sql).

    The options are resolved when the query runs, so the choice is made per run then: an empty
    side costs a join with an empty build side (no scan)."""
    def option(name: str) -> str:
        return argument(name, types[name], resolved)

    value = {name: f"ev_call.value_{name}" for name in
             ("sort_order", "trec_eval_version", "max_docs")}
    out = []
    for name, body in ctes:
        if name == "ev_full_ranked":
            options = ", ".join(option(a) for a in ("relevance_level", "judged_only",
                                                    "sort_order", "trec_eval_version"))
            out.append(("ev_stored_rows_runs", f"FROM ev_relevant_runs({options})"))
            out.append(("ev_slow_runs", ("SELECT run_id FROM ev_runs WHERE run_id NOT IN "
                                         "(SELECT run_id FROM ev_stored_rows_runs)")))
            # the judgments the window plan joins with the runs it ranks: none when every
            # run's rows are stored (a hash table of every judgment otherwise, built for an
            # empty probe: 0.01 s of each call over bench's campaign)
            out.append(("ev_slow_judgment",
                        "SELECT * FROM ev_judgment WHERE EXISTS (SELECT 1 FROM ev_slow_runs)"))
            version = f"{value['sort_order']}, {value['trec_eval_version']}"
            plans = ", ".join([
                option("sort_order"),
                _of_call(f"ev_float32_scores({value['trec_eval_version']})"),
                option("max_docs"),
                _of_call(f"ev_stored_order({version})")])
            body = ("WITH ev_runs AS (FROM ev_slow_runs), ev_judgment AS (FROM ev_slow_judgment) "
                    f"FROM ev_full_ranked_plans({plans})")
        out.append((name, body))
    out.append(("ev_ranked_all", f"""
        SELECT r.run_id, r.topic, r.score_rank AS rank, r.rel, true AS is_rel
        FROM relevant_row r
        WHERE r.qrels_id = (SELECT qrels_id FROM ev_scope)
          AND r.run_id IN (SELECT run_id FROM ev_stored_rows_runs)
          AND ev_within(r.score_rank, {option("max_docs")})
        UNION ALL
        FROM ev_ranked"""))
    return out


def callable_sql(mdef: MeasureDef, stored_rows: bool = True) -> str:
    """The CREATE MACRO statement of a measure's metric macro. `stored_rows`: a kernel of
    RELEVANT_ROW_KERNELS reads relevant_row where it applies (_stored_rows); False for the
    portable inlining (spark/inline.py: the Spark export carries no relevant_row)."""
    params = callable_params(mdef)
    types = {name: sql_type for name, sql_type, _ in params}
    resolved = _resolved_names(mdef)
    ctes = _context(mdef.context, params, resolved, mdef.kernel)
    stored_rows = (stored_rows and mdef.kernel in RELEVANT_ROW_KERNELS
                   and {"ev_full_ranked", "ev_ranked"} <= set(mdef.context)
                   and set(mdef.context) <= _RELEVANT_ROW_CONTEXT)
    if stored_rows:
        ctes = _stored_rows(ctes, resolved, types)
    kernel_args = ", ".join(argument(p.name, types[p.name], resolved) for p in mdef.params)
    if mdef.kind == "text":
        columns = "CAST(NULL AS DOUBLE) AS value, CAST(m.value AS VARCHAR) AS text"
    else:
        columns = "CAST(m.value AS DOUBLE) AS value"
    checks = [f"ev_require({p.name} IS NOT NULL, '{mdef.macro}: give {p.name} := ... "
              f"(-m {mdef.name} alone means {p.default})')"
              for p in mdef.params if p.is_list_default]
    signature = ", ".join(["campaign"] + [f"{n} := {d}" for n, _, d in params])
    return (f"CREATE OR REPLACE MACRO {mdef.macro}({signature}) AS TABLE\n"
            + "WITH\n" + ",\n".join(_cte(name, body) for name, body in ctes) + "\n"
            + f"SELECT n.name AS run, m.topic, {columns}\n"
            + (f"FROM (WITH ev_ranked AS (FROM ev_ranked_all) FROM {mdef.kernel}({kernel_args}))"
               if stored_rows else f"FROM {mdef.kernel}({kernel_args})")
            + " m JOIN run n ON n.run_id = m.run_id"
            + (f"\nWHERE {' AND '.join(checks)}" if checks else "") + ";\n")


# the columns of a measure_catalog row (named: a warehouse that gained columns by ALTER TABLE
# may hold them in another order)
CATALOG_COLUMNS = ("measure", "macro", "parameters", "summary", "kind", "per_topic", "doc",
                   "source", "sql_file", "kernel", "context", "domain", "portable",
                   "portable_reason")


def catalog_rows(defs: list[MeasureDef]) -> list[tuple]:
    """The rows of the `measure_catalog` table (sql/schema.sql), in CATALOG_COLUMNS's order."""
    rows = []
    for mdef in defs:
        params = [{"name": n, "type": t, "default": d}
                  for n, t, d in [("campaign", "VARCHAR", "(required)"),
                                  *callable_params(mdef)]]
        rows.append((mdef.name, mdef.macro, params, mdef.summary, mdef.kind, mdef.per_topic,
                     mdef.doc, mdef.source, mdef.family, mdef.kernel, list(mdef.context),
                     "ranked", *measure_portability(mdef)))
    return rows


# measure_catalog.portable_reason of the online and text measures (issue 18)
DOMAIN_NOT_PORTABLE = ("an online or text measure: its macro reads the warehouse's session, "
                       "click or text tables, and irw eval --engine spark evaluates ranked "
                       "measures over the evaluation context")


def domain_catalog_rows() -> list[tuple]:
    """measure_catalog rows of the online and text measures (sql/online, sql/texts): their
    macros read the warehouse's tables themselves (no evaluation context), so the macro is its
    own kernel; parameters as the macro declares them, typed by the header where it says."""
    from ..sqlfiles import domain_files, macros_in
    rows = []
    for domain, path in domain_files():
        for mac in macros_in(path):
            head = mac.header
            if "measure" not in head:
                continue
            typed = {}
            for part in filter(None, (x.strip() for x in head.get("params", "").split(";"))):
                name, _, rest = part.partition(" ")
                sql_type, _, default = rest.partition("=")
                typed[name.strip()] = (sql_type.strip(), default.strip() or None)
            params = []
            for arg in mac.args:
                name, _, default = (x.strip() for x in arg.partition(":="))
                # campaign, run, qrels: names (VARCHAR), as for the ranked measures
                sql_type, header_default = typed.get(name, ("VARCHAR", None))
                params.append({"name": name, "type": sql_type or None,
                               "default": header_default or default or "(required)"})
            rows.append((head["measure"], mac.name, params, head.get("summary", "mean"),
                         "number", True, head.get("doc", ""), head.get("source", ""),
                         f"{domain}/{path.stem}", mac.name, [], domain,
                         False, DOMAIN_NOT_PORTABLE))
    return rows
