"""What a measure is: read from the comment headers of sql/metrics/*.sql, the one place a
measure is described (the SQL macro m_<name> below the header computes it). The registry,
the names every dialect gives a measure, its sets and its print order all come from here;
nothing about a measure is written in Python. The same rows become the warehouse's
measure_catalog (irwarehouse.store.macros).

A header (`--` lines directly above `CREATE OR REPLACE MACRO m_<name>(params)`):

    -- measure: Q                         the canonical name (unique)
    -- dialect: ntcireval                 whose name it is: trec_eval, ndeval, ntcireval, irw
    -- ntcir: Q-measure = 105; Q@k = 301  NTCIREVAL's printed labels and print positions
    -- aliases: ir_measures AP; ir_measures AP@k     other tools' names (@k: with a cutoff);
                                          `Name(key=value)`: see Alias
    -- sets: all_trec, official           named sets it belongs to
    -- order: 5                           trec_eval's print position
    -- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = NULL
    -- summary: mean                      how a run value is formed (irw_summarise)
    -- per_topic / integer / since / kind / positive
    -- shares: ev_set_values              the measure is the column <name> of that table macro
                                          (called with the measure's parameters), which computes
                                          several measures in one plan: m_<name> reads its
                                          column; an evaluation asking for several calls it once
    -- doc: the definition, with its formula
    -- source: the paper and the tool function (default: the file's own `-- source:` line)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import SqlAssetError
from ..sqlfiles import macros_in, metric_files, parse_header, relations_read, sql_dir

SUMMARIES = ("mean", "gmean", "sum", "num_rel", "none")
DIALECTS = ("trec_eval", "ndeval", "irw", "ir_measures", "ranx", "sakai2014", "ntcireval")


@dataclass(frozen=True)
class ParamDef:
    name: str
    type: str                      # INTEGER, DOUBLE, DOUBLE[], MAP
    default: str                   # as written in the header; NULL = none (the whole list)

    @property
    def is_list_default(self) -> bool:
        """INTEGER/DOUBLE params with a comma list default mean 'one measure per value'
        (trec_eval's default cutoffs)."""
        return self.type in ("INTEGER", "DOUBLE") and "," in self.default


@dataclass(frozen=True)
class Alias:
    """Another tool's name for a measure. `presets` (`ir_measures RBP(graded=1)`) give the
    alias's own defaults for the measure's parameters (the tool's defaults); `key=*` requires
    the name to carry that key (`nDCG(gains=*)@k`: nDCG with gains is ndcg_cut_gains;
    `NumRet(rel=*)`: NumRet with rel= is num_rel_ret); a key that is not a parameter, with a
    value, selects this measure when the name carries it with that value (`nDCG(dcg=exp-log2)`
    is ndcg_burges; the key is then consumed)."""
    dialect: str
    name: str
    cutoff: bool | None            # True: only with @k; None: with or without, as the measure
    presets: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class MeasureDef:
    name: str                      # canonical name (measure_catalog.measure)
    kernel: str                    # the macro over the evaluation context: m_<...>
    family: str                    # the SQL file it lives in
    params: tuple[ParamDef, ...] = ()
    dialect: str = "irw"
    summary: str = "mean"          # SUMMARIES
    per_topic: bool = True         # printed per topic by trec_eval -q
    integer: bool = False          # printed as an integer
    since: int = 9                 # trec_eval major version that has it in all_trec
    kind: str = "number"           # number | text (relstring)
    doc: str = ""
    source: str = ""
    aliases: tuple[Alias, ...] = ()
    sets: tuple[str, ...] = ()
    order: int | None = None       # trec_eval's print position
    ntcir: tuple[tuple[str, int], ...] = ()   # NTCIREVAL labels and positions (`Q@k`, 301)
    positive: tuple[str, ...] = () # parameters that must be > 0
    context: tuple[str, ...] = field(default=())   # context relations read
    shares: str = ""               # the table macro whose column <name> this measure is

    @property
    def macro(self) -> str:
        """The metric macro an analyst calls: irw_<...>(campaign, ...)."""
        return "irw_" + self.kernel.removeprefix("m_")

    @property
    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    @property
    def is_diversity(self) -> bool:
        return self.family.startswith("diversity")

    def ntcir_label(self, cutoff: bool) -> tuple[str, int] | None:
        """NTCIREVAL's printed label (with `@k` when `cutoff`) and its position, if any."""
        return next(((label, pos) for label, pos in self.ntcir
                     if label.endswith("@k") == cutoff), None)


def _params(spec: str, where: str) -> tuple[ParamDef, ...]:
    """`name TYPE = default`, several separated by `;` (`cutoff INTEGER = 5,10; alpha DOUBLE =
    0.5`)."""
    if not spec:
        return ()
    out = []
    for part in spec.split(";"):
        m = re.match(r"^(\w+)\s+([A-Z\[\]]+)\s*=\s*(.*)$", part.strip())
        if not m:
            raise SqlAssetError(f"{where}: bad params header: {spec!r}")
        out.append(ParamDef(m.group(1), m.group(2), m.group(3).strip()))
    return tuple(out)


_ALIAS_RE = re.compile(r"^([^\s(@]+)(?:\(([^)]*)\))?(@k)?$")


def _aliases(spec: str, where: str) -> tuple[Alias, ...]:
    out = []
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        dialect, _, name = part.partition(" ")
        m = _ALIAS_RE.match(name.strip())
        if dialect not in DIALECTS or not m:
            raise SqlAssetError(f"{where}: bad alias {part!r} (dialect name[(key=value)][@k])")
        presets = []
        for pair in filter(None, (x.strip() for x in (m.group(2) or "").split(","))):
            key, sep, value = pair.partition("=")
            if not sep:
                raise SqlAssetError(f"{where}: bad alias preset {pair!r} (key=value)")
            presets.append((key.strip(), value.strip()))
        # `name@k`: this name with a cutoff only; `name`: as the measure itself takes it, except
        # NTCIREVAL's, whose labels are written one way or the other (Q-measure, Q@k)
        plain = False if dialect == "ntcireval" else None
        out.append(Alias(dialect, m.group(1), True if m.group(3) else plain, tuple(presets)))
    return tuple(out)


def _ntcir(spec: str, where: str) -> tuple[tuple[str, int], ...]:
    out = []
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        label, sep, pos = part.rpartition("=")
        if not sep or not pos.strip().isdigit():
            raise SqlAssetError(f"{where}: bad ntcir header {part!r} (label = position)")
        out.append((label.strip(), int(pos)))
    return tuple(out)


def _file_header(path: Path) -> dict[str, str]:
    """The `-- key:` lines at the top of a file: the defaults of its measures (source)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        lines.append(line)
    return parse_header(lines)


def measure_defs_in(path: Path) -> list[MeasureDef]:
    """The measures of one file: the macros whose comment block has a `-- measure:` line."""
    defs = []
    defaults = _file_header(path)
    for mac in macros_in(path):
        meta = mac.header
        if "measure" not in meta:
            continue
        where = f"{path.name}: {mac.name}"
        if not mac.name.startswith("m_"):
            raise SqlAssetError(f"{where}: a measure's macro is named m_<name>")
        params = _params(meta.get("params", ""), where)
        if tuple(p.name for p in params) != mac.args:
            raise SqlAssetError(f"{where}: header params {[p.name for p in params]} "
                                f"!= macro args {list(mac.args)}")
        shares = meta.get("shares", "")
        if shares and (not re.fullmatch(r"\w+", meta["measure"]) or shares not in mac.calls):
            raise SqlAssetError(f"{where}: a measure that shares {shares} is one of its "
                                f"columns: its name an identifier, its macro reading {shares}")
        summary = meta.get("summary", "mean")
        if summary not in SUMMARIES:
            raise SqlAssetError(f"{where}: summary must be one of {', '.join(SUMMARIES)}")
        dialect = meta.get("dialect", defaults.get("dialect", "irw"))
        if dialect not in DIALECTS:
            raise SqlAssetError(f"{where}: dialect must be one of {', '.join(DIALECTS)}")
        defs.append(MeasureDef(
            name=meta["measure"], kernel=mac.name, family=path.stem, params=params,
            dialect=dialect, summary=summary,
            per_topic=meta.get("per_topic", "true") == "true",
            integer=meta.get("integer", "false") == "true",
            since=int(meta.get("since", "9")), kind=meta.get("kind", "number"),
            doc=meta.get("doc", ""), source=meta.get("source", defaults.get("source", "")),
            aliases=_aliases(meta.get("aliases", ""), where),
            sets=tuple(s.strip() for s in meta.get("sets", "").split(",") if s.strip()),
            order=int(meta["order"]) if "order" in meta else None,
            ntcir=_ntcir(meta.get("ntcir", ""), where),
            positive=tuple(x.strip() for x in meta.get("positive", "").split(",") if x.strip()),
            context=tuple(relations_read([mac.name])), shares=shares))
    return defs


@lru_cache(maxsize=1)
def registry() -> dict[str, MeasureDef]:
    """Every measure defined in sql/metrics, by canonical name; a name defined twice is an
    error. Read once for every process while the SQL files stay the same (parsecache; a
    measure's context relations come from sql/context.sql too)."""
    from ..parsecache import cached
    files = [sql_dir() / "context.sql", *metric_files()]
    return cached("measures", sql_dir(), files, _registry)


def _registry() -> dict[str, MeasureDef]:
    out: dict[str, MeasureDef] = {}
    for path in metric_files():
        for mdef in measure_defs_in(path):
            if mdef.name in out:
                raise SqlAssetError(f"measure {mdef.name!r} defined in both "
                                    f"{out[mdef.name].family}.sql and {path.name}")
            out[mdef.name] = mdef
    return out


@dataclass(frozen=True)
class Spelling:
    """One name a dialect gives a measure: `cutoff` when it is written with @k; `presets` as
    the alias gives them (Alias)."""
    mdef: MeasureDef
    cutoff: bool | None            # None: the canonical name, with or without @k
    presets: tuple[tuple[str, str], ...] = ()

    @property
    def selectors(self) -> dict[str, str]:
        """Presets that are not parameters: the name must carry them with that value
        (dcg=exp-log2)."""
        params = set(self.mdef.param_names)
        return {k: v for k, v in self.presets if k not in params and v != "*"}

    @property
    def required(self) -> set[str]:
        """Keys the name must carry, whatever the value (`gains=*`, `rel=*`)."""
        return {k for k, v in self.presets if v == "*"}

    @property
    def defaults(self) -> dict[str, str]:
        """The alias's own defaults of parameters (the other tool's defaults)."""
        return {k: v for k, v in self.presets if v != "*" and k in self.mdef.param_names}


@lru_cache(maxsize=1)
def names() -> dict[tuple[str, str], list[Spelling]]:
    """(dialect, name) -> the measures that name means in that dialect: canonical names in
    the measure's own dialect, NTCIREVAL's labels, and the aliases of the headers."""
    out: dict[tuple[str, str], list[Spelling]] = {}
    for mdef in registry().values():
        out.setdefault((mdef.dialect, mdef.name), []).append(Spelling(mdef, None))
        for label, _ in mdef.ntcir:
            out.setdefault(("ntcireval", label.removesuffix("@k")), []).append(
                Spelling(mdef, label.endswith("@k")))
        for alias in mdef.aliases:
            out.setdefault((alias.dialect, alias.name), []).append(
                Spelling(mdef, alias.cutoff, alias.presets))
    for spellings in out.values():
        # the most specific first: selectors and required parameters (nDCG(dcg=exp-log2)@k
        # before nDCG@k), then the exact form (AP@k, map_cut, before AP, map)
        spellings.sort(key=lambda s: (-len(s.selectors) - len(s.required), s.cutoff is None))
    return out


def in_set(name: str) -> list[MeasureDef]:
    """The measures of a named set (`all_trec`, `official`, `ntcireval`, ...), in print
    order."""
    return sorted((m for m in registry().values() if name in m.sets),
                  key=lambda m: (m.order if m.order is not None else 999,
                                 min((p for _, p in m.ntcir), default=0)))


def set_names() -> set[str]:
    return {s for m in registry().values() for s in m.sets}
