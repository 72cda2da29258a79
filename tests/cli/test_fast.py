"""`irw eval` and `irw sql` without typer (irwarehouse/cli/fast.py): the values it hands the
command function are the ones typer gives it for the same command line, and anything it does not
know is left to typer; `irw eval` on that path imports no typer at all, and prints the same
bytes on stdout and stderr, with the same exit code, as under typer."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stdout

import pytest
import typer.main
from typer.testing import CliRunner

from irwarehouse.cli import app, main
from irwarehouse.cli.fast import parse_args
from tests.helpers.paths import REPO, TEST_DATA

# parameters whose "not given" typer spells as an empty tuple and eval_cmd as None
_LISTS = ("files", "measure", "run")

SQL_COMMAND_LINES = [
    ["SELECT 1"], ["-w", "w.duckdb", "SELECT 1"], ["SELECT 1", "--format", "csv"],
    ["--format=json", "--max-rows", "5", "-o", "x.json", "-"], ["--write", "DROP TABLE x"], [],
]
SQL_LEFT_TO_TYPER = [["-f", "q.sql"], ["--file", "q.sql"], ["a", "b"], ["--format", "xml", "q"],
                     ["--max-rows", "many", "q"], ["--help"]]

COMMAND_LINES = [
    ["q", "r"],
    ["-m", "map", "-m", "P.10", "q", "r"],
    ["q", "-m", "map", "r1", "r2", "--measure", "ndcg_cut.10"],
    ["--measure=map", "-q", "-c", "-J", "q", "r"],
    ["-l", "2", "-M", "100", "-f", "tsv", "q", "r"],
    ["--format", "ntcireval", "--order", "file", "--qrels-format", "ntcir_qrels", "q", "r"],
    ["--format=json", "--trec-eval-version", "10", "q", "r"],
    ["-C", "camp", "-w", "wh.duckdb", "--run", "a", "--run", "b", "--qrels", "qq", "--store"],
    ["--campaign", "c", "--warehouse=w.duckdb", "-m", "all_trec"],
    ["-l", "-1", "--keep-first", "q", "r"],
    ["--wait", "2.5", "-C", "c", "-m", "map"],
    ["-m", "map", "-m", "map", "-l", "1", "-l", "3", "q", "r"],          # the last -l wins
    ["-", "r"],
    # every evaluation option, from its one declaration (irwarehouse/options.py)
    ["--gains", "1:2", "-g", "exp:3", "--no-complete", "--judged-only", "--cutoffs", "1,10",
     "q", "r"],
    ["--complete", "--no-judged-only", "-C", "c", "--order", "rank"],
]

LEFT_TO_TYPER = [
    ["--help"], ["q", "r", "--help"], ["-qc", "q", "r"], ["-mmap", "q", "r"],
    ["-m"], ["-l", "x", "q", "r"], ["-f", "nope", "q", "r"], ["--", "-q", "r"],
    ["-m=map", "q", "r"], ["--no-store", "q", "r"], ["--order", "nope", "q", "r"],
    ["-q=1", "q", "r"],
]


def typer_params(argv: list[str], name: str = "eval") -> dict:
    """The values typer's parser gives the command function for `irw NAME ARGV`."""
    group = typer.main.get_command(app)
    ctx = group.make_context("irw", [name, *argv])
    command = group.get_command(ctx, name)
    return command.make_context(name, list(argv), parent=ctx).params


def _same(fast: dict, slow: dict, command: str = "eval") -> None:
    for param, value in slow.items():
        got = fast.get(param)
        if param in _LISTS:
            assert list(got or []) == list(value or []), param
        elif param in fast:
            assert got == value and type(got) is type(value), param
        else:                                         # not given: the default applies
            assert value == _default(command, param), param


def _default(command: str, param: str):
    import inspect

    from irwarehouse.cli.fast import _function
    return inspect.signature(_function(command)).parameters[param].default


@pytest.mark.parametrize("argv", COMMAND_LINES)
def test_same_values_as_typer(argv):
    fast = parse_args("eval", argv)
    assert fast is not None
    _same(fast, typer_params(argv))


@pytest.mark.parametrize("argv", SQL_COMMAND_LINES)
def test_sql_same_values_as_typer(argv):
    fast = parse_args("sql", argv)
    assert fast is not None
    _same(fast, typer_params(argv, "sql"), "sql")


@pytest.mark.parametrize("argv", LEFT_TO_TYPER)
def test_unknown_forms_are_left_to_typer(argv):
    assert parse_args("eval", argv) is None


@pytest.mark.parametrize("argv", SQL_LEFT_TO_TYPER)
def test_unknown_sql_forms_are_left_to_typer(argv):
    assert parse_args("sql", argv) is None


def _run_main(monkeypatch, argv: list[str]) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["irw", *argv])
    out = io.StringIO()
    code = 0
    with redirect_stdout(out):
        try:
            main()
        except SystemExit as exc:
            code = exc.code or 0
    return code, out.getvalue()


def test_output_equals_typers(monkeypatch):
    qrels, run = TEST_DATA / "trec_eval" / "qrels.test", TEST_DATA / "trec_eval" / "results.test"
    for argv in (["eval", "-m", "map", "-m", "P.10", str(qrels), str(run)],
                 ["eval", "-q", "-m", "ndcg_cut.10", "-f", "tsv", str(qrels), str(run)],
                 ["--debug", "eval", "-m", "official", str(qrels), str(run)]):
        code, fast = _run_main(monkeypatch, argv)
        slow = CliRunner().invoke(app, argv)
        assert code == slow.exit_code == 0
        assert fast == slow.stdout and fast.strip()


