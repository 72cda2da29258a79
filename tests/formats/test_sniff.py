"""Qrels that say what they are (issue 19, item 6): NTCIR qrels (`topic doc Lx`) were refused
without `--qrels-format ntcir_qrels`, and `--format ndeval` did not imply diversity qrels. The
commands the earlier issues wrote, without the flag, give the official outputs."""

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.formats.sniff import sniff_qrels_format
from tests.helpers.paths import REALDATA

WWW4 = REALDATA / "ntcir16_www4_english"
TREC2012 = REALDATA / "trec2012_web_diversity"


def _file(tmp_path, text, name="q"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, diversity, want", [
    ("# comment\n\n0201 doc1 L1\n0201 doc2 L0\n", False, "ntcir_qrels"),
    ("0201 doc1 2\n", False, "ntcir_qrels"),
    ("0001 1 doc L1\n0001 2 doc L0\n", False, "diversity"),
    ("401 0 FBIS3-1 1\n401 0 FBIS3-2 0\n", False, "qrels"),
    ("151 1 clueweb-1 0\n151 2 clueweb-1 1\n", True, "diversity"),
    # diversity asked for, but 0 in the second field of every line: trec_eval's iteration
    # field (subtopics are numbered from 1), so ad hoc qrels and the diversity measure's warning
    ("151 0 clueweb-1 0\n151 0 clueweb-2 1\n", True, "qrels"),
    ("151 1 clueweb-1 0\n151 1 clueweb-2 1\n", True, "diversity"),
    ("151 0 clueweb-1 0\n151 0 clueweb-2 1\n", False, "qrels"),
    # a document judged under two subtopics: TREC diversity qrels, whatever is asked
    ("151 1 clueweb-1 0\n151 2 clueweb-1 1\n", False, "diversity"),
    ("151 1 clueweb-1 0\n151 1 clueweb-2 1\n", False, "qrels"),
])
def test_format_read_from_the_first_lines(tmp_path, text, diversity, want):
    assert sniff_qrels_format(_file(tmp_path, text), diversity=diversity) == want


@pytest.mark.parametrize("text, line, message", [
    ("401 0 d 1\n401 d L1\n", 2, "expected 4 fields"),       # read as qrels from line 1
    ("0201 d L1\n0201 0 e L1\n", 2, "expected 3 fields"),     # read as ntcir_qrels
    ("a b\n", 1, "expected 4 fields"),                         # no qrels shape: the default
])
def test_a_file_that_misleads_gets_an_error_naming_the_flag(tmp_path, text, line, message):
    qrels = _file(tmp_path, text)
    run = _file(tmp_path, "401 Q0 d 1 2.5 tag\n", "run")
    result = CliRunner().invoke(app, ["eval", str(qrels), str(run)])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and f"q:{line}: " in lines[0] and message in lines[0]
    assert "--qrels-format qrels|diversity|ntcir_qrels" in lines[0]


def test_a_bad_run_is_not_blamed_on_the_qrels_format(tmp_path):
    qrels = _file(tmp_path, "401 0 d 1\n")
    run = _file(tmp_path, "401 Q0 d 1\n", "run")
    result = CliRunner().invoke(app, ["eval", str(qrels), str(run)])
    assert result.exit_code == 1 and "--qrels-format" not in result.stderr


def test_a_run_given_as_qrels_is_named(tmp_path):
    run = _file(tmp_path, "401 Q0 d 1 2.5 tag\n")
    result = CliRunner().invoke(app, ["eval", str(run), str(run)])
    assert result.exit_code == 1
    assert "this is a run" in result.stderr and "QRELS RUN" in result.stderr


def test_ingest_qrels_reads_the_format(tmp_path):
    qrels = _file(tmp_path, "0201 doc1 L2\n0201 doc2 L0\n")
    wh = tmp_path / "w.duckdb"
    result = CliRunner().invoke(app, ["ingest", "qrels", str(qrels), "-C", "c", "-w", str(wh)])
    assert result.exit_code == 0, result.output
    import duckdb
    con = duckdb.connect(str(wh), read_only=True)
    assert con.execute("SELECT format FROM qrels").fetchone() == ("ntcir_qrels",)
    assert con.execute("SELECT max(rel) FROM judgment").fetchone() == (2,)
    con.close()


def _irw(cwd, *args):
    """The installed command's path (`python -m irwarehouse.cli`, fast path included)."""
    return subprocess.run([sys.executable, "-m", "irwarehouse.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})


@pytest.mark.realdata
def test_www4_ntcireval_command_as_written(tmp_path):
    if not WWW4.is_dir():
        pytest.skip("../shared/realdata is not beside the repository")
    os.symlink(WWW4 / "www4gold-corrected.qrels", tmp_path / "www4gold-corrected.qrels")
    os.symlink(WWW4 / "runs" / "KASYS-CO-REV-6.gz", tmp_path / "KASYS-CO-REV-6.gz")
    out = _irw(tmp_path, "eval", "--format", "ntcireval", "--order", "file", "-g", "1:2",
               "--cutoffs", "1,10", "www4gold-corrected.qrels", "KASYS-CO-REV-6.gz")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (WWW4 / "expected_ntcireval" / "KASYS-CO-REV-6.waseda.nev").read_text()


@pytest.mark.realdata
def test_ndeval_command_as_written(tmp_path):
    """NIST's raw qrels.diversity (spam -2) gives ndeval's official -c -traditional output."""
    if not TREC2012.is_dir():
        pytest.skip("../shared/realdata is not beside the repository")
    run = "rm.results-cata"
    os.symlink(TREC2012 / "qrels" / "qrels.diversity.txt", tmp_path / "qrels.diversity")
    # a gzipped run named RUN: read by its bytes, not its name ("unreadable content" before)
    os.symlink(TREC2012 / "runs" / f"{run}.txt.gz", tmp_path / "RUN")
    out = _irw(tmp_path, "eval", "--format", "ndeval", "-c", "--order", "score",
               "qrels.diversity", "RUN")
    assert out.returncode == 0, out.stderr
    expected = TREC2012 / "expected_ndeval" / f"{run}.ndeval2012.c.traditional.csv"
    assert out.stdout == expected.read_text()


def test_diversity_measure_implies_diversity_qrels(tmp_path):
    """`-m alpha-nDCG@5` on a 4-field file reads it as topic subtopic doc rel: d1 covers both
    subtopics, so the run that ranks it first is ideal (with ad hoc qrels the two subtopic
    lines of d1 would be a duplicate document)."""
    qrels = _file(tmp_path, "7 1 d1 1\n7 2 d1 1\n7 1 d2 1\n")
    run = _file(tmp_path, "7 Q0 d1 1 3 r\n7 Q0 d2 2 2 r\n", "run")
    result = CliRunner().invoke(app, ["eval", "-m", "alpha-nDCG@5", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout.split()[-1] == "1.0000"


def test_gzipped_files_are_read_whatever_their_names(tmp_path):
    import gzip
    qrels = tmp_path / "QRELS"
    qrels.write_bytes(gzip.compress(b"401 0 d1 1\n401 0 d2 0\n"))
    run = tmp_path / "RUN"
    run.write_bytes(gzip.compress(b"401 Q0 d2 1 2.0 r\n401 Q0 d1 2 1.0 r\n"))
    result = CliRunner().invoke(app, ["eval", "-m", "map", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["map", "all", "0.5000"]
