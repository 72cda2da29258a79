"""`irw sql`: one read-only query, nothing else; the warehouse is unchanged afterwards."""

from __future__ import annotations

import hashlib

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.query import run_sql
from irwarehouse.analyst.sqlguard import QueryRefused, check_query
from irwarehouse.cli import app

ALLOWED = [
    "SELECT 1",
    "select * from run_score",
    "FROM run_info",
    "WITH a AS (SELECT 1 AS x) SELECT * FROM a",
    "VALUES (1), (2)",
    "DESCRIBE run",
    "SHOW TABLES",
    "SUMMARIZE run",
    "SELECT 1 UNION ALL SELECT 2",
    "SELECT split_part(source_path, '/', -1) FROM run",   # a '/' in a string is fine
    "SELECT 1 -- a comment; DROP TABLE run",              # the DROP is inside the comment
    "SELECT 1; ",                                         # a trailing semicolon
    "SELECT 1 /* /* nested */ ; DROP TABLE run */",       # DuckDB nests block comments
    "SELECT $$ ; DROP TABLE run $$",                      # a dollar-quoted string
    "SELECT * FROM run_info WHERE run = 'a;DROP TABLE run'",
]

REFUSED = {
    "DROP TABLE run": "DROP",
    "COPY run TO '/tmp/x.csv'": "COPY",
    "COPY (SELECT 1) TO '/tmp/x.parquet' (FORMAT parquet)": "COPY",
    "ATTACH 'x.db' AS x": "ATTACH",
    "DETACH x": "DETACH",
    "SELECT * FROM read_csv('/etc/passwd')": "read_csv",
    "SELECT * FROM read_csv_auto('/etc/passwd')": "read_csv_auto",
    "SELECT * FROM read_parquet('s3://bucket/x.parquet')": "read_parquet",
    "SELECT * FROM read_json('x.json')": "read_json",
    "SELECT * FROM read_text('/etc/passwd')": "read_text",
    "SELECT * FROM read_blob('/etc/passwd')": "read_blob",
    "SELECT * FROM glob('/*')": "glob",
    "SELECT * FROM sniff_csv('/etc/passwd')": "sniff_csv",
    "SELECT * FROM parquet_scan('x.parquet')": "parquet_scan",
    "SELECT * FROM query('DROP TABLE run')": "query",
    "SELECT * FROM query_table('run')": "query_table",
    "SELECT * FROM '/etc/passwd'": "/etc/passwd",
    "SELECT * FROM 'data.csv'": "data.csv",
    "SELECT * FROM \"https://example.org/x.parquet\"": "https://",
    "SELECT getenv('HOME')": "getenv",
    "SELECT * FROM (SELECT * FROM read_csv('/etc/passwd'))": "read_csv",
    "SELECT (SELECT count(*) FROM read_csv('/etc/passwd'))": "read_csv",
    "SELECT 1; DROP TABLE run": "2 statements",
    "SELECT 1 /* hidden */; DROP TABLE run": "2 statements",
    "SELECT 1 -- hidden\n; DROP TABLE run": "2 statements",
    "/* SELECT 1; */ DROP TABLE run": "DROP",
    "SELECT 1 /* /* nested */ */; DROP TABLE run": "2 statements",
    "WITH x AS (DELETE FROM run RETURNING *) SELECT * FROM x": "DELETE",
    "SELECT * FROM duckdb_secrets()": "duckdb_secrets",
    "INSTALL httpfs": "INSTALL",
    "LOAD httpfs": "LOAD",
    "PRAGMA show_tables": "PRAGMA",
    "PRAGMA enable_profiling": "PRAGMA",
    "SET enable_external_access = true": "SET",
    "CALL pragma_version()": "CALL",
    "EXPORT DATABASE '/tmp/irw_export'": "EXPORT",
    "IMPORT DATABASE '/tmp/irw_export'": "IMPORT",
    "CREATE TABLE x AS SELECT 1": "CREATE",
    "CREATE MACRO m(x) AS x + 1": "CREATE",
    "INSERT INTO campaign (name) VALUES ('x')": "INSERT",
    "UPDATE run SET name = 'x'": "UPDATE",
    "DELETE FROM score": "DELETE",
    "BEGIN TRANSACTION": "BEGIN",
    "CHECKPOINT": "CHECKPOINT",
    "USE memory": "USE",
    "EXPLAIN DELETE FROM run": "DELETE",        # EXPLAIN of a read-only query is allowed
    "": "empty",
}


@pytest.mark.parametrize("text", ALLOWED)
def test_read_only_queries_pass(text):
    check_query(text)


@pytest.mark.parametrize("text,why", list(REFUSED.items()))
def test_refused_with_a_one_line_reason(text, why):
    with pytest.raises(QueryRefused) as info:
        check_query(text)
    message = str(info.value)
    assert "\n" not in message
    assert why.lower() in message.lower()


def _state(path):
    from irwarehouse.store.connection import connect
    con = connect(path, read_only=True)
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("campaign", "run", "run_row", "qrels", "judgment", "score")}
    con.close()
    return counts


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cli_refuses_and_leaves_the_warehouse_unchanged(sample_warehouse, tmp_path):
    before_hash, before_counts = _digest(sample_warehouse), _state(sample_warehouse)
    runner = CliRunner()
    for text in REFUSED:
        if not text:
            continue
        result = runner.invoke(app, ["sql", "-w", str(sample_warehouse), text])
        assert result.exit_code == 1, (text, result.output)
        assert "refused" in result.output
    assert not (tmp_path / "x.csv").exists()
    # a permitted query does not touch the file either (read-only connection)
    result = runner.invoke(app, ["sql", "-w", str(sample_warehouse), "SELECT count(*) FROM run"])
    assert result.exit_code == 0, result.output
    assert _digest(sample_warehouse) == before_hash
    assert _state(sample_warehouse) == before_counts


