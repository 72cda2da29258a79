"""Session, click and user-oriented measures: the catalog read from the `-- measure:` headers of
sql/online/*.sql, names such as `sDCG@10`, `nsDCG(bq=5)@10`, `satisfied(threshold=60)`,
`E(b=0.5)@10`, evaluation by calling the macros with bound values, and storage into `score`.

What lands in `score`: one row per (system, session) for session and click measures (the session
id in the `topic` column; with level="topic" the mean over the sessions of each topic instead),
one row per (run, topic) for the measures of ranked runs (E, F, coverage, ...). `options` records
the level; a system's value is the mean of its rows, as for every measure.

Python holds no metric arithmetic: it parses names, binds parameters and moves rows (the
catalog could be folded into measure_catalog as is).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import MeasureError, WarehouseError
from ..sqlfiles import sql_dir
from ..store.lookup import campaign_qrels, several_qrels

LEVELS = ("session", "topic")
_NAME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:\((.*)\))?\s*(?:@\s*([0-9]+))?\s*$")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
# (sql type -> python converter) of a parameter value written in a measure name
_CONVERT = {"INTEGER": int, "DOUBLE": float, "VARCHAR": str,
            "BOOLEAN": lambda t: {"true": True, "false": False, "1": True, "0": False}[t.lower()]}


@dataclass(frozen=True)
class OnlineParam:
    name: str
    type: str
    default: str


@dataclass(frozen=True)
class OnlineMeasure:
    name: str
    macro: str
    family: str                 # the file stem: sessions | clicks | user
    params: tuple[OnlineParam, ...]
    aliases: tuple[str, ...]
    doc: str
    sql: str                    # the macro's statement (for the definition hash)

    @property
    def per_session(self) -> bool:
        return self.family in ("sessions", "clicks")

    @property
    def needs_qrels(self) -> bool:
        return "qrels := " in self.sql.split("AS TABLE")[0]


def _header_params(text: str) -> tuple[OnlineParam, ...]:
    out = []
    for item in filter(None, (p.strip() for p in text.split(";"))):
        m = re.match(r"^(\w+)\s+(\w+)\s*=\s*(.*)$", item)
        if not m:
            raise MeasureError(f"bad params header item {item!r}")
        out.append(OnlineParam(m.group(1), m.group(2).upper(), m.group(3).strip()))
    return tuple(out)


@lru_cache(maxsize=1)
def catalog() -> dict[str, OnlineMeasure]:
    """Every measure of sql/online/*.sql by canonical name and by alias (lower case keys)."""
    from .store import SQL_FILES
    found: dict[str, OnlineMeasure] = {}
    for name in SQL_FILES:
        text = (sql_dir() / "online" / name).read_text(encoding="utf-8")
        for block in re.split(r"\n(?=-- measure: )", text)[1:]:
            head: dict[str, str] = {}
            key = None
            for line in block.splitlines():
                m = re.match(r"^--\s*([a-z_]+):\s?(.*)$", line)
                if m:
                    key = m.group(1)
                    head[key] = m.group(2).strip()
                elif line.startswith("--") and key:
                    head[key] += " " + line[2:].strip()
                elif not line.startswith("--"):
                    break
            stmt = block[block.index("CREATE OR REPLACE MACRO"):].split(";\n")[0]
            mdef = OnlineMeasure(head["measure"], head["macro"], name[:-4],
                                 _header_params(head.get("params", "")),
                                 tuple(a.strip() for a in head.get("aliases", "").split(",")
                                       if a.strip()), head.get("doc", ""), stmt)
            for key in (mdef.name, *mdef.aliases):
                if key.lower() in found:
                    raise MeasureError(f"online measure {key!r} is defined twice")
                found[key.lower()] = mdef
    return found


@dataclass(frozen=True)
class OnlineRequest:
    mdef: OnlineMeasure
    values: tuple[tuple[str, object], ...]   # explicitly given parameters, by name

    @property
    def name(self) -> str:
        """Canonical name: Name(p=v,...)@cutoff, parameters in header order."""
        given = dict(self.values)
        inner = ",".join(f"{p.name}={_show(given[p.name])}" for p in self.mdef.params
                         if p.name in given and p.name != "cutoff")
        cut = f"@{given['cutoff']}" if "cutoff" in given else ""
        return self.mdef.name + (f"({inner})" if inner else "") + cut

    @property
    def params_text(self) -> str:
        return ",".join(f"{k}={_show(v)}" for k, v in self.values)


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return ";".join(f"{k}:{_show(v)}" for k, v in sorted(value.items()))
    return str(value)


def _gains(text: str) -> dict[int, float]:
    """`gains=1:1;2:3;3:7` (level:gain pairs separated by ; or |)."""
    out = {}
    for pair in filter(None, re.split(r"[;|]", text)):
        level, _, gain = pair.partition(":")
        try:
            out[int(level)] = float(gain)
        except ValueError:
            raise MeasureError(f"bad gains item {pair!r}; write gains=1:1;2:3") from None
    return out


def parse(spec: str) -> OnlineRequest:
    """`Name`, `Name@k`, `Name(p=v,...)`, `Name(p=v)@k` -> a request (MeasureError if unknown
    or badly written)."""
    m = _NAME.match(spec)
    mdef = catalog().get(m.group(1).lower()) if m else None
    if mdef is None:
        raise MeasureError(f"unknown online measure {spec!r} (irw online measures lists them)")
    params = {p.name: p for p in mdef.params}
    values: dict[str, object] = {}
    if m.group(2):
        for item in filter(None, (i.strip() for i in m.group(2).split(","))):
            key, eq, text = item.partition("=")
            key = key.strip()
            if not eq or key not in params or key == "cutoff":
                raise MeasureError(f"{spec!r}: {mdef.name} has no parameter {key!r} "
                                   f"(parameters: {', '.join(params)})")
            try:
                values[key] = (_gains(text) if params[key].type == "MAP"
                               else _CONVERT[params[key].type](text.strip()))
            except (KeyError, ValueError):
                raise MeasureError(f"{spec!r}: bad value {text!r} for {key}") from None
    if m.group(3):
        if "cutoff" not in params:
            raise MeasureError(f"{spec!r}: {mdef.name} takes no @cutoff")
        values["cutoff"] = int(m.group(3))
    elif "cutoff" in params and params["cutoff"].default != "NULL":
        values["cutoff"] = int(params["cutoff"].default)
    ordered = tuple((p.name, values[p.name]) for p in mdef.params if p.name in values)
    return OnlineRequest(mdef, ordered)


def _call(req: OnlineRequest, campaign: str, run: str | None, qrels: str | None):
    """SQL text and bound values of one macro call: the macro and parameter names come from
    the catalog (validated identifiers), every value is bound."""
    args = ["campaign := $campaign", "run := $run"]
    binds: dict[str, object] = {"campaign": campaign, "run": run}
    if req.mdef.needs_qrels:
        args.append("qrels := $qrels")
        binds["qrels"] = qrels
    for key, value in req.values:
        if not _IDENT.match(key):
            raise MeasureError(f"bad parameter name {key!r}")
        if isinstance(value, dict):
            args.append(f"{key} := MAP(${key}_k::INTEGER[], ${key}_v::DOUBLE[])")
            binds[f"{key}_k"], binds[f"{key}_v"] = list(value), list(value.values())
        else:
            args.append(f"{key} := ${key}")
            binds[key] = value
    if not _IDENT.match(req.mdef.macro):
        raise MeasureError(f"bad macro name {req.mdef.macro!r}")
    return f"SELECT run, topic, value FROM {req.mdef.macro}({', '.join(args)})", binds


def evaluate(con, campaign: str, specs: list[str], *, run: str | None = None,
             qrels: str | None = None, level: str = "session"):
    """Per-topic rows (measure, run, topic, value) of each measure, and warnings. level =
    "topic" averages a session measure over the sessions of each topic."""
    import duckdb

    from .store import install_macros
    if level not in LEVELS:
        raise MeasureError(f"level must be one of {', '.join(LEVELS)}")
    if not specs:
        raise MeasureError("give at least one measure (-m)")
    install_macros(con)
    requests = [parse(s) for s in specs]
    rows, warnings = [], []
    for req in requests:
        sql, binds = _call(req, campaign, run, qrels)
        if req.mdef.per_session and level == "topic":
            sql = ("SELECT m.run, s.topic, avg(m.value) AS value FROM (" + sql + ") m "
                   "JOIN (SELECT DISTINCT run_id, session, topic FROM session_row) s "
                   "ON s.session = m.topic JOIN run r ON r.run_id = s.run_id AND r.name = m.run "
                   "GROUP BY m.run, s.topic")
        try:
            got = con.execute(sql + " ORDER BY 1, 2", binds).fetchall()
        except duckdb.InvalidInputException as exc:
            raise WarehouseError(str(exc).split("Error: ", 1)[-1]) from None
        if not got:
            warnings.append(f"{req.name}: no values (nothing to evaluate in campaign "
                            f"{campaign!r})")
        rows += [(req.name, r, t, v) for r, t, v in got]
        if req.mdef.per_session and req.mdef.needs_qrels:
            skipped = _unjudged_sessions(con, campaign, run, qrels)
            if skipped:
                warnings.append(f"{req.name}: {skipped} sessions have a topic without "
                                "judgments and were not evaluated")
    return requests, rows, warnings


def _unjudged_sessions(con, campaign, run, qrels) -> int:
    return con.execute("""
        SELECT count(DISTINCT (s.run_id, s.session)) FROM session_row s
        JOIN irw_session_logs(campaign := $campaign, run := $run) l USING (run_id)
        WHERE s.topic NOT IN (SELECT j.topic FROM judgment j
                              JOIN irw_qrels_of(campaign := $campaign, qrels := $qrels) q
                              USING (qrels_id))""",
                       {"campaign": campaign, "run": run, "qrels": qrels}).fetchone()[0]


def store_qrels_id(con, campaign: str, qrels: str | None, *, create: bool) -> int:
    """The qrels a stored score is filed under: the one named or the campaign's only one; a
    campaign without qrels (a pure click log) gets an empty judgment set `clicks`, so that the
    analyst views, which join scores to their qrels, show click measures too."""
    rows = campaign_qrels(con, campaign, qrels)
    if len(rows) == 1:
        return rows[0][0]
    if rows:
        raise several_qrels(campaign, rows)
    if qrels is not None:
        raise WarehouseError(f"no qrels {qrels!r} in campaign {campaign!r}")
    if not create:
        raise WarehouseError(f"campaign {campaign!r} has no qrels")
    cid = con.execute("SELECT campaign_id FROM campaign WHERE name = ?", [campaign]).fetchone()
    if cid is None:
        raise WarehouseError(f"no campaign {campaign!r}")
    from ..store import digests
    qid = con.execute("""INSERT INTO qrels (campaign_id, name, format, num_rows)
                         VALUES (?, 'clicks', 'none', 0) RETURNING qrels_id""",
                      [cid[0]]).fetchone()[0]
    digests.touch(con, "qrels", "qrels_id = ?", [qid])
    return qid


def definition_hash(req: OnlineRequest) -> str:
    return hashlib.sha256((req.mdef.sql + "\n" + req.params_text).encode()).hexdigest()[:16]


def store(con, campaign: str, requests, rows, *, qrels: str | None, level: str) -> int:
    """Replace the stored values of these measures for the runs evaluated (every level, so that
    one measure never holds two levels) and insert the new rows. Returns the rows written."""
    from ..store import digests
    from ..store.ingest import transaction
    by_name = {r.name: r for r in requests}
    with transaction(con):
        qid = store_qrels_id(con, campaign, qrels, create=True)
        runs = dict(con.execute("""SELECT r.name, r.run_id FROM run r JOIN campaign c
                                   USING (campaign_id) WHERE c.name = ?""",
                                [campaign]).fetchall())
        done = set()
        for measure, run, _, _ in rows:
            if (measure, run) not in done:
                digests.delete(con, "score", "qrels_id = ? AND run_id = ? AND measure = ?",
                               [qid, runs[run], measure])
                done.add((measure, run))
        values = []
        for measure, run, topic, value in rows:
            req = by_name[measure]
            option = f"level={level if req.mdef.per_session else 'topic'}"
            values.append((runs[run], qid, topic, measure, f"online_{req.mdef.family}",
                           req.params_text, option, value, definition_hash(req)))
        con.executemany("""
            INSERT INTO score (run_id, qrels_id, topic, measure, family, params, options, value,
                               definition_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""", values)
        digests.touch(con, "score", "qrels_id = ?", [qid])
    return len(values)


def is_online(measure: str) -> bool:
    try:
        parse(measure)
    except MeasureError:
        return False
    return True
