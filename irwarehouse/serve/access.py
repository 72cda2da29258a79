"""How the workspace lives with DuckDB's file lock (docs/serve.md, "Concurrency").

DuckDB lets one process hold a file read-write, or several processes hold it read-only, never
both at once. The server holds no connection between requests: each request opens the file
read-only, answers, and closes it (a few milliseconds on a warehouse of 100 runs). So while
`irw serve` runs, `irw ingest`, `irw eval --store` and `irw rm` in another shell get the file
(waiting, as they always do, at most for the request under way, store.locking), and the next
page load reads what they wrote. While such a writer holds the file, a request waits for it
up to BUSY_WAIT seconds, then answers 503 ("busy, reload") rather than hang. A write asked on
the page (--allow-writes) opens the file read-write for that one request, the same way.

Every request's statements are interrupted after its time limit (analyst.limits.Deadline:
DuckDB's interrupt from a timer), so no page can hold the file for long.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from ..analyst.limits import Deadline
from ..errors import WarehouseBusy

BUSY_WAIT = 5.0                 # seconds a request waits for a writer of another process
QUERY_TIME = 30.0               # seconds of one request's statements (--query-time)


class Busy(Exception):
    """Another process held the warehouse for longer than BUSY_WAIT."""


@contextmanager
def opened(path: str, *, write: bool = False, seconds: float = QUERY_TIME,
           wait: float = BUSY_WAIT):
    """A Warehouse on `path` for one request: read-only unless `write`, closed at the end,
    its statements interrupted after `seconds`."""
    from ..api import Warehouse
    started = time.monotonic()
    try:
        wh = Warehouse(path, read_only=not write, create=False, wait=wait)
    except WarehouseBusy:
        raise Busy() from None
    deadline = Deadline(wh.con, seconds, started)
    wh.deadline = deadline
    failed = True
    try:
        yield wh
        failed = False
    finally:
        deadline.cancel()
        if failed:
            from ..store.connection import close
            close(wh.con, checkpoint=False)
        else:
            wh.close()
