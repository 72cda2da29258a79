"""ROUGE over the warehouse: the SQL path reproduces ROUGE-1.5.5's golden outputs, and the
scores land in `score` (so run_score, irw compare and irw meta see them)."""

import io

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.cli.rouge import run
from tests.texts.test_rouge_golden import OPTION_SETS


@pytest.mark.realdata
@pytest.mark.slow
def test_stored_texts_reproduce_every_golden_file(realdata, tmp_path, monkeypatch):
    folder = realdata / "rouge155_synthetic"
    monkeypatch.chdir(folder)
    wh = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", "texts", "config.xml", "-C", "syn", "--name", "refs",
                                 "-w", wh])
    assert result.exit_code == 0, result.output
    assert "60 outputs of 2 runs and 67 references" in result.output
    for name, options in OPTION_SETS:
        out = io.StringIO()
        args = options.split() + ["-d", "--campaign", "syn", "--references", "refs",
                                  "--warehouse", wh]
        assert run(args, out) == 0
        expected = (folder / "expected" / f"{name}.rouge155.txt").read_text()
        assert out.getvalue() == expected, name
    import duckdb
    con = duckdb.connect(wh, read_only=True)
    rows = con.execute("SELECT run, measure, options, num_topics, round(mean, 5) FROM run_score "
                       "WHERE measure = 'ROUGE-1-R' AND options = '-f A -p 0.5' "
                       "ORDER BY run").fetchall()
    con.close()
    # the plain mean over topics (ROUGE prints a bootstrap mean instead)
    assert rows == [("A", "ROUGE-1-R", "-f A -p 0.5", 30, 0.36768),
                    ("B", "ROUGE-1-R", "-f A -p 0.5", 30, rows[1][4])]


@pytest.mark.realdata
def test_rouge_store_from_a_config(realdata, tmp_path, monkeypatch):
    monkeypatch.chdir(realdata / "rouge155_synthetic")
    wh = str(tmp_path / "w.duckdb")
    out = io.StringIO()
    assert run(["-n", "1", "-x", "-r", "1", "-a", "--store", "--campaign", "syn",
                "--warehouse", wh, "config.xml"], out) == 0
    assert "A ROUGE-1 Average_R: 0.33965" in out.getvalue()
    import duckdb
    con = duckdb.connect(wh, read_only=True)
    n, = con.execute("SELECT count(*) FROM topic_score WHERE family = 'rouge'").fetchone()
    first = con.execute("SELECT value FROM topic_score WHERE run = 'A' AND topic = 't01' "
                        "AND measure = 'ROUGE-1-F'").fetchone()
    con.close()
    assert n == 2 * 30 * 3 and first == (0.11112,)


def test_ingest_texts_tsv_and_errors(tmp_path):
    runner = CliRunner()
    wh = str(tmp_path / "w.duckdb")
    outputs = tmp_path / "out.tsv"
    outputs.write_text("q1\tsys\tThe cat sat on the mat.\nq1\tsys\tIt was happy.\n")
    refs = tmp_path / "refs.tsv"
    refs.write_text("q1\tr1\tThe cat lay on the mat.\n")
    assert runner.invoke(app, ["ingest", "texts", str(outputs), "-C", "c", "-w", wh]
                         ).exit_code == 0
    result = runner.invoke(app, ["ingest", "texts", str(refs), "-C", "c", "--kind",
                                 "references", "--name", "refs", "-w", wh])
    assert result.exit_code == 0, result.output
    out = io.StringIO()
    assert run(["-n", "1", "-x", "-d", "-r", "5", "--campaign", "c", "--references", "refs",
                "--warehouse", wh], out) == 0
    # 5 of the model's 6 unigrams; the output has 9
    assert "sys ROUGE-1 Eval q1.sys R:0.83333 P:0.55556 F:0.66667" in out.getvalue()
    bad = tmp_path / "bad.tsv"
    bad.write_text("q1\tsys\tfine\nq1\tonly two\n")
    result = runner.invoke(app, ["ingest", "texts", str(bad), "-C", "c", "-w", wh])
    assert result.exit_code == 1
    assert f"{bad}:2: expected 3 tab-separated fields" in result.output
