"""Finds the project's SQL files and reads them: their statements, the `-- key: value` header
above each macro (read as a measure's description by irwarehouse.measures.catalog), and which
macros and context relations each macro reads.

The SQL DuckDB runs is the file text; this module only splits it and reads its comments.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from .errors import SqlAssetError

_MACRO_RE = re.compile(r"^CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE | re.MULTILINE)
HEADER_RE = re.compile(r"^--\s*([a-z_]+):\s?(.*)$")
_CALL_RE = re.compile(r"\b(\w+)\s*\(")
_WORD_RE = re.compile(r"\bev_[a-z_]+\b")
_SHAPE_RE = re.compile(r"CREATE\s+TEMP\s+TABLE\s+IF\s+NOT\s+EXISTS\s+(ev_\w+)", re.IGNORECASE)

def sql_dir() -> Path:
    """The folder of SQL files: $IRW_SQL_DIR, the copy inside an installed wheel, or the
    repository's `sql/` beside the package (editable installs and checkouts)."""
    candidates = []
    if os.environ.get("IRW_SQL_DIR"):
        candidates.append(Path(os.environ["IRW_SQL_DIR"]))
    package = Path(__file__).resolve().parent
    candidates += [package / "_sql", package.parent / "sql"]
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


@cache
def context_section(name: str) -> str:
    """One `-- name:` section of sql/context.sql (shapes, macros, summary), read once."""
    return sections(read_sql("context.sql"))[name]


# The macros of the other evaluation domains, persistent in every warehouse beside the metric
# macros and listed in measure_catalog too: their files in the order they are created.
DOMAIN_FILES = {"online": ("sessions.sql", "clicks.sql", "user.sql"),
                "texts": ("rouge.sql", "nuggets.sql", "iunits.sql", "bleu.sql",
                          "pyramid.sql")}


def domain_files() -> list[tuple[str, Path]]:
    """(domain, path) of every file of sql/online and sql/texts, in creation order."""
    return [(domain, sql_dir() / domain / name) for domain, names in DOMAIN_FILES.items()
            for name in names]


def metric_files() -> list[Path]:
    """Every metric family file, building blocks (`_*.sql`) first."""
    files = sorted((sql_dir() / "metrics").glob("*.sql"))
    return sorted(files, key=lambda p: (not p.name.startswith("_"), p.name))


# ---------------------------------------------------------------------------------- macros

@dataclass(frozen=True)
class MacroDef:
    """One `CREATE OR REPLACE MACRO` statement of a SQL file, with the comment block above it."""
    name: str
    file: str                       # the file's stem: ap, context, ...
    args: tuple[str, ...]
    header: dict[str, str]
    sql: str                        # the statement, as DuckDB runs it
    calls: frozenset[str]           # names followed by "(" (macros among them)
    relations: frozenset[str]       # ev_* names not called: context relations read


def parse_header(lines: list[str]) -> dict[str, str]:
    """The `-- key: value` lines of a comment block as a dict; a `--` line that follows a key
    continues its value."""
    meta: dict[str, str] = {}
    key = None
    for line in lines:
        m = HEADER_RE.match(line)
        if m:
            key = m.group(1)
            meta[key] = m.group(2).strip()
        elif key and line.startswith("--"):
            meta[key] += " " + line[2:].strip()
    return meta


def statements(text: str):
    """(comment block, statement) pairs: a statement runs from its first non-comment line to
    the line ending with `;`."""
    block: list[str] = []
    stmt: list[str] = []
    for line in text.splitlines():
        if not stmt and line.startswith("--"):
            block.append(line)
            continue
        if not stmt and not line.strip():
            block = []
            continue
        stmt.append(line)
        if line.split("--", 1)[0].rstrip().endswith(";"):
            yield block, "\n".join(stmt) + "\n"
            block, stmt = [], []
    if stmt:
        yield block, "\n".join(stmt) + "\n"


def macros_in(path: Path) -> list[MacroDef]:
    """The macros of one SQL file (cached by path, size and time: the catalog and all_macros
    both read every file)."""
    st = path.stat()
    return _macros_in(path, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=256)
def _macros_in(path: Path, size: int, mtime_ns: int) -> list[MacroDef]:
    out = []
    for block, stmt in statements(path.read_text(encoding="utf-8")):
        m = _MACRO_RE.match(stmt)
        if not m:
            continue
        params, end = _parameter_list(stmt, m.start(2) - 1)
        body = stmt[end:]
        body_code = "\n".join(line.split("--", 1)[0] for line in body.splitlines())
        calls = frozenset(_CALL_RE.findall(body_code))
        words = set(_WORD_RE.findall(body_code))
        out.append(MacroDef(
            name=m.group(1), file=path.stem,
            args=params,
            header=parse_header(block), sql=stmt, calls=calls,
            relations=frozenset(w for w in words if w not in calls)))
    return out


def _parameter_list(stmt: str, open_at: int) -> tuple[tuple[str, ...], int]:
    """A macro's parameters (split at the commas outside parentheses: a default may be
    `MAP {}::MAP(INTEGER, DOUBLE)`) and where its body starts."""
    depth, current, params = 0, [], []
    for i in range(open_at, len(stmt)):
        ch = stmt[i]
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                params.append("".join(current))
                return tuple(a.strip() for a in params if a.strip()), i + 1
        elif ch == "," and depth == 1:
            params.append("".join(current))
            current = []
            continue
        current.append(ch)
    raise SqlAssetError(f"unbalanced parameter list: {stmt[:80]!r}")


