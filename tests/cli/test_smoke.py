"""End-to-end smoke tests of the sample campaign in data/ (NIST's trec_eval test files).
Expected values are trec_eval 9.0.8's own output for these files (out.test.a)."""

import duckdb
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.sqlfiles import metric_files, sql_dir
from tests.helpers.paths import DATA

RUN = str(DATA / "runs" / "STANDARD.results.test")
QRELS = str(DATA / "qrels.test")


def test_every_sql_file_is_found():
    assert (sql_dir() / "schema.sql").is_file()
    assert (sql_dir() / "context.sql").is_file()
    assert len(metric_files()) >= 10


def test_eval_files_like_trec_eval():
    result = CliRunner().invoke(app, ["eval", QRELS, RUN, "-m", "map", "-m", "P.10"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # trec_eval 9.0.8: map 0.1785, P_10 0.3000 (v9.0.8/out.test.a); no runid row unless asked
    assert lines == ["map                   \tall\t0.1785",
                     "P_10                  \tall\t0.3000"]


def test_ir_measures_names_agree_with_trec_eval_names():
    runner = CliRunner()
    a = runner.invoke(app, ["eval", QRELS, RUN, "-m", "AP", "-m", "P@10", "-f", "json"])
    b = runner.invoke(app, ["eval", QRELS, RUN, "-m", "map", "-m", "P.10", "-f", "json"])
    import json
    va = [r["value"] for r in json.loads(a.output)]
    vb = [r["value"] for r in json.loads(b.output)]
    assert va == vb


def test_campaign_store_and_query(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    monkeypatch.setenv("IRW_WAREHOUSE", str(path))
    runner = CliRunner()
    assert runner.invoke(app, ["init"]).exit_code == 0
    assert runner.invoke(app, ["ingest", "qrels", QRELS, "--campaign", "c"]).exit_code == 0
    assert runner.invoke(app, ["ingest", "run", RUN, "--campaign", "c"]).exit_code == 0
    result = runner.invoke(app, ["eval", "--campaign", "c", "-m", "map", "--store"])
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(path), read_only=True)
    rows = con.execute("SELECT run, round(avg(value), 4) FROM topic_score "
                       "WHERE measure = 'map' GROUP BY run").fetchall()
    assert rows == [("STANDARD", 0.1785)]


def test_run_ingested_twice_is_refused(tmp_path):
    runner = CliRunner()
    w = ["--warehouse", str(tmp_path / "w.duckdb")]
    assert runner.invoke(app, ["ingest", "run", RUN, "--campaign", "c", *w]).exit_code == 0
    again = runner.invoke(app, ["ingest", "run", RUN, "--campaign", "c", *w])
    assert again.exit_code == 1
    assert "already in campaign" in again.output
    assert runner.invoke(app, ["ingest", "run", RUN, "--campaign", "c", "--replace", *w]
                         ).exit_code == 0


def test_evaluation_reports_progress_to_the_end():
    from irwarehouse.api import evaluate_files
    calls = []
    evaluate_files(QRELS, [RUN], ["all_trec"], progress=lambda done, total: calls.append(
        (done, total)))
    assert calls[0][0] == 1 and calls[-1][0] == calls[-1][1] > 1
    assert [d for d, _ in calls] == list(range(1, calls[-1][1] + 1))


def test_sql_is_applied_when_it_changed(tmp_path):
    """connect() records the digest of the SQL it applied (irw_meta.sql_sha256: schema,
    context, metrics and the macro generator) and re-applies it only when that differs: a
    warehouse from an older version gets the current schema and macros."""
    from irwarehouse.sqlfiles import sql_digest
    from irwarehouse.store.connection import connect
    path = tmp_path / "w.duckdb"
    digest = sql_digest()
    connect(path).close()
    con = duckdb.connect(str(path))
    assert con.execute("SELECT value FROM irw_meta WHERE key = 'sql_sha256'"
                       ).fetchall() == [(digest,)]
    # as if an older version had been applied: a view and a macro missing, another digest
    con.execute("DROP VIEW run_info")
    con.execute("DROP MACRO TABLE irw_map")
    con.execute("UPDATE irw_meta SET value = 'older' WHERE key = 'sql_sha256'")
    con.close()
    con = connect(path)
    assert con.execute("SELECT count(*) FROM run_info").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'irw_map'"
                       ).fetchone() == (1,)
    assert con.execute("SELECT value FROM irw_meta WHERE key = 'sql_sha256'"
                       ).fetchall() == [(digest,)]
    con.close()
    # unchanged: nothing is re-created (the view dropped behind its back stays dropped)
    con = duckdb.connect(str(path))
    con.execute("DROP VIEW run_info")
    con.close()
    con = connect(path)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'run_info'"
                       ).fetchone() == (0,)
    con.close()


def test_the_demo_suggests_a_command_that_runs_without_the_venv_activated(tmp_path):
    """The README runs `.venv/bin/irw demo`; its closing hint must name that same program, since
    a bare `irw` is not on PATH until the venv is activated (issue 19 item 10)."""
    import subprocess
    import sys
    from pathlib import Path
    irw = Path(sys.executable).parent / "irw"
    done = subprocess.run([str(irw), "demo", "--warehouse", str(tmp_path / "d.duckdb")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    hint = done.stdout.splitlines()[-1].split()
    assert hint[0] == str(irw) and hint[1:3] == ["sql", "-w"]
    again = subprocess.run(hint[:3] + [hint[3], "SELECT count(*) AS n FROM run_score"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert again.returncode == 0 and again.stdout.splitlines()[-1] == "(1 row)", again
