"""Finds the project's SQL files and reads their comment headers.

The SQL DuckDB runs is the file text; this module only splits files into statements and reads
the `-- key: value` header above each metric macro (the registry's metadata).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SqlAssetError

_MACRO_RE = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(\w+)\s*\(([^)]*)\)", re.I)
_HEADER_RE = re.compile(r"^--\s*([a-z_]+):\s?(.*)$")


def sql_dir() -> Path:
    """The folder of SQL files: $IRW_SQL_DIR, the copy inside an installed wheel, or the
    repository's `sql/` beside the package (editable installs and checkouts)."""
    candidates = []
    if os.environ.get("IRW_SQL_DIR"):
        candidates.append(Path(os.environ["IRW_SQL_DIR"]))
    here = Path(__file__).resolve().parent
    candidates += [here / "_sql", here.parent / "sql"]
    for folder in candidates:
        if (folder / "schema.sql").is_file():
            return folder
    raise SqlAssetError(f"cannot find the SQL files (looked in {', '.join(map(str, candidates))})")


def read_sql(name: str) -> str:
    return (sql_dir() / name).read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """Split a file into its `-- name: X` sections, in file order."""
    out: dict[str, str] = {}
    current = None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^--\s*name:\s*(\w+)\s*$", line)
        if m:
            current = m.group(1)
            out[current] = ""
        elif current:
            out[current] += line
    return out


@dataclass(frozen=True)
class ParamDef:
    name: str
    type: str                      # INTEGER, DOUBLE, DOUBLE[], MAP
    default: str                   # as written in the header

    @property
    def is_list_default(self) -> bool:
        """INTEGER/DOUBLE params with a comma list default mean 'one measure per value'
        (trec_eval's default cutoffs)."""
        return self.type in ("INTEGER", "DOUBLE") and "," in self.default


@dataclass(frozen=True)
class MeasureDef:
    name: str                      # canonical (trec_eval) name, e.g. P, ndcg_cut, 11pt_avg
    macro: str                     # the DuckDB macro to call
    family: str                    # the SQL file it lives in
    params: tuple[ParamDef, ...] = ()
    summary: str = "mean"          # mean | sum | gmean
    per_topic: bool = True         # printed per topic by trec_eval -q
    integer: bool = False          # printed as an integer
    since: int = 9                 # trec_eval major version that has it in all_trec
    kind: str = "number"           # number | text (relstring)
    doc: str = ""
    macro_args: tuple[str, ...] = field(default=())
    ntcir: str = ""                # NTCIREVAL's printed name (`Q-measure`, `Q@k`), if any
    syntax: str = ""               # "named": written `Name(param=value,...)[@cutoff]`
    needs: str = ""                # an extra context relation: "listed" (ev_listed) or
                                   # "div_listed" (ev_div_listed), built only when asked for
    positive: tuple[str, ...] = () # parameters that must be > 0 (named syntax)


def _parse_header(lines: list[str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    key = None
    for line in lines:
        m = _HEADER_RE.match(line)
        if m:
            key = m.group(1)
            meta[key] = m.group(2).strip()
        elif key and line.startswith("--"):
            meta[key] += " " + line[2:].strip()
    return meta


def _parse_params(spec: str) -> tuple[ParamDef, ...]:
    """`name TYPE = default`, several separated by `;` (`cutoff INTEGER = 5,10; alpha DOUBLE =
    0.5`)."""
    if not spec:
        return ()
    out = []
    for part in spec.split(";"):
        m = re.match(r"^(\w+)\s+([A-Z\[\]]+)\s*=\s*(.*)$", part.strip())
        if not m:
            raise SqlAssetError(f"bad params header: {spec!r}")
        out.append(ParamDef(m.group(1), m.group(2), m.group(3).strip()))
    return tuple(out)


def measure_defs_in(path: Path) -> list[MeasureDef]:
    """The metric macros of one file, each described by the comment block just above it."""
    defs = []
    block: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("--"):
            block.append(line)
            continue
        m = _MACRO_RE.match(line)
        meta = _parse_header(block) if m else {}
        block = []
        if "measure" not in meta:
            continue
        macro = meta.get("macro", meta["measure"])
        if macro != m.group(1):
            raise SqlAssetError(f"{path.name}: header names macro {macro!r} "
                                f"but the macro below is {m.group(1)!r}")
        params = _parse_params(meta.get("params", ""))
        args = tuple(a.strip() for a in m.group(2).split(",") if a.strip())
        if tuple(p.name for p in params) != args:
            raise SqlAssetError(f"{path.name}: {macro} header params "
                                f"{[p.name for p in params]} != macro args {list(args)}")
        defs.append(MeasureDef(
            name=meta["measure"], macro=macro, family=path.stem, params=params,
            summary=meta.get("summary", "mean"),
            per_topic=meta.get("per_topic", "true") == "true",
            integer=meta.get("integer", "false") == "true",
            since=int(meta.get("since", "9")), doc=meta.get("doc", ""),
            kind=meta.get("kind", "number"),
            macro_args=args, ntcir=meta.get("ntcir", ""), syntax=meta.get("syntax", ""),
            needs=meta.get("needs", ""),
            positive=tuple(x.strip() for x in meta.get("positive", "").split(",") if x.strip())))
    return defs


def metric_files() -> list[Path]:
    """Every metric family file, building blocks (`_*.sql`) first."""
    files = sorted((sql_dir() / "metrics").glob("*.sql"))
    return sorted(files, key=lambda p: (not p.name.startswith("_"), p.name))


def family_closure(families) -> list[Path]:
    """The metric files of `families` (file stems) and, transitively, of every file whose macros
    they call, building blocks first; `_base` always (the evaluation context's sort macros)."""
    files = {p.stem: p for p in metric_files()}
    defined = {name: stem for stem, p in files.items()
               for name, _ in _MACRO_RE.findall(p.read_text(encoding="utf-8"))}
    call = re.compile(r"\b(\w+)\s*\(")
    wanted, todo = set(), ["_base", *families]
    while todo:
        stem = todo.pop()
        if stem in wanted or stem not in files:
            continue
        wanted.add(stem)
        text = files[stem].read_text(encoding="utf-8")
        todo += [defined[n] for n in call.findall(text) if defined.get(n, stem) != stem]
    return [p for p in metric_files() if p.stem in wanted]
