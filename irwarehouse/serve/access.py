"""How the workspace lives with DuckDB's file lock (docs/serve.md, "Concurrency").

DuckDB lets one process hold a file read-write, or several processes hold it read-only, never
both at once. The server never holds the file read-write except for the one write a page can
ask for (--allow-writes), and holds it read-only only while pages are being answered: the
first request opens it read-only (locked down as `irw sql` locks its connection:
analyst.query.open_guarded, so no page and no console query can reach a file or the network),
each request works on a cursor of that connection of its own (its temporary tables its own),
and the file is closed once no request has come for LINGER seconds. So while `irw serve` runs,
`irw ingest`, `irw eval --store` and `irw rm` in another shell get the file after at most
LINGER seconds of quiet (they wait for a held file, store.locking, up to 30 s by default), and
the next page opens it again and reads what they wrote. Opening the file costs 0.1-0.3 s on a
100-run warehouse (its catalog of metric macros), a cursor a few milliseconds: keeping the
connection for a moment is what makes a page fast.

While another process writes the file, a request waits for it up to BUSY_WAIT seconds, then
answers 503 ("busy, reload"). Every request's statements are interrupted after its time limit
(analyst.limits.Deadline: DuckDB's interrupt from a timer).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from ..analyst import limits
from ..errors import WarehouseBusy

BUSY_WAIT = 5.0                 # seconds a request waits for a writer of another process
QUERY_TIME = 30.0               # seconds of one request's statements (--query-time)
LINGER = 1.0                    # seconds the file stays open after the last request


class Deadline(limits.Deadline):
    """analyst.limits.Deadline that, once expired, interrupts the connection again every
    REPEAT seconds until cancelled: a page runs several statements, and an interrupt that
    comes between two (or while the console's guard plans a query) would otherwise be lost
    and the next statement run unbounded."""

    REPEAT = 0.2

    def __init__(self, con, seconds, started):
        self._lock, self._cancelled = threading.Lock(), False
        super().__init__(con, seconds, started)

    def _expire(self, con) -> None:
        with self._lock:
            if self._cancelled:
                return
            super()._expire(con)
            self._timer = threading.Timer(self.REPEAT, self._expire, [con])
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            super().cancel()


class Busy(Exception):
    """Another process held the warehouse for longer than BUSY_WAIT."""


class Access:
    """The server's one way to the warehouse file: `reading()` and `writing()` blocks."""

    def __init__(self, path: str, *, wait: float = BUSY_WAIT, linger: float = LINGER,
                 memory: str | None = None):
        self.path, self.wait, self.linger, self.memory = str(path), wait, linger, memory
        self._con = None
        self._users = 0
        self._writing = False
        self._last = 0.0
        self._cond = threading.Condition()
        self._spill = tempfile.mkdtemp(prefix="irw-serve-spill-")
        self._timer: threading.Timer | None = None

    # -- reading ------------------------------------------------------------------------------
    @contextmanager
    def reading(self, seconds: float = QUERY_TIME):
        """A Warehouse for one request, on a cursor of the shared read-only connection; its
        statements interrupted after `seconds`."""
        started = time.monotonic()
        cursor = self._acquire()
        try:
            deadline = Deadline(cursor, seconds, started)
            try:
                yield _warehouse(cursor, self.path, deadline)
            finally:
                deadline.cancel()
        finally:
            try:
                cursor.close()
            finally:
                self._release()

    def _acquire(self):
        from ..analyst.query import open_guarded
        from ..store.connection import _prepare
        with self._cond:
            while self._writing:
                self._cond.wait()
            if self._con is None:
                try:
                    self._con = open_guarded(self.path, memory=self.memory, spill=self._spill,
                                             wait=self.wait)
                except WarehouseBusy:
                    raise Busy() from None
            self._users += 1
            con = self._con
        try:
            cursor = con.cursor()
            _prepare(cursor, Path(self.path), read_only=True, macros=True)
            return cursor
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        with self._cond:
            self._users -= 1
            self._last = time.monotonic()
            if self._users == 0:
                self._cond.notify_all()
                self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(self.linger, self._close_if_idle)
        self._timer.daemon = True
        self._timer.start()

    def _close_if_idle(self) -> None:
        with self._cond:
            if self._users == 0 and self._con is not None \
                    and time.monotonic() - self._last >= self.linger * 0.99:
                self._close()

    def _close(self) -> None:
        con, self._con = self._con, None
        if con is not None:
            con.close()

    # -- writing ------------------------------------------------------------------------------
    @contextmanager
    def writing(self, seconds: float = QUERY_TIME):
        """A read-write Warehouse for one request: the readers finished and the shared
        connection closed first, new readers held until it is done."""
        from ..api import Warehouse
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._writing = True
            while self._users:
                self._cond.wait()
            self._close()
        try:
            started = time.monotonic()
            try:
                wh = Warehouse(self.path, read_only=False, create=False, wait=self.wait)
            except WarehouseBusy:
                raise Busy() from None
            deadline = Deadline(wh.con, seconds, started)
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
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            if self._timer is not None:
                self._timer.cancel()
            self._close()
        shutil.rmtree(self._spill, ignore_errors=True)


def _warehouse(con, path: str, deadline):
    """A Warehouse (the API the pages call: metrics, evaluate, ...) on a connection the
    server owns (a cursor): closing it is the server's business."""
    from ..api import Warehouse
    wh = object.__new__(Warehouse)
    wh.path, wh.con, wh.deadline = path, con, deadline
    return wh
