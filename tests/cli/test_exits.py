"""Disk full and the other exits of issue 31: each is one line with the documented exit code
(never 4 for a user's input or a full disk) and leaves nothing half-written: `irw init` on a
full disk leaves no warehouse, `ingest texts` says disk full, `--out` files are complete or
absent (a full disk, a timeout), `export` names the file asked for; SQL copied from a web page
(a leading no-break space or U+2028) runs or is one line; --memory-limit and --timeout out of
range are one line; Ctrl-C while files are evaluated does not claim anything was kept."""

from __future__ import annotations

import pytest

from tests.helpers.faults import irw, mounted_tmpfs, one_line
from tests.helpers.paths import DATA

QRELS = DATA / "qrels.test"
RUN = DATA / "runs" / "STANDARD.results.test"


def test_init_on_a_full_disk_is_exit_3_and_leaves_no_warehouse(tmp_path):
    with mounted_tmpfs(tmp_path / "disk", "1m") as disk:
        result = irw("init", "--warehouse", disk / "w.duckdb")
        assert result.exit_code == 3, result.output
        assert "disk full" in one_line(result) and "no file was left" in one_line(result)
        assert list(disk.iterdir()) == []


def test_ingest_texts_on_a_full_disk_is_exit_3(tmp_path):
    texts = tmp_path / "out.tsv"
    with open(texts, "w", encoding="utf-8") as f:
        f.writelines(f"t{i % 200}\tr{i % 5}\tword{i} other{i * 7} third{i * 13} fourth\n"
                     for i in range(60_000))
    with mounted_tmpfs(tmp_path / "disk", "4m") as disk:
        assert irw("init", "--warehouse", disk / "w.duckdb").exit_code == 0
        result = irw("ingest", "texts", texts, "-C", "c", "--warehouse", disk / "w.duckdb")
        assert result.exit_code == 3, result.output
        assert "disk full" in one_line(result)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_sql_out_on_a_full_disk_leaves_no_partial_file(sample_warehouse, tmp_path, fmt):
    with mounted_tmpfs(tmp_path / "disk", "1m") as disk:
        out = disk / f"rows.{fmt}"
        result = irw("sql", "SELECT range, repeat('x', 50) AS s FROM range(200000)",
                     "--format", fmt, "--out", out, "--warehouse", sample_warehouse)
        assert result.exit_code == 3, result.output
        line = one_line(result)
        assert "disk full" in line and str(out) in line and ".partial" not in line, line
        assert list(disk.iterdir()) == []


def test_sql_out_stopped_at_its_timeout_leaves_no_partial_file(sample_warehouse, tmp_path):
    out = tmp_path / "rows.csv"
    result = irw("sql", "SELECT range, repeat('x', 100) AS s FROM range(1000000000)",
                 "--format", "csv", "--out", out, "--timeout", 1,
                 "--warehouse", sample_warehouse)
    assert result.exit_code == 1, result.output
    assert "time limit of 1 s" in one_line(result)
    assert list(tmp_path.glob("*rows.csv*")) == []


def test_export_names_the_file_asked_for(sample_warehouse, tmp_path):
    folder = tmp_path / "already_a_folder"
    folder.mkdir()
    result = irw("export", "scores", "-C", "sample", "--out", folder, "--format", "csv",
                 "--warehouse", sample_warehouse)
    assert result.exit_code == 1, result.output
    assert str(folder) in one_line(result) and ".part" not in result.output
    missing = tmp_path / "no" / "such.csv"
    result = irw("export", "scores", "-C", "sample", "--out", missing, "--warehouse",
                 sample_warehouse)
    assert result.exit_code == 1 and "no folder" in one_line(result)
    assert ".part" not in result.output


@pytest.mark.parametrize("query", ["\u00a0SELECT 1 AS one", "\u2028SELECT 1 AS one\u2029",
                                   "\ufeff SELECT 1 AS one", "SELECT 1 AS one\u3000"])
def test_sql_with_spaces_copied_from_a_web_page_runs(sample_warehouse, query):
    result = irw("sql", query, "--warehouse", sample_warehouse)
    assert result.exit_code == 0, result.output
    assert result.stdout.split()[0] == "one"


def test_a_line_separator_between_words_is_one_line_naming_it(sample_warehouse):
    for args in (("SELECT\u20281",), ("--write", "SELECT\u20281")):
        result = irw("sql", *args, "--warehouse", sample_warehouse)
        assert result.exit_code == 1, result.output
        assert "U+2028" in one_line(result)


@pytest.mark.parametrize("option, value, words", [
    ("--memory-limit", "9999999TB", "more than DuckDB can be given"),
    ("--memory-limit", "1e9GB", "give a size"),
    ("--timeout", "inf", "give a number of seconds"),
    ("--timeout", "1e300", "give a number of seconds"),
])
def test_limits_out_of_range_are_one_line(sample_warehouse, option, value, words):
    result = irw("sql", "SELECT 1", option, value, "--warehouse", sample_warehouse)
    assert result.exit_code == 1, result.output
    assert words in one_line(result) and "Traceback" not in result.output


def test_ctrl_c_while_files_are_evaluated_keeps_nothing(monkeypatch):
    """The qrels and runs of `irw eval FILES` go into a warehouse in memory: a Ctrl-C after
    their ingest has kept nothing on disk, and says so."""
    import irwarehouse.api as api

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(api, "evaluate", interrupted)
    monkeypatch.setattr("irwarehouse.cli.fast.main", lambda argv: False)
    result = irw("eval", QRELS, RUN, "-m", "map")
    assert result.exit_code == 130, result.output
    assert one_line(result) == "irw: interrupted; nothing was written"
