"""Any DuckDB client the analyst has (issue 35, item 4): a warehouse irw makes opens in the
newest DuckDB 1.x (the `duckdb-cli` package of the test extra: DuckDB's own 1.x command-line
client, a separate program beside the duckdb 2 Python module), whose metric macros give the same
values as DuckDB 2's, and which agree with trec_eval; a warehouse made in DuckDB 2's format
keeps working and `irw export warehouse --duckdb-version 1.x` copies it into one 1.x opens."""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
from pathlib import Path

import duckdb
import pytest

from irwarehouse.api import Warehouse
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA
from tests.helpers.sample import derived_runs


@pytest.fixture(scope="module")
def duckdb1() -> Path:
    """The DuckDB 1.x command-line client of the `duckdb-cli` package."""
    spec = importlib.util.find_spec("duckdb_cli")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("duckdb-cli is not installed (pip install -e '.[test]')")
    binary = Path(next(iter(spec.submodule_search_locations))) / "duckdb"
    version = subprocess.run([binary, "-csv", "-noheader", "-c", "SELECT version()"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version.startswith("v1."), version
    return binary


def cli(binary: Path, db: Path, sql: str) -> subprocess.CompletedProcess:
    """`duckdb -readonly DB` reading `sql` from standard input, as an analyst's 1.x client."""
    return subprocess.run([binary, "-readonly", "-csv", str(db)], input=sql,
                          capture_output=True, text=True, timeout=300)


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.splitlines()))


def storage(path: Path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT tags['storage_version'] FROM duckdb_databases() "
                           "WHERE database_name = current_database()").fetchone()[0]
    finally:
        con.close()


def trec_eval_value(path: Path, measure: str) -> float:
    """The `all` line of `measure` in a trec_eval output file."""
    for line in path.read_text().splitlines():
        name, topic, value = line.split()
        if name == measure and topic == "all":
            return float(value)
    raise AssertionError(f"{measure} not in {path}")


@pytest.mark.realdata
def test_robust_2003_warehouse_in_duckdb_1x(duckdb1, realdata, tmp_path):
    robust = realdata / "trec2003_robust"
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(robust / "qrels" / "robust03_qrels.txt", "robust03")
        wh.ingest_run(robust / "runs" / "input.InexpC2.gz", "robust03")
        wh.evaluate(["map", "P.10"], campaign="robust03", store=True)
    assert storage(path) == "v1.5.0+"

    done = cli(duckdb1, path, """
        SELECT measure, macro FROM measure_catalog WHERE measure IN ('map', 'P', 'ndcg_cut')
            ORDER BY measure;
        SELECT count(*) FROM measure_catalog;
        SELECT round(avg(value), 4) FROM irw_map('robust03');
        SELECT round(avg(value), 4) FROM irw_P('robust03', cutoff := 10);
        SELECT round(avg(value), 4) FROM irw_ndcg_cut('robust03', cutoff := 10);
        SELECT measure, mean FROM run_score WHERE measure = 'map';
        SELECT version();
    """)
    assert done.returncode == 0, done.stderr
    out = rows(done.stdout)
    expected = robust / "expected_trec_eval" / "InexpC2.all_trec.txt"
    with duckdb.connect(str(path), read_only=True) as con:
        catalog = con.execute("SELECT count(*) FROM measure_catalog").fetchone()[0]
        mean = con.execute("SELECT mean FROM run_score WHERE measure = 'map'").fetchone()[0]
    assert out[:4] == [["measure", "macro"], ["P", "irw_P"], ["map", "irw_map"],
                       ["ndcg_cut", "irw_ndcg_cut"]]
    assert out[5] == [str(catalog)] and catalog > 150
    assert float(out[7][0]) == trec_eval_value(expected, "map")
    assert float(out[9][0]) == trec_eval_value(expected, "P_10")
    assert float(out[11][0]) == trec_eval_value(expected, "ndcg_cut_10")
    assert out[13] == ["map", repr(mean)]          # the stored scores, the same bits
    assert out[15][0].startswith("v1.")


