"""The limits of an analyst query (`irw sql`), each one that holds:

- time (--timeout, default 300 s): a timer interrupts the query; the guard's checks count
  against it, and a query too large to plan in time is refused before DuckDB plans it
  (sqlguard: planning cannot be interrupted);
- memory (--memory-limit, default half of the machine's): DuckDB's memory_limit bounds what
  its buffer manager holds; what it allocates outside it (a 2 GB string from one repeat())
  is bounded too, in the `irw` process, by capping its address space (RLIMIT_AS) at what it
  had plus the limit and a margin while the query runs;
- disk: the query spills into a temporary folder of its own (never beside the warehouse),
  at most as much as its memory limit, removed afterwards.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import IrwError

DEFAULT_TIMEOUT = 300.0         # seconds of one `irw sql` query (--timeout)
MEMORY_SHARE = 0.5              # default --memory-limit: half of the machine's memory
MAX_TIMEOUT = 10**9             # seconds (31 years): the timer's own limit is far above
_MEMORY = re.compile(r"^\s*([0-9]+(?:[.][0-9]+)?)\s*(%|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$",
                     re.IGNORECASE)
_UNIT_BYTES = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10,
               "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
_MAX_MEMORY = 2**62             # bytes: DuckDB's setting is a signed 64-bit count
_MARGIN = 64 * 2**20            # address space beyond the limit: Python, the output writer


def check_timeout(seconds: float | None) -> float | None:
    """--timeout: a number of seconds from 0 (no limit) to MAX_TIMEOUT."""
    if seconds is None:
        return None
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_TIMEOUT:
        raise IrwError(f"--timeout {seconds:g}: give a number of seconds up to "
                       f"{MAX_TIMEOUT:,} (0 for no limit)")
    return seconds


def memory_limit(text: str | None) -> str:
    """DuckDB's memory_limit for an analyst query: `text` ('4GB', '512MiB', '25%' of the
    machine's memory) validated, or MEMORY_SHARE of the memory when None."""
    total = _physical_memory()
    if text is None:
        return f"{int(total * MEMORY_SHARE) // 2**20}MiB" if total else "80%"
    m = _MEMORY.match(text)
    if not m or float(m.group(1)) <= 0:
        raise IrwError(f"--memory-limit {text!r}: give a size such as 4GB, 512MiB or 25%")
    value, unit = float(m.group(1)), m.group(2)
    if unit == "%":
        if value > 100 or not total:
            raise IrwError(f"--memory-limit {text!r}: a share of memory is at most 100%")
        return f"{int(total * value / 100) // 2**20}MiB"
    if value * _UNIT_BYTES[unit.upper()] >= _MAX_MEMORY:
        raise IrwError(f"--memory-limit {text!r}: more than DuckDB can be given (at most "
                       f"{_MAX_MEMORY // 2**50:,} PiB; 100% is all of this machine's)")
    return f"{value:.6f}".rstrip("0").rstrip(".") + unit      # never 1e+07TB


def limit_bytes(limit: str) -> int | None:
    """The bytes of a memory_limit() value (None for a share DuckDB resolves itself)."""
    m = _MEMORY.match(limit)
    if not m or m.group(2) == "%":
        return None
    return int(float(m.group(1)) * _UNIT_BYTES[m.group(2).upper()])


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


class Deadline:
    """Interrupts a connection's statement when `seconds` (None or 0: never) have passed since
    `started` (time.monotonic(): the guard's checks count)."""

    def __init__(self, con, seconds: float | None, started: float):
        self.seconds, self.expired = seconds, False
        self._timer = None
        if seconds:
            left = seconds - (time.monotonic() - started)
            if left <= 0:
                self.expired = True
                raise self.error()
            self._timer = threading.Timer(left, self._expire, [con])
            self._timer.daemon = True
            self._timer.start()

    def _expire(self, con) -> None:
        self.expired = True
        con.interrupt()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def error(self) -> IrwError:
        return IrwError(f"query stopped at its time limit of {self.seconds:g} s "
                        "(--timeout SECONDS; 0 for none)")


@contextmanager
def spill_folder() -> Iterator[str]:
    """A temporary folder of the query's own for DuckDB to spill into (TMPDIR's, never beside
    the warehouse), removed when the query ends."""
    folder = tempfile.mkdtemp(prefix="irw-sql-spill-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def address_space(limit: str) -> Iterator[None]:
    """While the block runs, this process may map at most what it has now plus `limit` and a
    margin (RLIMIT_AS): an allocation beyond fails (DuckDB: Out of Memory) instead of taking
    the machine's memory. For the `irw` process only (never a host's Python), Linux only."""
    extra = limit_bytes(limit)
    now = _mapped_bytes()
    try:
        import resource
    except ImportError:
        resource = None
    if resource is None or extra is None or now is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = now + extra + _MARGIN
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _mapped_bytes() -> int | None:
    """This process's address space now (VmSize), None where /proc does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
