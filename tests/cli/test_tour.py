"""docs/analyst.md's tour, run: the commands of its ```console blocks, in order, in a fresh
folder, each printed line of the document found among the lines the command printed (stdout,
or stderr for lines starting `irw:`; `...` stands for lines left out). The tour builds the
three-campaign warehouse from the real data and prints official values, so this checks them."""

import shlex

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from tests.helpers.paths import REALDATA, REPO

TOUR = REPO / "docs" / "analyst.md"


def tour_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) of every `$ ` line of the ```console blocks of the tour."""
    steps: list[tuple[str, list[str]]] = []
    inside = False
    for line in text.split("\n## Reference")[0].splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```console"
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps and line.strip() and line.strip() != "...":
            steps[-1][1].append(line)
    return steps


def _words(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.slow
def test_the_tour_prints_the_official_values(tmp_path, monkeypatch):
    if not REALDATA.is_dir():
        pytest.skip("realdata not present")
    steps = tour_steps(TOUR.read_text(encoding="utf-8"))
    assert len(steps) >= 15 and all(cmd.startswith("irw ") for cmd, _ in steps)
    monkeypatch.chdir(tmp_path)
    for command, expected in steps:
        words = [w.replace("../shared/realdata", str(REALDATA)) for w in shlex.split(command)]
        result = CliRunner().invoke(app, words[1:])
        errors = [line for line in expected if line.startswith("irw: error:")]
        assert result.exit_code == (1 if errors else 0), (command, result.stdout,
                                                          result.stderr)
        printed = {"out": {_words(x) for x in result.stdout.splitlines()},
                   "err": {_words(x) for x in result.stderr.splitlines()}}
        for line in expected:
            where = "err" if line.startswith("irw:") else "out"
            assert _words(line) in printed[where], (command, line, result.stdout,
                                                    result.stderr)


def test_the_tour_is_found_in_the_document():
    steps = tour_steps(TOUR.read_text(encoding="utf-8"))
    commands = [c for c, _ in steps]
    assert any(c.startswith("irw campaign set www4 --gains 1:2 --order file -c -M 1000")
               for c in commands)
    official = {line.split()[-1] for _, lines in steps for line in lines}
    assert {"0.2249", "0.0547", "0.2074", "0.4491"} <= official
