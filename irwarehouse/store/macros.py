"""The measure catalog: the metric macros an analyst calls and the `measure_catalog` relation,
both made from the measures' SQL (sql/metrics/*.sql) and the evaluation context
(sql/context.sql).

For a measure whose macro over the evaluation context is `m_<name>(params)`, the macro an
analyst calls is

    irw_<name>(campaign, qrels := NULL, run := NULL, <params> := <defaults>,
               relevance_level := 1, judged_only := false, max_docs := NULL,
               sort_order := 'score', trec_eval_version := 9, complete := false
               [, gains := NULL for the diversity measures that read per-intent gains])

whose body defines every context relation m_<name> reads as a CTE, built by context.sql's
ev_make_<relation> from the call's parameters, then selects (run, topic, value) from
m_<name>: one definition of each measure, whichever path calls it. The text of these macros is
written here from the headers; no user input reaches it (the parameters are the call's).
"""

from __future__ import annotations

from ..errors import SqlAssetError
from ..measures.catalog import MeasureDef, ParamDef
from ..measures.portability import measure_portability
from ..sqlfiles import builder

# The evaluation options of every metric macro: (name, SQL type, default).
OPTIONS = (
    ("relevance_level", "INTEGER", "1"),
    ("judged_only", "BOOLEAN", "false"),
    ("max_docs", "BIGINT", "NULL"),
    ("sort_order", "VARCHAR", "'score'"),
    ("trec_eval_version", "INTEGER", "9"),
    ("complete", "BOOLEAN", "false"),
)
# NTCIREVAL's diversity gains (DIN-splitqrels' L1G..L9G; -g), for measures reading them.
DIVERSITY_GAINS = ("gains", "MAP(INTEGER, DOUBLE)", "NULL")
SCOPE = {"ev_scope": "campaign, qrels", "ev_runs": "run"}
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


def context_ctes(relations, types: dict[str, str], who: str) -> list[str]:
    """The CTEs that build context relations from a macro's parameters (`types`: name -> SQL
    type), each by its ev_make_<relation> builder (store/analyst_macros.py shares them)."""
    ctes = []
    for relation in relations:
        if relation in SCOPE:
            args = SCOPE[relation]
        else:
            make = builder(relation)
            missing = [a for a in make.args if a not in types]
            if missing:
                raise SqlAssetError(f"{who}: {make.name} needs {missing}, which is "
                                    "no parameter of its metric macro")
            args = ", ".join(_typed(a, types[a]) for a in make.args)
        ctes.append(f"    {relation} AS (FROM ev_make_{relation.removeprefix('ev_')}({args}))")
    return ctes


def callable_sql(mdef: MeasureDef) -> str:
    """The CREATE MACRO statement of a measure's metric macro."""
    params = callable_params(mdef)
    types = {name: sql_type for name, sql_type, _ in params}
    ctes = context_ctes(mdef.context, types, mdef.kernel)
    kernel_args = ", ".join(_typed(p.name, types[p.name]) for p in mdef.params)
    if mdef.kind == "text":
        columns = "CAST(NULL AS DOUBLE) AS value, CAST(m.value AS VARCHAR) AS text"
    else:
        columns = "CAST(m.value AS DOUBLE) AS value"
    checks = [f"ev_require({p.name} IS NOT NULL, '{mdef.macro}: give {p.name} := ... "
              f"(-m {mdef.name} alone means {p.default})')"
              for p in mdef.params if p.is_list_default]
    signature = ", ".join(["campaign"] + [f"{n} := {d}" for n, _, d in params])
    return (f"CREATE OR REPLACE MACRO {mdef.macro}({signature}) AS TABLE\n"
            + "WITH\n" + ",\n".join(ctes) + "\n"
            + f"SELECT n.name AS run, m.topic, {columns}\n"
            + f"FROM {mdef.kernel}({kernel_args}) m JOIN run n ON n.run_id = m.run_id"
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