@lru_cache(maxsize=1)
def all_macros() -> dict[str, MacroDef]:
    """Every macro of sql/context.sql and sql/metrics/*.sql by name; a name defined twice is an
    error. Parsed once for every process while the files stay the same (parsecache)."""
    from .parsecache import cached
    files = [sql_dir() / "context.sql", *metric_files()]
    return cached("macros", sql_dir(), files, lambda: _all_macros(files))


def _all_macros(files: list[Path]) -> dict[str, MacroDef]:
    out: dict[str, MacroDef] = {}
    for path in files:
        for mdef in macros_in(path):
            if mdef.name.lower() in {n.lower() for n in out}:
                raise SqlAssetError(f"macro {mdef.name!r} is defined twice ({path.name})")
            out[mdef.name] = mdef
    return out


@lru_cache(maxsize=1)
def context_relations() -> tuple[str, ...]:
    """The evaluation context relations (sql/context.sql, section shapes), in file order."""
    return tuple(_SHAPE_RE.findall(context_section("shapes")))


def builder(relation: str) -> MacroDef:
    """The macro that builds a context relation: ev_make_<name> below `-- relation: ev_<name>`."""
    mdef = all_macros().get("ev_make_" + relation.removeprefix("ev_"))
    if mdef is None or mdef.header.get("relation", "").split()[:1] != [relation]:
        raise SqlAssetError(f"context.sql has no builder of {relation}")
    return mdef


# What is derived from all_macros() (and the context shapes read with it), kept while the same
# all_macros() result stands: clearing that cache (a changed IRW_SQL_DIR) clears these too.
_DERIVED: dict = {}


def _derived(key, make):
    macros = all_macros()
    if _DERIVED.get("of") is not macros:
        _DERIVED.clear()
        _DERIVED["of"] = macros
    if key not in _DERIVED:
        _DERIVED[key] = make()
    return _DERIVED[key]


def _lowered() -> dict[str, str]:
    """Every macro name by its lower-case form (DuckDB's names are case-insensitive)."""
    return _derived("lowered", lambda: {n.lower(): n for n in all_macros()})


def macro_closure(names) -> list[MacroDef]:
    """The macros `names` call, transitively, themselves included (context builders apart)."""
    macros = all_macros()
    lowered = _lowered()
    seen: dict[str, MacroDef] = {}
    todo = list(names)
    while todo:
        name = lowered.get(todo.pop().lower())
        if name is None or name in seen:
            continue
        seen[name] = macros[name]
        todo += [c for c in macros[name].calls if c.lower() in lowered]
    return list(seen.values())


def _reads(name: str) -> frozenset[str]:
    """The names the macro `name` and the macros it calls read (relations and others)."""
    return _derived(("reads", name),
                    lambda: frozenset(r for m in macro_closure([name]) for r in m.relations))


def relations_read(names) -> list[str]:
    """The context relations the macros `names` read, directly or through the relations they
    are built from (the builders' own reads), in build order (context.sql's shapes order)."""
    names = tuple(names)
    return list(_derived(("relations", names), lambda: _relations_read(names)))


def _relations_read(names: tuple[str, ...]) -> tuple[str, ...]:
    # cached: the registry asks it for each of the ~140 measures, and each answer walks the
    # builders' closures again (0.1 s of every start without the cache)
    needed: set[str] = set()
    todo = set().union(*map(_reads, names))
    known = set(context_relations())
    while todo:
        rel = todo.pop()
        if rel in needed or rel not in known:
            continue
        needed.add(rel)
        if rel in ("ev_scope", "ev_sorted", "ev_file_marks"):
            continue
        todo |= _reads(builder(rel).name)
    return tuple(r for r in context_relations() if r in needed)


def install_order(macros: list[MacroDef]) -> list[MacroDef]:
    """The macros in an order where every macro comes after those it calls (DuckDB checks a
    macro's references when it is created)."""
    by_name = {m.name.lower(): m for m in macros}
    done: dict[str, MacroDef] = {}

    def visit(m: MacroDef, path: tuple) -> None:
        if m.name.lower() in done:
            return
        if m.name.lower() in path:
            raise SqlAssetError(f"macros call each other in a circle: {' -> '.join(path)}")
        for call in sorted(m.calls):
            dep = by_name.get(call.lower())
            if dep is not None and dep is not m:
                visit(dep, path + (m.name.lower(),))
        done[m.name.lower()] = m

    for m in macros:
        visit(m, ())
    return list(done.values())


def files_for(names) -> list[Path]:
    """The SQL files defining the macros `names` call, transitively, in install order."""
    stems = {m.file for m in macro_closure(names)} - {"context"}
    return [p for p in metric_files() if p.stem in stems or p.stem == "_base"]


def sql_digest() -> str:
    """A digest of every SQL file and of the code that turns them into the warehouse's macros:
    a warehouse whose recorded digest differs is brought up to date
    (irwarehouse.store.connection)."""
    import hashlib
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in [sql_dir() / "schema.sql", sql_dir() / "context.sql", *metric_files(),
                 *(p for _, p in domain_files()),
                 package / "store" / "macros.py", package / "store" / "analyst_macros.py",
                 package / "measures" / "catalog.py",
                 package / "measures" / "portability.py"]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()