def test_the_metric_macros_give_duckdb_2s_values(duckdb1, tmp_path):
    """The macros of the catalog, called on a small campaign, write the same CSV from DuckDB 1.x
    as from DuckDB 2: the first macro of each SQL file that answers there (those that fail
    under DuckDB 2 too, for want of diversity qrels, sessions or texts, are left out; every macro
    is parsed by 1.x, since the file opened). Planning a macro costs 0.1-0.3 s in either
    DuckDB, so the whole catalog (153 macros answer here; all gave the same bits on 2026-11-27)
    is for IRW_CLIENTS_ALL=1."""
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.rel_level", "c")
        wh.ingest_run(DATA / "runs" / "STANDARD.results.test", "c")
        for run in derived_runs(tmp_path, n=2):
            wh.ingest_run(run, "c")
        catalog = wh.con.execute("SELECT DISTINCT sql_file, macro FROM measure_catalog "
                                 "ORDER BY sql_file, macro").fetchall()
    new, old = tmp_path / "2", tmp_path / "1"
    new.mkdir(), old.mkdir()
    answered, files = [], set()
    every = os.environ.get("IRW_CLIENTS_ALL") == "1"
    with duckdb.connect(str(path), read_only=True) as con:
        for sql_file, m in catalog:
            if sql_file in files and not every:
                continue
            try:
                con.execute(f"COPY (SELECT * FROM {m}('c') ORDER BY ALL) TO '{new / m}.csv'")
            except duckdb.Error:
                continue
            answered.append(m)
            files.add(sql_file)
    script = "".join(f"COPY (SELECT * FROM {m}('c') ORDER BY ALL) TO '{old / m}.csv';\n"
                     for m in answered)
    done = cli(duckdb1, path, script)
    assert done.returncode == 0, done.stderr
    assert len(files) >= 25                     # the ad hoc measures' files at least
    differ = [m for m in answered
              if (old / f"{m}.csv").read_bytes() != (new / f"{m}.csv").read_bytes()]
    assert differ == []


def test_a_duckdb_2_warehouse_keeps_working_and_exports_for_1x(duckdb1, tmp_path):
    old = tmp_path / "old.duckdb"
    # a warehouse made before irw wrote 1.x's format: DuckDB 2's own default
    duckdb.connect(str(old), config={"storage_compatibility_version": "latest"}).close()
    for args in (("init",), ("ingest", "qrels", DATA / "qrels.test", "-C", "c"),
                 ("ingest", "run", DATA / "runs" / "STANDARD.results.test", "-C", "c"),
                 ("eval", "-C", "c", "-m", "map", "--store")):
        result = irw(*args, "-w", old)
        assert result.exit_code == 0, result.stderr
    assert "only DuckDB 2 and later open it" in irw("init", "-w", old).stdout
    assert storage(old) == "v2.0.0+"                        # an open never rewrites it
    refused = cli(duckdb1, old, "SELECT 1;")
    assert refused.returncode != 0 and "version" in refused.stderr

    new = tmp_path / "for-1x.duckdb"
    result = irw("export", "warehouse", "--duckdb-version", "1.x", new, "-w", old)
    assert result.exit_code == 0, result.stderr
    assert storage(new) == "v1.5.0+" and storage(old) == "v2.0.0+"
    with duckdb.connect(str(old), read_only=True) as con:
        want = con.execute("SELECT topic, value FROM irw_map('c') ORDER BY topic").fetchall()
    done = cli(duckdb1, new, "SELECT topic, value FROM irw_map('c') ORDER BY topic;")
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout)[1:] == [[t, repr(v)] for t, v in want]

    # the copy is a warehouse like any other: irw writes to it and it keeps 1.x's format
    result = irw("ingest", "run", DATA / "runs" / "STANDARD.results.trunc", "-C", "c",
                 "--name", "trunc", "-w", new)
    assert result.exit_code == 0, result.stderr
    assert irw("check", "-w", new).exit_code == 0
    assert irw("compact", "-w", new).exit_code == 0
    assert storage(new) == "v1.5.0+"
    assert irw("compact", "-w", old).exit_code == 0
    assert storage(old) == "v2.0.0+"                        # compact keeps each one's format

    before = new.read_bytes()
    again = irw("export", "warehouse", new, "-w", old)
    assert again.exit_code == 1 and "--replace" in one_line(again)
    assert new.read_bytes() == before
    bad = irw("export", "warehouse", "--duckdb-version", "0.9", tmp_path / "x.duckdb",
              "-w", old)
    assert bad.exit_code != 0 and not (tmp_path / "x.duckdb").exists()
    assert irw("export", "warehouse", "--replace", "--duckdb-version", "2.x", new,
               "-w", old).exit_code == 0
    assert storage(new) == "v2.0.0+"

    # a warehouse whose macros are older than this irw's: refused, the copy would keep them
    with duckdb.connect(str(old)) as con:
        con.execute("UPDATE irw_meta SET value = 'older' WHERE key = 'sql_sha256'")
    stale = irw("export", "warehouse", "--replace", new, "-w", old)
    assert stale.exit_code == 1 and "`irw init`" in one_line(stale)
    assert storage(new) == "v2.0.0+"


def test_new_warehouses_say_who_opens_them(tmp_path):
    result = irw("init", "-w", tmp_path / "w.duckdb")
    assert result.exit_code == 0
    assert "DuckDB storage v1.5.0: DuckDB 1.5 and later open it" in result.stdout


def test_a_plain_duckdb_connection_shares_an_open_warehouse(tmp_path):
    """Only the creation carries the storage setting: a notebook's duckdb.connect(path) beside
    an open Warehouse is the same database, not "a different configuration" error."""
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.test", "c")
        con = duckdb.connect(str(path))
        assert con.execute("SELECT count(*) FROM campaign").fetchone() == (1,)
        con.close()
    assert storage(path) == "v1.5.0+"
