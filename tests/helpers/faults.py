"""Fault injection for the reliability tests (docs/reliability.md): a warehouse connection whose
k-th statement raises, the state of a warehouse as a digest of every table, and running `irw`
in-process with the stderr it printed."""

from __future__ import annotations

import contextlib
from pathlib import Path

import duckdb
from typer.testing import CliRunner

_REAL_CONNECT = duckdb.connect


class Faulty:
    """A warehouse connection that counts its statements (execute, executemany, sql) and makes
    the one numbered `fail_at` (from 0) raise `error` instead of running; None: never. The
    statements' texts are kept in `log`."""

    def __init__(self, con, fail_at: int | None, error: BaseException, log: list):
        self._con, self._fail_at, self._error, self._log = con, fail_at, error, log

    def _step(self, text) -> None:
        self._log.append(str(text).strip()[:60])
        if self._fail_at is not None and len(self._log) - 1 == self._fail_at:
            raise self._error

    def execute(self, query, *args, **kwargs):
        self._step(query)
        return self._con.execute(query, *args, **kwargs)

    def executemany(self, query, *args, **kwargs):
        self._step(query)
        return self._con.executemany(query, *args, **kwargs)

    def sql(self, query, *args, **kwargs):
        self._step(query)
        return self._con.sql(query, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._con, name)


@contextlib.contextmanager
def faulty_warehouse(monkeypatch, path: Path, fail_at: int | None,
                     error: BaseException | None = None):
    """While the block runs, every connection to the warehouse file `path` is Faulty (its
    statement `fail_at` raises `error`, by default a DuckDB I/O error); yields the log of the
    statements run."""
    error = error or duckdb.IOException("injected fault: Input/output error")
    log: list[str] = []
    target = str(Path(path).resolve())

    def connect(database=":memory:", *args, **kwargs):
        con = _REAL_CONNECT(database, *args, **kwargs)
        if str(database) != ":memory:" and str(Path(database).resolve()) == target:
            return Faulty(con, fail_at, error, log)
        return con

    with monkeypatch.context() as m:
        m.setattr(duckdb, "connect", connect)
        yield log


def state(path: Path) -> dict:
    """Every table of a warehouse file as (rows, digest of its columns but timestamps, which
    differ between two runs of one command, and irw_digest.digest, which hashes them)."""
    con = _REAL_CONNECT(str(path), read_only=True)
    try:
        columns: dict[str, list[str]] = {}
        for table, column in con.execute("""
                SELECT table_name, column_name FROM duckdb_columns()
                WHERE database_name = current_database() AND schema_name = 'main'
                  AND data_type NOT LIKE 'TIMESTAMP%'
                  AND (table_name, column_name) <> ('irw_digest', 'digest') AND table_name IN
                      (SELECT table_name FROM duckdb_tables()
                       WHERE database_name = current_database())
                ORDER BY table_name, column_index""").fetchall():
            columns.setdefault(table, []).append(f'"{column}"')
        return {table: con.execute(f'SELECT count(*), sum(hash({", ".join(cols)})) '
                                   f'FROM "{table}"').fetchone()
                for table, cols in columns.items()}
    finally:
        con.close()


def irw(*args, env=None):
    """`irw ARGS` in this process: the click Result (exit_code, stdout, stderr)."""
    from irwarehouse.cli import app
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def one_line(result) -> str:
    """The one line a failed command printed on stderr (asserted to be one line, `irw: `)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("irw: error:", "irw: interrupted"))]
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return errors[0]


@contextlib.contextmanager
def mounted_tmpfs(folder: Path, size: str):
    """A tmpfs of `size` (e.g. '4m') mounted on `folder` for the block: a disk that fills up
    (root only: the test is skipped otherwise); unmounted at the end."""
    import os
    import shutil
    import subprocess

    import pytest
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
