"""`irw sql` with two result columns of one name (issue 19, item 3): `r.name, c.name` printed
the campaign name twice, and `--format json` dropped a column. Every format keeps both: the
table as DuckDB's client (both headed `name`), the others as DuckDB names a file's columns
(`name`, `name_1`), with a note on stderr."""

import csv
import io
import json

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.query import unique_names
from irwarehouse.cli import app

QUERY = ("SELECT r.name, c.name FROM run r JOIN campaign c USING (campaign_id) "
         "ORDER BY r.name LIMIT 3")


def _sql(warehouse, *args):
    result = CliRunner().invoke(app, ["sql", QUERY, "-w", str(warehouse), *args])
    assert result.exit_code == 0, result.output
    return result


def _expected(warehouse):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return [list(r) for r in con.execute(QUERY).fetchall()]
    finally:
        con.close()


def test_table_shows_both_columns(sample_warehouse):
    rows = _expected(sample_warehouse)
    assert all(run != campaign for run, campaign in rows)
    lines = _sql(sample_warehouse).stdout.splitlines()
    assert lines[0].split() == ["name", "name"]
    assert [line.split() for line in lines[2:5]] == rows


def test_json_keeps_both_columns_renamed(sample_warehouse):
    result = _sql(sample_warehouse, "--format", "json")
    got = json.loads(result.stdout)
    assert [[r["name"], r["name_1"]] for r in got] == _expected(sample_warehouse)
    assert "name -> name_1" in result.stderr


def test_csv_keeps_both_columns_renamed(sample_warehouse):
    result = _sql(sample_warehouse, "--format", "csv")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["name", "name_1"]
    assert rows[1:] == _expected(sample_warehouse)
    assert "name_1" in result.stderr


def test_parquet_keeps_both_columns_renamed(sample_warehouse, tmp_path):
    out = tmp_path / "r.parquet"
    _sql(sample_warehouse, "--format", "parquet", "-o", str(out))
    table = pq.read_table(out)
    assert table.column_names == ["name", "name_1"]
    assert [list(r.values()) for r in table.to_pylist()] == _expected(sample_warehouse)


def test_unique_names_as_duckdb():
    names = ["a", "a", "a_1", "A", "a"]
    con = duckdb.connect()
    cols = ", ".join(f'{i} AS "{n}"' for i, n in enumerate(names))
    assert unique_names(names) == con.sql(f"SELECT * FROM (SELECT {cols})").columns
    assert unique_names(["a_1", "a", "a"]) == ["a_1", "a", "a_2"]
    assert unique_names(["x", "y"]) == ["x", "y"]


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_distinct_names_get_no_note(sample_warehouse, fmt):
    result = CliRunner().invoke(app, ["sql", "SELECT name FROM run LIMIT 1", "-w",
                                      str(sample_warehouse), "--format", fmt])
    assert result.exit_code == 0 and "note" not in result.stderr