def test_errors_exit_1_with_one_line(monkeypatch, capsys, tmp_path):
    code, _ = _run_main(monkeypatch, ["eval", "-m", "map", str(TEST_DATA / "trec_eval" / "qrels.test"),
                                      str(tmp_path / "missing")])
    assert code == 1
    assert capsys.readouterr().err == f"irw: error: {tmp_path / 'missing'}: no such file\n"
    code, _ = _run_main(monkeypatch, ["eval", "-m", "nosuch", str(TEST_DATA / "trec_eval" / "qrels.test"),
                                      str(TEST_DATA / "trec_eval" / "results.test")])
    assert code == 1
    assert capsys.readouterr().err.startswith("irw: error: unknown measure 'nosuch'")


def test_sql_output_equals_typers(monkeypatch, tmp_path):
    from irwarehouse.api import Warehouse
    wh = tmp_path / "w.duckdb"
    with Warehouse(wh) as w:
        w.ingest_qrels(TEST_DATA / "trec_eval" / "qrels.test", "c")
    for argv in (["sql", "-w", str(wh), ("SELECT topic, count(*) AS n FROM judgment "
                                          "GROUP BY 1 ORDER BY 1")],
                 ["sql", "--format", "csv", "-w", str(wh), "SELECT 1 AS one, 'x' AS two"]):
        code, fast = _run_main(monkeypatch, argv)
        slow = CliRunner().invoke(app, argv)
        assert code == slow.exit_code == 0
        assert fast == slow.stdout and fast.strip()


def test_typer_still_parses_what_the_fast_path_leaves(monkeypatch):
    code, out = _run_main(monkeypatch, ["eval", "--help"])
    assert code == 0 and "Evaluate runs, like trec_eval" in out


# -- the everyday path in a process of its own ------------------------------------------------
QRELS, RUN = TEST_DATA / "trec_eval" / "qrels.test", TEST_DATA / "trec_eval" / "results.test"

# what `irw eval QRELS RUN` parsed by fast.py does not import: typer (13-16 ms of CPU with its
# click), the modules that declare the commands for typer, and what only they need (meta.render
# for the tables of records, writers.paper for --format latex|markdown)
NOT_IMPORTED = ("typer", "click", "irwarehouse.cli.common", "irwarehouse.cli.eval",
                "irwarehouse.cli.options", "irwarehouse.cli.commands", "irwarehouse.meta.render",
                "irwarehouse.writers.paper")

_FAST = """
import sys
from irwarehouse.cli import main
sys.argv = ["irw", *sys.argv[1:]]
try:
    main()
finally:
    sys.stdout.flush()
    loaded = [m for m in {not_imported!r} if m in sys.modules]
    sys.stderr.write(f"\\nLOADED {{loaded}}\\n")
"""
# the same command line through typer's parsing and declarations
_TYPER = """
import sys
from irwarehouse.cli import fast, main
fast.main = lambda argv: False
sys.argv = ["irw", *sys.argv[1:]]
main()
"""


def _process(script: str, argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *map(str, argv)], cwd=REPO,
                          capture_output=True, timeout=300, check=False)


def _fast_process(argv: list[str]) -> tuple[subprocess.CompletedProcess, bytes, str]:
    """The process, its stderr without the line the script adds, and that line."""
    done = _process(_FAST.format(not_imported=NOT_IMPORTED), argv)
    err, _, loaded = done.stderr.rpartition(b"\nLOADED ")
    return done, err, loaded.decode().strip()


@pytest.mark.parametrize("argv", [
    ["eval", "-m", "map", "-m", "P.10", QRELS, RUN],
    ["eval", "-m", "map", QRELS, "/nonexistent/run"],           # an error: one line, exit 1
])
def test_everyday_path_imports_no_typer(argv):
    done, _, loaded = _fast_process(argv)
    assert done.returncode == (0 if argv[-1] == RUN else 1), done.stderr
    assert loaded == "[]", f"the everyday path imported {loaded}"


@pytest.mark.parametrize("argv", [
    ["eval", "-m", "map", "-m", "P.10", QRELS, RUN],
    ["eval", "-q", "-m", "ndcg_cut.10", "-f", "tsv", "-c", "-M", "50", QRELS, RUN],
    ["eval", "-f", "json", "-m", "official", "--judged-only", QRELS, RUN, RUN],
    ["eval", "-m", "map", QRELS, "/nonexistent/run"],
    ["eval", "-m", "nosuch", QRELS, RUN],
    ["eval", "-m", "map", QRELS],                                # usage: QRELS RUN
    ["eval", "-q", "-f", "latex", QRELS, RUN],
    ["eval", "--digits", "2", QRELS, RUN],                       # --digits is left to typer
    ["eval", "-m", "map", "-f", "markdown", QRELS, RUN],
    ["eval", "-m", "map", "--qrels", "q1", QRELS, RUN],
    ["eval", "-m", "map", "--store", QRELS, RUN],
    ["eval", "-C", "c", "-w", "/nonexistent/w.duckdb", "-m", "map"],
    ["eval", "-m", "map", "--engine", "spark", QRELS, RUN],      # left to typer: same bytes
    # a file name with an ANSI code: typer strips it off a terminal, and so must the fast path
    ["eval", "-m", "map", QRELS, "/nonexistent/\x1b[31mred"],
])
def test_everyday_path_prints_the_same_bytes_as_typer(argv):
    fast, fast_err, _ = _fast_process(argv)
    slow = _process(_TYPER, argv)
    assert (fast.returncode, fast.stdout, fast_err) == (slow.returncode, slow.stdout, slow.stderr)
    assert fast.stdout or fast_err.startswith(b"irw: error: ")
