"""`irw check` (row counts against run.num_rows/qrels.num_rows, digests of each run's and qrels'
rows recorded at ingestion, schema version) finds a 16-byte change that DuckDB's block checksum
misses; `irw compact` rewrites the file to its live size."""

from __future__ import annotations

import struct

import duckdb

from irwarehouse.api import Warehouse
from tests.helpers.faults import irw, one_line

# DuckDB's block checksum: the XOR of every 8-byte word times this odd constant (its
# checksum.cpp); so a pair of words can be changed together without changing it.
MULTIPLIER = 0xBF58476D1CE4E5B9
MASK = 2**64 - 1


def _big_run(path, rows: int = 20_000) -> None:
    with open(path, "w") as f:
        f.writelines(f"{i // 1000} Q0 d{i} {i % 1000 + 1} {-i} big\n" for i in range(rows))


def _flip_16_bytes(data: bytearray, offset: int) -> None:
    """Change the word at `offset` and the next one so that the block checksum stays the
    same: ((a' * C) ^ (b' * C)) == ((a * C) ^ (b * C)) mod 2^64."""
    a, b = struct.unpack_from("<QQ", data, offset)
    a2 = a ^ (1 << 40)
    b2 = ((((a * MULTIPLIER) ^ (b * MULTIPLIER) ^ (a2 * MULTIPLIER)) & MASK)
          * pow(MULTIPLIER, -1, 2**64)) & MASK
    struct.pack_into("<QQ", data, offset, a2, b2)


def test_check_finds_a_16_byte_flip_the_block_checksum_misses(tmp_path):
    path, run = tmp_path / "w.duckdb", tmp_path / "big.run"
    _big_run(run)
    with Warehouse(path) as wh:
        # stored uncompressed, so that file_order 12345, 12346, 12347 are three plain words
        wh.con.execute("PRAGMA force_compression = 'uncompressed'")
        wh.ingest_run(run, "c")
    assert irw("check", "--warehouse", path).exit_code == 0
    data = bytearray(path.read_bytes())
    offset = data.find(struct.pack("<3q", 12345, 12346, 12347))
    assert offset > 0 and data.count(struct.pack("<3q", 12345, 12346, 12347)) == 1
    _flip_16_bytes(data, offset + 8)
    path.write_bytes(bytes(data))
    con = duckdb.connect(str(path), read_only=True)         # DuckDB sees nothing wrong...
    changed = con.execute("SELECT sum(file_order) FROM run_row").fetchone()[0]
    con.close()
    assert changed != sum(range(20_000))                     # ...but the rows changed
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 3
    assert "FAILED  run_row: run big of campaign c: the stored rows differ" in result.stdout
    assert "1 problem found" in one_line(result)


def test_check_finds_rows_changed_or_lost_behind_irws_back(tmp_path):
    path, run = tmp_path / "w.duckdb", tmp_path / "big.run"
    _big_run(run, 3000)
    with Warehouse(path) as wh:
        wh.ingest_run(run, "c")
        wh.ingest_qrels(_qrels(tmp_path), "c")
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 0, result.output
    for line in ("ok      schema: up to date",
                 "ok      tables: 40 tables read in full",
                 "their rows match the digests recorded"):
        assert line in result.stdout, result.stdout
    con = duckdb.connect(str(path))
    con.execute("UPDATE judgment SET rel = 2 WHERE doc = 'd1'")
    con.execute("DELETE FROM run_row WHERE doc = 'd7'")
    con.close()
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 3
    assert "run_row: run big of campaign c: 2,999 rows stored, 3,000 recorded" in result.stdout
    assert "judgment: qrels q.txt of campaign c: the stored rows differ" in result.stdout
    assert "run_list: 1 list lengths differ" in result.stdout


def _qrels(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("0 0 d1 1\n0 0 d2 0\n")
    return path


def test_compact_gives_back_what_50_replacements_left(tmp_path):
    path, run = tmp_path / "w.duckdb", tmp_path / "big.run"
    _big_run(run, 20_000)
    with Warehouse(path) as wh:
        wh.ingest_run(run, "c")
    live = path.stat().st_size
    with Warehouse(path) as wh:
        for _ in range(50):
            wh.ingest_run(run, "c", replace=True)
    grown = path.stat().st_size
    result = irw("compact", "--warehouse", path)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"compacted {path}: ")
    assert path.stat().st_size <= max(live, grown) and path.stat().st_size <= live * 1.1
    assert irw("check", "--warehouse", path).exit_code == 0
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM run_row").fetchone()[0] == 20_000
    con.close()


def test_check_of_a_damaged_file_is_one_line(tmp_path):
    path = tmp_path / "w.duckdb"
    assert irw("init", "--warehouse", path).exit_code == 0
    data = bytearray(path.read_bytes())
    data[20000:20400] = b"\xAA" * 400
    path.write_bytes(bytes(data))
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 3
    assert "Traceback" not in result.output
