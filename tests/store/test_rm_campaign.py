"""`irw rm campaign C` (issue 19, item 8): deleting a campaign by hand with `irw sql --write`
left 8,060 orphan run_row rows. The command removes every row of the campaign in one
transaction: no table keeps a row that points at a removed campaign, run, qrels, pool or
interleaving, and the other campaign keeps all of its rows."""

from __future__ import annotations

import duckdb
import pytest

from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA

RUN = DATA / "runs" / "STANDARD.results.test"
# tables that belong to no campaign
GLOBAL = {"irw_meta", "measure_catalog", "irw_digest"}
# the ids rows hang on and the table that owns each
OWNERS = {"campaign_id": "campaign", "run_id": "run", "qrels_id": "qrels", "pool_id": "pool",
          "interleaving_id": "interleaving"}


def _tables(con) -> dict[str, dict[str, str]]:
    """table -> {column: type} of the warehouse's tables."""
    out: dict[str, dict[str, str]] = {}
    for table, column, kind in con.execute("""
            SELECT c.table_name, c.column_name, c.data_type
            FROM duckdb_columns() c JOIN duckdb_tables() t USING (database_name, schema_name,
                                                                   table_name)
            WHERE c.schema_name = 'main' AND NOT t.temporary
            ORDER BY c.table_name, c.column_index""").fetchall():
        out.setdefault(table, {})[column] = kind
    return out


def _owned(table: str, columns) -> str | None:
    """SQL condition: the row belongs to campaign $cid (named $name); None for GLOBAL."""
    if table == "campaign":
        return "campaign_id = $cid"
    if table == "significance":
        return "campaign = $name"
    if table == "text_token":
        return ("(source = 'run' AND owner_id IN (SELECT run_id FROM run WHERE campaign_id = "
                "$cid)) OR (source IN ('ref', 'nugget') AND owner_id IN (SELECT qrels_id FROM "
                "qrels WHERE campaign_id = $cid))")
    if "campaign_id" in columns:
        return "campaign_id = $cid"
    for key, owner in OWNERS.items():
        if key in columns:
            return f"{key} IN (SELECT {key} FROM {owner} WHERE campaign_id = $cid)"
    return None


def _orphans(con, table: str, columns) -> int:
    checks = [f"({key} IS NOT NULL AND {key} NOT IN (SELECT {key} FROM {owner}))"
              for key, owner in OWNERS.items() if key in columns and table != owner]
    if table == "significance":
        checks.append("campaign NOT IN (SELECT name FROM campaign)")
    if table == "text_token":
        checks.append("(source = 'run' AND owner_id NOT IN (SELECT run_id FROM run)) OR "
                      "(source <> 'run' AND owner_id NOT IN (SELECT qrels_id FROM qrels))")
    if not checks:
        return 0
    return con.execute(f'SELECT count(*) FROM "{table}" WHERE {" OR ".join(checks)}'
                       ).fetchone()[0]


def _value(column: str, kind: str, ids: dict, name: str):
    if column in ids:
        return ids[column]
    if column == "campaign":
        return name
    if column == "source":
        return "run"
    if column == "owner_id":
        return ids["run_id"]
    if kind.endswith("[]"):
        return []
    if kind.startswith("MAP("):
        return {}
    if kind in ("INTEGER", "BIGINT", "DOUBLE", "FLOAT"):
        return 0
    if kind == "BOOLEAN":
        return False
    if kind.startswith("TIMESTAMP"):
        return "2024-01-01 00:00:00"
    return f"x{len(column)}"


def _fill(con, campaign: str, serial: int) -> None:
    """One row in every table that has none of `campaign` yet (pools and interleavings first,
    so that their rows hang on them): a change of schema that adds a table is covered."""
    cid = con.execute("SELECT campaign_id FROM campaign WHERE name = ?", [campaign]).fetchone()[0]
    ids = {"campaign_id": cid,
           "run_id": con.execute("SELECT min(run_id) FROM run WHERE campaign_id = ?",
                                 [cid]).fetchone()[0],
           "qrels_id": con.execute("SELECT min(qrels_id) FROM qrels WHERE campaign_id = ?",
                                   [cid]).fetchone()[0],
           "pool_id": 100 + serial, "interleaving_id": 100 + serial}
    tables = _tables(con)
    order = ["pool", "interleaving"] + sorted(t for t in tables if t not in
                                              ("pool", "interleaving"))
    for table in order:
        columns = tables[table]
        where = _owned(table, columns)
        if where is None or table in ("campaign", "run", "qrels"):
            continue
        if con.execute(f'SELECT count(*) FROM "{table}" WHERE {where}',
                       _params(where, cid, campaign)).fetchone()[0]:
            continue
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join("?" for _ in columns)
        con.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})',
                    [_value(c, k, ids, campaign) for c, k in columns.items()])


