"""Every failure is one line and a documented exit code (irwarehouse/failures.py, the guard in
cli/common.py): user errors 1, usage 2, storage 3, internal 4 (with --debug for the
traceback), Ctrl-C 130; no input can put a line break or a terminal escape into the line."""

from __future__ import annotations

import errno

import duckdb
import pytest

from irwarehouse.errors import InputError, StorageError, WarehouseBusy
from irwarehouse.failures import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_STORAGE,
    clean,
    describe,
    shown,
)
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA


def test_the_exit_codes_are_the_documented_ones():
    assert (EXIT_ERROR, EXIT_STORAGE, EXIT_INTERNAL, EXIT_INTERRUPTED) == (1, 3, 4, 130)


@pytest.mark.parametrize("text", ["a\nb", "a\x1b[31mred", "a\x00b", "\u2028x", "a\rb",
                                  "\ufeffx", "a\x9bb", "x" * 1000])
def test_clean_makes_one_printable_line(text):
    line = clean(text)
    assert "\n" not in line and "\r" not in line and len(line) <= 500
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in line)


def test_shown_cuts_long_values_and_escapes():
    assert shown("t" * 300) == repr("t" * 40) + "… (300 characters)"
    assert shown("\x1b[31m") == repr("\x1b[31m") and "\x1b" not in shown("\x1b[31m")


@pytest.mark.parametrize("exc, code, words", [
    (InputError("r.txt", 3, "bad"), 1, "r.txt:3: bad"),
    (StorageError("disk"), 3, "disk"),
    (WarehouseBusy("busy"), 3, "busy"),
    (OSError(errno.ENOSPC, "No space left on device", "/x"), 3, "disk full: /x"),
    (OSError(errno.EIO, "Input/output error", "/x"), 3, "Input/output error"),
    (OSError(errno.ENOENT, "No such file or directory", "/x"), 1, "/x: No such file"),
    (MemoryError(), 3, "out of memory"),
    (RecursionError(), 1, "nested too deeply"),
    (KeyboardInterrupt(), 130, "interrupted"),
    (duckdb.IOException('Could not write file "w": No space left on device'), 3,
     "irw compact"),
    (duckdb.IOException("Corrupt database file: computed checksum 1"), 3, "damaged"),
    (duckdb.OutOfMemoryException("Out of Memory Error: x"), 3, "out of memory"),
    (duckdb.InterruptException("INTERRUPT Error"), 130, "interrupted"),
    (ValueError("alpha must be in (0, 1)"), 1, "alpha"),
    (duckdb.InvalidInputException("Invalid Input Error: p must be between 0 and 1"), 1,
     "p must be between 0 and 1"),
    (KeyError("x\ny"), 4, "--debug"),
])
def test_describe_gives_one_line_and_a_code(exc, code, words):
    got, message = describe(exc)
    assert got == code and words in message and "\n" not in message


# -- through the command line --------------------------------------------------------------------
def _damaged(tmp_path):
    """A warehouse with a run whose blocks (after the first megabyte) are each hit by 64
    bytes."""
    path = tmp_path / "w.duckdb"
    assert irw("ingest", "run", DATA / "runs" / "STANDARD.results.test", "--campaign", "c",
               "--warehouse", path).exit_code == 0
    data = bytearray(path.read_bytes())
    for block in range(12288 + 262144, len(data) - 1024, 262144):
        data[block + 1000:block + 1064] = b"\xaa" * 64
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("args", [
    ("ingest", "run", DATA / "runs" / "STANDARD.results.test", "--campaign", "c", "--name", "x"),
    ("eval", "--campaign", "c", "-m", "map"),
    ("sql", "SELECT count(*) FROM run_row"),
    ("check",),
], ids=["ingest", "eval", "sql", "check"])
def test_a_damaged_warehouse_is_one_line_for_every_command(tmp_path, args):
    path = _damaged(tmp_path)
    result = irw(*args, "--warehouse", path)
    assert result.exit_code == 3, result.output
    line = one_line(result)
    assert "Corrupt database file" in line or "damaged" in line, line


def test_a_file_that_is_no_warehouse_is_one_line(tmp_path):
    path = tmp_path / "w.duckdb"
    path.write_bytes(b"not a database at all" * 200)
    for args in (("eval", "--campaign", "c", "-m", "map"), ("sql", "SELECT 1"), ("check",),
                 ("ingest", "run", DATA / "runs" / "STANDARD.results.test", "--campaign", "c")):
        result = irw(*args, "--warehouse", path)
        assert result.exit_code == 3, result.output
        assert "not a valid DuckDB database file" in one_line(result)
    folder = irw("sql", "SELECT 1", "--warehouse", tmp_path)
    assert folder.exit_code == 1 and "is a folder" in one_line(folder)


def test_an_internal_error_asks_for_debug_which_shows_the_traceback(monkeypatch, tmp_path):
    from irwarehouse.store import ingest

    def broken(*args, **kwargs):
        raise KeyError("a bug")
    monkeypatch.setattr(ingest, "stage_run", broken)
    args = ("ingest", "run", DATA / "runs" / "STANDARD.results.test", "--campaign", "c",
            "--warehouse", tmp_path / "w.duckdb")
    result = irw(*args)
    assert result.exit_code == 4
    assert "internal error: KeyError" in one_line(result) and "--debug" in result.stderr
    debug = irw("--debug", *args)
    assert isinstance(debug.exception, KeyError)


def test_a_gzip_qrels_with_a_bad_crc_is_one_line(tmp_path):
    import gzip
    blob = bytearray(gzip.compress((DATA / "qrels.test").read_bytes()))
    blob[-6] ^= 0xFF
    bad = tmp_path / "q.gz"
    bad.write_bytes(bytes(blob))
    result = irw("ingest", "qrels", bad, "--campaign", "c", "--warehouse", tmp_path / "w.duckdb")
    assert result.exit_code == 1 and "CRC check failed" in one_line(result)


def test_a_run_tag_with_an_escape_sequence_is_named_not_echoed(tmp_path):
    run = tmp_path / "r.txt"
    run.write_bytes(b"401 Q0 d1 1 0.5 \x1b[31mred\n")
    result = irw("ingest", "run", run, "--campaign", "c", "--warehouse", tmp_path / "w.duckdb")
    assert result.exit_code == 1
    line = one_line(result)
    assert "\x1b" not in result.stderr and f"{run}:1: control character U+001B" in line


@pytest.mark.parametrize("args, words", [
    (["evall"], "No such command 'evall'"),
    (["eval", "--nonsense"], "No such option: --nonsense"),
    (["sql", "--timeout", "abc", "SELECT 1"], "Invalid value for '--timeout'"),
])
def test_a_wrong_command_line_is_one_line_with_exit_code_2(args, words):
    import subprocess
    import sys
    entry = "import sys; sys.argv[0] = 'irw'; from irwarehouse.entry import main; main()"
    done = subprocess.run([sys.executable, "-c", entry, *args], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irw: error: ") and words in lines[0], \
        done.stderr
    assert "--help`)" in lines[0]
