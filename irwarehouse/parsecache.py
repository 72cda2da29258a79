"""What irw reads from its SQL files (every macro, the measure catalog), kept on disk between
processes, as Python keeps a module's bytecode in __pycache__.

Parsing sql/context.sql and sql/metrics/*.sql into macros and measures costs about 20 ms of
CPU in every process, 5% of evaluating a TREC-size run from files (`irw eval -m map -m P.10
QRELS RUN`: issue 32, bench/README.md); loading the parsed form back costs 2 ms. A cached form
is used only while every file it was read from, and the code that read it, has the size and
modification time it had then; anything else (a missing, unreadable, stale or corrupt cache, a
folder that cannot be written) parses the files as before.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

# the code that turns the files into the cached objects: a change to it stales the cache
_CODE = [Path(__file__).resolve().parent / "sqlfiles.py",
         Path(__file__).resolve().parent / "measures" / "catalog.py"]


def _stamp(paths: list[Path]) -> tuple:
    out = []
    for path in [*paths, *_CODE]:
        st = os.stat(path)
        out.append((str(path), st.st_size, st.st_mtime_ns))
    return (sys.version_info[:2], tuple(out))


def cached(name: str, folder: Path, sources: list[Path], build: Callable[[], object]):
    """build(), or its result of an earlier process when `sources` are unchanged; kept in
    `folder`/__pycache__/irw-<name>.pickle (written atomically: a process reading at the same
    time sees the old file or the new one)."""
    try:
        stamp = _stamp(sources)
    except OSError:                  # a file went missing: let build() report it
        return build()
    path = folder / "__pycache__" / f"irw-{name}.pickle"
    kept = _load(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    value = build()
    import tempfile  # (only here: importing it costs 2 ms)
    try:
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((stamp, value), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.chmod(tmp, 0o644)    # as Python's own cache files (mkstemp makes 0600)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:                 # a read-only installation: parse in every process
        pass
    return value


def _load(path: Path) -> tuple | None:
    """(stamp, value) kept at `path`; None when there is none, or it cannot be read back (any
    failure of unpickling a file of another version or a torn one: parse again)."""
    try:
        with open(path, "rb") as f:
            kept = pickle.load(f)
    except Exception:  # noqa: BLE001 (whatever the unpickling raises, the files are parsed)
        return None
    return kept if isinstance(kept, tuple) and len(kept) == 2 else None
