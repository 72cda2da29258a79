"""`irw eval` without typer (irwarehouse/cli/fast.py): the values it hands eval_cmd are the ones
typer gives it for the same command line, and anything it does not know is left to typer."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout

import pytest
import typer.main
from typer.testing import CliRunner

from irwarehouse.cli import app, main
from irwarehouse.cli.fast import parse_eval
from tests.helpers.paths import TEST_DATA

# parameters whose "not given" typer spells as an empty tuple and eval_cmd as None
_LISTS = ("files", "measure", "run")

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
    ["-m", "map", "-m", "map", "-l", "1", "-l", "3", "q", "r"],          # the last -l wins
    ["-", "r"],
]

LEFT_TO_TYPER = [
    ["--help"], ["q", "r", "--help"], ["-qc", "q", "r"], ["-mmap", "q", "r"],
    ["-m"], ["-l", "x", "q", "r"], ["-f", "nope", "q", "r"], ["--", "-q", "r"],
    ["--gains", "1:2", "q", "r"], ["-m=map", "q", "r"], ["--no-store", "q", "r"],
    ["-q=1", "q", "r"],
]


def typer_params(argv: list[str]) -> dict:
    """The values typer's parser gives eval_cmd for `irw eval ARGV`."""
    group = typer.main.get_command(app)
    ctx = group.make_context("irw", ["eval", *argv])
    command = group.get_command(ctx, "eval")
    return command.make_context("eval", list(argv), parent=ctx).params


def _same(fast: dict, slow: dict) -> None:
    for name, value in slow.items():
        got = fast.get(name)
        if name in _LISTS:
            assert list(got or []) == list(value or []), name
        elif name in fast:
            assert got == value and type(got) is type(value), name
        else:                                         # not given: eval_cmd's default applies
            assert value == _default(name), name


def _default(name: str):
    import inspect

    from irwarehouse.cli.eval import eval_cmd
    return inspect.signature(eval_cmd).parameters[name].default


@pytest.mark.parametrize("argv", COMMAND_LINES)
def test_same_values_as_typer(argv):
    fast = parse_eval(argv)
    assert fast is not None
    _same(fast, typer_params(argv))


@pytest.mark.parametrize("argv", LEFT_TO_TYPER)
def test_unknown_forms_are_left_to_typer(argv):
    assert parse_eval(argv) is None


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


def test_typer_still_parses_what_the_fast_path_leaves(monkeypatch):
    code, out = _run_main(monkeypatch, ["eval", "--help"])
    assert code == 0 and "Evaluate runs, like trec_eval" in out