def test_second_wall_blocks_files_even_without_the_guard(sample_warehouse):
    """The locked connection refuses file access by itself (the guard is not the only wall)."""
    import duckdb

    from irwarehouse.analyst.query import open_guarded
    con = open_guarded(sample_warehouse)
    try:
        with pytest.raises(duckdb.Error):
            con.execute("SELECT * FROM read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
        with pytest.raises(duckdb.Error):
            con.execute("DROP TABLE run")
    finally:
        con.close()


def test_query_file_and_formats(sample_warehouse, tmp_path):
    import json

    import pyarrow.parquet as pq
    query = tmp_path / "q.sql"
    query.write_text("-- runs of the sample\nSELECT run, team FROM run_info ORDER BY run\n")
    runner = CliRunner()
    base = ["sql", "-w", str(sample_warehouse)]
    table = runner.invoke(app, base + ["-f", str(query)])
    assert table.exit_code == 0, table.output
    assert table.output.splitlines()[0].split() == ["run", "team"]
    assert "(4 rows)" in table.output
    csv = runner.invoke(app, base + ["-f", str(query), "--format", "csv"])
    assert csv.output.splitlines()[:2] == ['"run","team"', '"STANDARD","STANDARD"']
    rows = json.loads(runner.invoke(app, base + ["-f", str(query), "--format", "json"]).output)
    assert [r["run"] for r in rows] == ["STANDARD", "sys1", "sys2", "sys3"]
    out = tmp_path / "runs.parquet"
    res = runner.invoke(app, base + ["-f", str(query), "--format", "parquet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert pq.read_table(out).num_rows == 4
    res = runner.invoke(app, base + ["SELECT 1", "--format", "parquet"])
    assert res.exit_code == 1 and "--out" in res.output


def test_table_output_truncates_rows_and_cells(sample_warehouse):
    from irwarehouse.analyst.query import table_text
    result = run_sql(sample_warehouse, "SELECT topic, repeat('x', 100) AS long FROM topic_score")
    text = table_text(result, max_rows=5, max_width=20)
    lines = text.splitlines()
    assert len(lines) == 2 + 5 + 1
    assert all(len(line) <= 60 for line in lines)
    assert "not shown" in lines[-1]


def test_write_flag_allows_changes(sample_warehouse):
    run_sql(sample_warehouse, "CREATE TABLE note AS SELECT 'hello' AS text", write=True)
    assert run_sql(sample_warehouse, "SELECT * FROM note").to_pylist() == [{"text": "hello"}]


def test_missing_analyst_view_names_the_fix(sample_warehouse):
    from irwarehouse.errors import IrwError
    run_sql(sample_warehouse, "DROP VIEW campaign_measure", write=True)   # as an older file
    with pytest.raises(IrwError, match=r"irw init -w FILE"):
        run_sql(sample_warehouse, "SELECT * FROM campaign_measure")
    with pytest.raises(IrwError) as info:
        run_sql(sample_warehouse, "SELECT * FROM nosuch")
    assert "irw init" not in str(info.value)


def test_results_are_streamed_in_batches(sample_warehouse, tmp_path):
    """A result larger than one Arrow batch: the table shows the first rows without reading
    (or counting) the rest; CSV and JSON files hold every row once, with one header."""
    import json

    runner = CliRunner()
    base = ["sql", "-w", str(sample_warehouse),
            "SELECT range AS i, range / 7 AS x FROM range(250000)"]
    table = runner.invoke(app, base + ["--max-rows", "2"])
    assert table.exit_code == 0, table.output
    assert table.output.splitlines()[-1] == "(first 2 rows; more not counted: use --format csv " \
                                            "or --max-rows)"
    csv_path, json_path = tmp_path / "x.csv", tmp_path / "x.json"
    assert runner.invoke(app, base + ["--format", "csv", "--out", str(csv_path)]).exit_code == 0
    lines = csv_path.read_text().splitlines()
    assert lines[0] == '"i","x"' and len(lines) == 250001 and lines[-1].startswith("249999,")
    assert runner.invoke(app, base + ["--format", "json", "--out", str(json_path)]).exit_code == 0
    rows = json.loads(json_path.read_text())
    assert len(rows) == 250000 and rows[7] == {"i": 7, "x": 1.0}
    nan = run_sql(sample_warehouse, "SELECT 'nan'::DOUBLE AS v")
    import io

    from irwarehouse.analyst.query import write_result
    buf = io.StringIO()
    write_result(nan, "json", stream=buf)
    assert json.loads(buf.getvalue()) == [{"v": None}]


def test_query_from_standard_input(sample_warehouse):
    res = CliRunner().invoke(app, ["sql", "-w", str(sample_warehouse), "-", "--format", "csv"],
                             input="SELECT count(*) AS n FROM run\n")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == ['"n"', "4"]
    res = CliRunner().invoke(app, ["sql", "-w", str(sample_warehouse), "-"],
                             input="SELECT 1; DROP TABLE run")
    assert res.exit_code == 1 and "2 statements" in res.output
