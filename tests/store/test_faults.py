"""Faults injected into the writers (docs/reliability.md): a statement that raises at step k of
ingest, eval --store, the removal of a replaced run (--replace) and the schema upgrade leaves
the warehouse as it was before (or, for a fault after the COMMIT, as after) and ends in one line
with exit code 3; a full disk (a tiny tmpfs, as root) and an I/O error end the same way, and the
space is given back by `irw compact`."""

from __future__ import annotations

import errno
import gzip
import shutil
import subprocess

import duckdb
import pytest

from tests.helpers.faults import faulty_warehouse, irw, mounted_tmpfs, one_line, state
from tests.helpers.paths import DATA, TEST_DATA

QRELS = DATA / "qrels.test"
GRADED = DATA / "qrels.rel_level"
RUN = DATA / "runs" / "STANDARD.results.test"
OLD_WAREHOUSE = TEST_DATA / "warehouses" / "491a821_sample.duckdb.gz"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A warehouse with campaign c: qrels `binary`, run STANDARD and its stored nDCG."""
    path = tmp_path_factory.mktemp("faults") / "base.duckdb"
    for args in (("ingest", "qrels", QRELS, "--campaign", "c", "--name", "binary"),
                 ("ingest", "run", RUN, "--campaign", "c"),
                 ("eval", "--campaign", "c", "-m", "ndcg", "--store")):
        result = irw(*args, "--warehouse", path)
        assert result.exit_code == 0, result.output
    return path


def _sweep(monkeypatch, tmp_path, source, args, steps=None):
    """Run `irw ARGS --warehouse COPY` once cleanly to count its statements, then once per
    step k with statement k failing; every faulty run must end in one line with exit code 1
    (an input file that cannot be read) or 3 and leave the warehouse as before (a fault before
    the COMMIT) or as after (a fault after it; exit code 0 only if the command could do
    without the failed lookup and finished). Returns (number of statements, faults
    injected)."""
    clean = tmp_path / "clean.duckdb"
    shutil.copy(source, clean)
    before = state(clean)
    with faulty_warehouse(monkeypatch, clean, None) as log:
        result = irw(*args, "--warehouse", clean)
    assert result.exit_code == 0, result.output
    after = state(clean)
    assert after != before
    commits = [i for i, text in enumerate(log) if text.upper().startswith("COMMIT")]
    assert commits, log
    chosen = range(len(log)) if steps is None else sorted(set(steps(len(log), commits)))
    for k in chosen:
        copy = tmp_path / f"k{k}.duckdb"
        shutil.copy(source, copy)
        with faulty_warehouse(monkeypatch, copy, k):
            result = irw(*args, "--warehouse", copy)
        now = state(copy)
        if result.exit_code == 0:       # a fault in a lookup the code can do without
            assert k > commits[0] and now == after, (k, log[k], result.output)
            continue
        assert result.exit_code in (1, 3), (k, log[k], result.output)
        line = one_line(result)
        assert "injected fault" in line, line
        if k <= commits[0]:
            assert now == before, (k, log[k], line)
        else:
            assert now in (before, after), (k, log[k], line)
        copy.unlink()
        for wal in tmp_path.glob("*.wal"):
            wal.unlink()
    return len(log), len(chosen)


def _spread(n: int, commits: list[int]) -> list[int]:
    """Eight steps spread over the statements, and those around each COMMIT."""
    return [i * (n - 1) // 7 for i in range(8)] + \
        [k + d for k in commits for d in (-1, 0, 1) if 0 <= k + d < n]


INGEST_RUN = ("ingest", "run", DATA / "runs" / "STANDARD.results.test", "--campaign", "c",
              "--name", "second")
REPLACE_QRELS = ("ingest", "qrels", GRADED, "--campaign", "c", "--name", "binary", "--replace")
EVAL_STORE = ("eval", "--campaign", "c", "--qrels", "binary", "-m", "map", "-m", "P.10",
              "--store")
RM_RUN = ("rm", "run", "STANDARD", "--campaign", "c")
SWEEPS = [INGEST_RUN, REPLACE_QRELS, EVAL_STORE, RM_RUN]
SWEEP_IDS = ["ingest", "replace", "eval-store", "rm"]


@pytest.mark.parametrize("args", SWEEPS, ids=SWEEP_IDS)
def test_a_fault_at_any_step_leaves_all_or_nothing(monkeypatch, tmp_path, base, args):
    statements, faults = _sweep(monkeypatch, tmp_path, base, args, steps=_spread)
    assert faults >= 8 and statements > 8


@pytest.mark.slow
@pytest.mark.parametrize("args", SWEEPS, ids=SWEEP_IDS)
def test_a_fault_at_every_step_leaves_all_or_nothing(monkeypatch, tmp_path, base, args):
    statements, faults = _sweep(monkeypatch, tmp_path, base, args)
    assert faults == statements


def _old_warehouse(tmp_path):
    path = tmp_path / "old.duckdb"
    path.write_bytes(gzip.decompress(OLD_WAREHOUSE.read_bytes()))
    return path


@pytest.mark.slow
def test_a_fault_during_the_schema_upgrade_leaves_the_old_file(monkeypatch, tmp_path):
    """The upgrade of a warehouse made by the previous release (commit 491a821) is one
    transaction: a fault at any of its steps (sampled) leaves the file as it was."""
    source = _old_warehouse(tmp_path)
    statements, faults = _sweep(monkeypatch, tmp_path, source, ("init",),
                                steps=lambda n, commits: [i * (n - 1) // 11 for i in range(12)]
                                + commits)
    assert statements > 50 and faults >= 12


def test_the_previous_release_is_upgraded_and_checks_clean(tmp_path):
    path = _old_warehouse(tmp_path)
    con = duckdb.connect(str(path), read_only=True)
    runs = con.execute("SELECT name, num_rows FROM run ORDER BY name").fetchall()
    scores = con.execute("SELECT count(*) FROM score").fetchone()[0]
    con.close()
    assert irw("init", "--warehouse", path).exit_code == 0
    result = irw("check", "--warehouse", path)
    assert result.exit_code == 0, result.output
    assert "schema: up to date" in result.stdout and "match the digests" in result.stdout
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT name, num_rows FROM run ORDER BY name").fetchall() == runs
    assert con.execute("SELECT count(*) FROM score").fetchone()[0] == scores
    con.close()
    again = irw("eval", "--campaign", "sample", "--qrels", "binary", "-m", "map",
                "--warehouse", path)
    assert again.exit_code == 0 and "map" in again.stdout


# -- I/O errors and a full disk -------------------------------------------------------------------
def test_an_io_error_reading_a_run_is_one_line(monkeypatch, tmp_path, base):
    from irwarehouse.formats import trec

    def failing(path):
        raise OSError(errno.EIO, "Input/output error", str(path))
    copy = tmp_path / "w.duckdb"
    shutil.copy(base, copy)
    before = state(copy)
    monkeypatch.setattr(trec, "_open_text", failing)
    result = irw(*INGEST_RUN, "--warehouse", copy)
    assert result.exit_code in (1, 3)
    assert "Input/output error" in one_line(result)
    assert state(copy) == before


@pytest.fixture
def tiny_disk(tmp_path):
    """A 4 MB tmpfs (root only: skipped otherwise), unmounted at the end."""
    with mounted_tmpfs(tmp_path / "disk", "4m") as folder:
        yield folder


def _big_run(path, rows: int = 60_000) -> None:
    with open(path, "w") as f:
        f.writelines(f"{i % 50} Q0 doc{i:07d}x{i * 7919 % 100003} {i // 50 + 1} {-i} big\n"
                     for i in range(rows))


def test_a_full_disk_is_one_line_and_compact_gives_the_space_back(tmp_path, tiny_disk):
    warehouse = tiny_disk / "w.duckdb"
    ok = irw("init", "--warehouse", warehouse)
    assert ok.exit_code == 0, ok.output
    size_before = warehouse.stat().st_size
    before = state(warehouse)
    big = tmp_path / "big.run"
    _big_run(big)
    result = irw("ingest", "run", big, "--campaign", "c", "--warehouse", warehouse)
    assert result.exit_code == 3, result.output
    line = one_line(result)
    assert "No space left on device" in line and "irw compact" in line, line
    # give the disk room, then: the warehouse is as it was, its log is cleaned up, and compact
    # gives the space back
    subprocess.run(["mount", "-o", "remount,size=64m", str(tiny_disk)], check=True)
    if "committed" in line:             # the COMMIT went through, the checkpoint did not
        assert state(warehouse) != before
    else:
        assert state(warehouse) == before
    compacted = irw("compact", "--warehouse", warehouse)
    assert compacted.exit_code == 0, compacted.output
    assert not (tiny_disk / "w.duckdb.wal").exists()
    if "committed" not in line:
        assert warehouse.stat().st_size <= size_before * 1.2 + 2**20
    checked = irw("check", "--warehouse", warehouse)
    assert checked.exit_code == 0, checked.output


def test_a_failed_checkpoint_is_reported_not_swallowed(monkeypatch, tmp_path, base):
    """The COMMIT went through, the CHECKPOINT at close failed (disk full): one line saying
    the changes are committed and kept in the log, exit code 3; the next open applies them."""
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(base.read_bytes())
    with faulty_warehouse(monkeypatch, copy, None) as log:
        assert irw(*INGEST_RUN, "--warehouse", copy).exit_code == 0
    step = max(i for i, text in enumerate(log) if text.upper() == "CHECKPOINT")
    copy.write_bytes(base.read_bytes())
    full = duckdb.IOException('Could not write file "w.duckdb": No space left on device')
    with faulty_warehouse(monkeypatch, copy, step, full):
        result = irw(*INGEST_RUN, "--warehouse", copy)
    assert result.exit_code == 3
    line = one_line(result)
    assert "the changes are committed" in line and "irw compact" in line, line
    runs = irw("sql", "SELECT name FROM run ORDER BY name", "--warehouse", copy)
    assert "second" in runs.stdout
