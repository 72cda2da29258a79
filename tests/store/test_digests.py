"""Every table's digest (irwarehouse/store/digests.py): each write path of the CLI leaves a
warehouse that `irw check` passes, with rows in every table; and the damage DuckDB's block
checksum cannot see (two different adjacent 8-byte words of a table's stored data swapped) is
found in every table whose rows it changes (the sweep is slow)."""

from __future__ import annotations

import shutil
import struct

import duckdb
import pytest

from irwarehouse.store import digests
from tests.helpers.every_table import steps, write_clicks
from tests.helpers.faults import irw, one_line

BLOCK_SIZE = 256 * 1024         # DuckDB's default block size
HEADERS = 3 * 4096              # the file header and the two database headers
CHECKSUM = 8                    # each block starts with its checksum
SWAPS_PER_TABLE = 2             # in its first two segments (columns)


@pytest.fixture(scope="module")
def every_table(tmp_path_factory):
    """(warehouse, the step after which `irw check` failed or None): every step of
    tests/helpers/every_table.py run in order, `irw check` after each."""
    folder = tmp_path_factory.mktemp("every_table")
    path = folder / "w.duckdb"
    for step in steps(folder):
        if step[0] == "write-clicks":
            write_clicks(step[1], path)
            continue
        result = irw(*step, "--warehouse", path)
        assert result.exit_code == 0, (step, result.output)
        check = irw("check", "--warehouse", path)
        assert check.exit_code == 0, (step, check.stdout)
    return path


def test_every_write_path_records_the_digests_check_verifies(every_table):
    con = duckdb.connect(str(every_table), read_only=True)
    tables = digests.data_tables(con)
    empty = [t for t in tables if not con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]]
    recorded = {t for (t,) in con.execute("SELECT DISTINCT table_name FROM irw_digest"
                                          ).fetchall()}
    con.close()
    assert len(tables) == 40 and not empty, empty            # every table holds rows...
    assert recorded == set(tables)                           # ...and has its digests
    result = irw("check", "--warehouse", every_table)
    assert "ok      tables: 40 tables read in full" in result.stdout, result.stdout


def test_a_row_changed_behind_irws_back_is_named_with_its_owner(every_table, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(every_table, path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE score SET value = value + 1e-12 WHERE rowid = 0")
    con.execute("UPDATE topic SET title = 'x' WHERE topic = '301' AND campaign_id = "
                "(SELECT campaign_id FROM campaign WHERE name = 'c')")
    con.execute("INSERT INTO irw_digest VALUES ('gone', 0, 1, 'x')")
    con.close()
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 3
    assert "3 problems found" in one_line(result), result.stdout
    assert "FAILED  topic: campaign c: the stored rows differ from those written" \
        in result.stdout, result.stdout
    assert "FAILED  score: run STANDARD of campaign c: the stored rows differ" in result.stdout
    assert "FAILED  irw_digest: digests recorded for a table gone" in result.stdout


def test_digests_of_another_duckdbs_hash_are_not_verifiable_not_damage(every_table, tmp_path):
    """hash() may change with DuckDB's version: digests whose probe prefix is not this
    DuckDB's are reported as not verifiable (row counts still compared), never as damage."""
    path = tmp_path / "w.duckdb"
    shutil.copy(every_table, path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE irw_digest SET digest = '0123456789abcdef:' || split_part(digest, ':', 2) "
                "WHERE table_name = 'run_row'")
    con.close()
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 0, result.stdout
    assert "digests of 1 table(s) (run_row) were recorded by a DuckDB whose hash() differs" \
        in result.stdout


def _segments(con, tables) -> dict[str, list[tuple[int, int, int]]]:
    """{table: [(block, start, end)]}: the byte range of each stored segment of every table
    within its block, ending where the next segment of any table in that block starts."""
    rows = [(t, block, offset) for t in tables for block, offset in con.execute(f"""
        SELECT DISTINCT block_id, block_offset FROM pragma_storage_info('{t}')
        WHERE persistent AND block_id >= 0""").fetchall()]
    starts: dict[int, list[int]] = {}
    for _, block, offset in rows:
        starts.setdefault(block, []).append(offset)
    out: dict[str, list] = {t: [] for t in tables}
    for table, block, offset in rows:
        end = min([o for o in starts[block] if o > offset], default=BLOCK_SIZE - CHECKSUM)
        out[table].append((block, offset, end))
    return out


def _swaps(data: bytes, segments) -> list[int]:
    """File offsets of the first pair of different adjacent 8-byte words of each segment."""
    found = []
    for block, start, end in segments:
        base = HEADERS + block * BLOCK_SIZE + CHECKSUM
        for at in range(base + start, base + end - 15, 8):
            a, b = struct.unpack_from("<QQ", data, at)
            if a != b:
                found.append(at)
                break
    return found


def _content(path, table: str):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return sorted(map(repr, con.execute(f'SELECT * FROM "{table}"').fetchall()))
    except duckdb.Error as exc:
        return f"unreadable: {exc}"
    finally:
        con.close()


@pytest.mark.slow
def test_swapped_words_are_found_in_every_table(every_table, tmp_path):
    """The issue's damage: in each table's stored segments, two different adjacent 8-byte
    words swapped (the block checksum, an XOR of the words times a constant, stays the
    same). Whenever the table's rows changed, `irw check` fails (exit 3); a swap that changed
    no row (padding, or a segment DuckDB no longer reads) may pass."""
    con = duckdb.connect(str(every_table), read_only=True)
    tables = list(digests.data_tables(con)) + [digests.DIGEST_TABLE]
    segments = _segments(con, tables)
    con.close()
    data = every_table.read_bytes()
    changed, caught, damaging = set(), set(), 0
    for table in tables:
        before = _content(every_table, table)
        for at in _swaps(data, segments[table])[:SWAPS_PER_TABLE]:
            damaged = bytearray(data)
            damaged[at:at + 16] = damaged[at + 8:at + 16] + damaged[at:at + 8]
            path = tmp_path / "damaged.duckdb"
            path.write_bytes(bytes(damaged))
            if _content(path, table) == before:
                continue
            changed.add(table)
            damaging += 1
            result = irw("check", "--warehouse", path)
            assert result.exit_code == 3, (table, at, result.stdout, result.stderr)
            assert "Traceback" not in result.output
            caught.add(table)
    assert caught == changed
    assert len(changed) == len(tables), sorted(set(tables) - changed)
    assert damaging >= 2 * len(tables) - 2      # a table of one column has one segment


def test_analyst_sql_that_writes_records_what_it_changed(every_table, tmp_path):
    """`irw sql --write` may change, make or drop any table: the digests of what it changed
    are recorded (a full comparison before and after), a table it dropped loses its own."""
    path = tmp_path / "w.duckdb"
    shutil.copy(every_table, path)
    for sql in ("CREATE TABLE notes AS SELECT range AS n, 'x' AS note FROM range(5)",
                "UPDATE topic SET title = 'changed' WHERE topic = '301'",
                "ALTER TABLE notes ADD COLUMN extra INTEGER",
                "DELETE FROM score WHERE measure = 'map'",
                "DROP TABLE notes"):
        result = irw("sql", "--write", sql, "--warehouse", path)
        assert result.exit_code == 0, (sql, result.output)
        check = irw("check", "--warehouse", path)
        assert check.exit_code == 0, (sql, check.stdout)
