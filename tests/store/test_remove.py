"""`irw rm run|qrels NAME -C C`: everything that hangs on the run or qrels goes, in one
transaction; a run or qrels a pool was built from is kept; `irw check` is clean afterwards."""

from __future__ import annotations

import duckdb

from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA

RUN = DATA / "runs" / "STANDARD.results.test"


def _warehouse(tmp_path):
    path = tmp_path / "w.duckdb"
    for args in (("ingest", "qrels", DATA / "qrels.test", "-C", "c", "--name", "binary"),
                 ("ingest", "run", RUN, "-C", "c"),
                 ("ingest", "run", RUN, "-C", "c", "--name", "other"),
                 ("eval", "--campaign", "c", "-m", "map", "--store")):
        result = irw(*args, "--warehouse", path)
        assert result.exit_code == 0, result.output
    return path


def _count(path, sql):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_rm_run_removes_it_and_everything_on_it(tmp_path):
    path = _warehouse(tmp_path)
    rid = _count(path, "SELECT run_id FROM run WHERE name = 'STANDARD'")
    result = irw("rm", "run", "STANDARD", "-C", "c", "--warehouse", path)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("removed run STANDARD from campaign c (")
    for table in ("run", "run_row", "run_list", "score", "judged_row", "judged_pair",
                  "relevant_row", "relevant_pair"):
        assert _count(path, f"SELECT count(*) FROM {table} WHERE run_id = {rid}") == 0, table
    assert _count(path, "SELECT count(*) FROM run_row") == 1500          # `other` stays
    assert _count(path, "SELECT count(*) FROM score") > 0
    assert irw("check", "--warehouse", path).exit_code == 0


def test_rm_qrels_removes_judgments_and_scores(tmp_path):
    path = _warehouse(tmp_path)
    result = irw("rm", "qrels", "binary", "-C", "c", "--warehouse", path)
    assert result.exit_code == 0, result.output
    for table in ("qrels", "judgment", "score", "judged_row", "judged_pair", "relevant_row",
                  "relevant_pair"):
        assert _count(path, f"SELECT count(*) FROM {table}") == 0, table
    assert irw("check", "--warehouse", path).exit_code == 0


def test_rm_of_something_unknown_or_pooled_is_one_line(tmp_path):
    path = _warehouse(tmp_path)
    missing = irw("rm", "run", "nope", "-C", "c", "--warehouse", path)
    assert missing.exit_code == 1 and "no run 'nope' in campaign 'c'" in one_line(missing)
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO pool (pool_id, campaign_id, name, depth) VALUES (1, 1, 'p', 10)")
    con.execute("INSERT INTO pool_run SELECT 1, run_id, 'team' FROM run WHERE name = 'other'")
    con.close()
    pooled = irw("rm", "run", "other", "-C", "c", "--warehouse", path)
    assert pooled.exit_code == 1 and "part of pool 'p'" in one_line(pooled)
    assert _count(path, "SELECT count(*) FROM run WHERE name = 'other'") == 1