def _params(where, cid, name):
    """The parameters `where` uses (DuckDB refuses unused ones)."""
    return {k: v for k, v in (("cid", cid), ("name", name)) if f"${k}" in where}


@pytest.fixture(scope="module")
def two_campaigns_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("two") / "w.duckdb"
    for campaign in ("gone", "kept"):
        for args in (("ingest", "qrels", DATA / "qrels.test", "-C", campaign),
                     ("ingest", "run", RUN, "-C", campaign),
                     ("ingest", "run", RUN, "-C", campaign, "--name", "other"),
                     ("eval", "--campaign", campaign, "-m", "map", "-m", "P.10", "--store"),
                     ("compare", "-C", campaign, "-m", "map", "--test", "t", "--store")):
            result = irw(*args, "--warehouse", path)
            assert result.exit_code == 0, (args, result.output)
    con = duckdb.connect(str(path))
    for serial, campaign in enumerate(("gone", "kept")):
        _fill(con, campaign, serial)
    con.close()
    return path


@pytest.fixture
def two_campaigns(two_campaigns_template, tmp_path):
    """A private copy (the tests remove and damage it)."""
    import shutil
    path = tmp_path / "w.duckdb"
    shutil.copy(two_campaigns_template, path)
    return path


def test_rm_campaign_leaves_no_orphans(two_campaigns):
    path = two_campaigns
    con = duckdb.connect(str(path), read_only=True)
    tables = _tables(con)
    unknown = {t for t, cols in tables.items() if _owned(t, cols) is None} - GLOBAL
    assert not unknown, f"tables that hang on no campaign: {unknown} (extend this test)"
    kept_cid = con.execute("SELECT campaign_id FROM campaign WHERE name = 'kept'").fetchone()[0]
    gone_cid = con.execute("SELECT campaign_id FROM campaign WHERE name = 'gone'").fetchone()[0]
    before = {}
    for table, cols in tables.items():
        where = _owned(table, cols)
        if where:
            before[table] = con.execute(f'SELECT count(*) FROM "{table}" WHERE {where}',
                                        _params(where, kept_cid, "kept")).fetchone()[0]
            gone = con.execute(f'SELECT count(*) FROM "{table}" WHERE {where}',
                               _params(where, gone_cid, "gone")).fetchone()[0]
            assert gone > 0 and before[table] > 0, table     # every table is exercised
    con.close()

    result = irw("rm", "campaign", "gone", "--warehouse", path)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("removed campaign gone (")

    con = duckdb.connect(str(path), read_only=True)
    for table, cols in tables.items():
        assert _orphans(con, table, cols) == 0, f"orphans in {table}"
        where = _owned(table, cols)
        if where:
            after = con.execute(f'SELECT count(*) FROM "{table}" WHERE {where}',
                                _params(where, kept_cid, "kept")).fetchone()[0]
            assert after == before[table], table
    assert con.execute("SELECT name FROM campaign").fetchall() == [("kept",)]
    con.close()


def test_rm_campaign_errors(two_campaigns):
    path = two_campaigns
    missing = irw("rm", "campaign", "nope", "--warehouse", path)
    assert missing.exit_code == 1 and "no campaign 'nope'" in one_line(missing)
    mixed = irw("rm", "campaign", "gone", "-C", "kept", "--warehouse", path)
    assert mixed.exit_code == 1 and "drop -C kept" in one_line(mixed)
    no_campaign = irw("rm", "run", "other", "--warehouse", path)
    assert no_campaign.exit_code == 1 and "-C NAME" in one_line(no_campaign)


def test_hand_deletion_would_leave_orphans(two_campaigns):
    """What the issue did: the campaign's row alone deleted leaves its runs' rows behind,
    which this test's orphan count sees (so the count above means something)."""
    con = duckdb.connect(str(two_campaigns))
    con.execute("DELETE FROM run WHERE campaign_id = (SELECT campaign_id FROM campaign "
                "WHERE name = 'gone')")
    assert _orphans(con, "run_row", _tables(con)["run_row"]) > 0
    con.close()
