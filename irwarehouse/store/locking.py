"""Opening a warehouse file another process holds: wait for it, say who holds it.

DuckDB lets one process write a file (or several read it) and refuses everyone else at once
with "Could not set lock on file ... (PID n)". `open_waiting` retries for up to `wait` seconds
(`irw ... --wait SECONDS`, default 30), printing one line on stderr when it starts to wait,
and then fails naming the process that holds the file and its command line.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import duckdb

from ..errors import StorageError, WarehouseBusy
from ..failures import clean
from . import storage

DEFAULT_WAIT = 30.0
_SETTINGS = {"wait": DEFAULT_WAIT}
_LOCKED = "Could not set lock on file"


def set_default_wait(seconds: float | None) -> None:
    """The wait of every later open in this process (the CLI's --wait)."""
    _SETTINGS["wait"] = DEFAULT_WAIT if seconds is None else max(0.0, float(seconds))


def default_wait() -> float:
    return _SETTINGS["wait"]


def holder(message: str) -> str:
    """The process named in DuckDB's lock message: 'process 123 (irw ingest run ...)'."""
    pid = re.search(r"PID (\d+)", message)
    if not pid:
        return "another process"
    return f"process {pid.group(1)}" + _command_of(int(pid.group(1)))


def _command_of(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    # `python .../irw ingest ...` -> `irw ingest ...`
    for i, word in enumerate(words):
        if word.endswith(("/irw", "irwarehouse.cli")) or word == "irw":
            words = ["irw"] + words[i + 1:]
            break
    text = clean(" ".join(words), limit=80)      # one printable line, whatever it ran
    return f" ({text})" if text else ""


def open_waiting(path: Path, *, read_only: bool,
                 wait: float | None = None) -> duckdb.DuckDBPyConnection:
    """duckdb.connect(path), waiting up to `wait` seconds (None: the default) while another
    process holds the file."""
    wait = default_wait() if wait is None else wait
    deadline = time.monotonic() + wait
    delay, told = 0.05, False
    while True:
        try:
            if not read_only and not path.exists():
                storage.create(path)        # in the storage format DuckDB 1.x opens too
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc)
            if _LOCKED not in message:
                raise _cannot_open(path, exc) from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise WarehouseBusy(f"warehouse {path} is in use by {holder(message)}; waited "
                                    f"{wait:g} s (--wait SECONDS to wait longer)") from None
            if not told:
                print(f"irw: warehouse {path} is in use by {holder(message)}; waiting up to "
                      f"{wait:g} s (--wait)", file=sys.stderr, flush=True)
                told = True
            time.sleep(min(delay, left))
            delay = min(delay * 2, 1.0)
        except duckdb.Error as exc:
            raise _cannot_open(path, exc) from None


def _cannot_open(path: Path, exc: duckdb.Error) -> StorageError:
    return StorageError(f"cannot open warehouse {path}: {str(exc).splitlines()[0]}")
