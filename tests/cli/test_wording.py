"""Wording (issue 19, item 9): did-you-mean suggestions for measures (every tool's spelling,
without regard to case, with the cutoff as given), commands and options; `--test tukey
--correction holm` names the CLI flag rather than Python's `correction=None`; user-facing
help cites papers, not the team's seed numbers."""

from __future__ import annotations

import re
import sys
from subprocess import run

import pytest

from irwarehouse.errors import MeasureError
from irwarehouse.measures import parse_measures
from tests.helpers.faults import irw, one_line


@pytest.mark.parametrize("text, suggestion", [
    ("mapp", "map"), ("alpha-ndgc@10", "alpha-nDCG@10"), ("ERR-ai@20", "ERR-IA@20"),
    ("recal@100", "recall@100"), ("ndgc@10", "nDCG@10")])
def test_unknown_measure_gets_a_suggestion(text, suggestion):
    with pytest.raises(MeasureError) as err:
        parse_measures([text])
    message = str(err.value)
    assert "did you mean" in message
    assert suggestion in re.search(r"did you mean (.*)\?", message).group(1).split(" or ")


def test_unknown_command_and_option_get_suggestions():
    command = run([sys.executable, "-m", "irwarehouse.cli", "evl"], capture_output=True,
                  text=True)
    assert command.returncode == 2 and "Did you mean 'eval'?" in command.stderr
    option = run([sys.executable, "-m", "irwarehouse.cli", "eval", "--formt", "json", "q", "r"],
                 capture_output=True, text=True)
    assert option.returncode == 2 and "did you mean --format?" in option.stderr
    qrel = run([sys.executable, "-m", "irwarehouse.cli", "compare", "--corection", "holm"],
               capture_output=True, text=True)
    assert qrel.returncode == 2 and qrel.stderr.count("\n") == 1
    assert "No such option: --corection; did you mean --correction?" in qrel.stderr


def test_tukey_with_a_correction_names_the_flag(sample_warehouse):
    result = irw("compare", "-C", "sample", "--qrels", "graded", "-m", "map", "--test",
                 "tukey", "--correction", "holm", "-w", sample_warehouse)
    line = one_line(result)
    assert result.exit_code == 1
    assert "correction=None" not in line and "--correction none" in line
    assert "drop --correction holm" in line
    ok = irw("compare", "-C", "sample", "--qrels", "graded", "-m", "map", "--test", "tukey",
             "--correction", "none", "-B", "200", "--seed", "1", "-w", sample_warehouse)
    assert ok.exit_code == 0, ok.output


def test_help_cites_papers_not_seed_numbers():
    from typer.main import get_command

    from irwarehouse.cli import app
    texts = []

    def walk(cmd):
        for p in getattr(cmd, "params", []):
            texts.append(getattr(p, "help", None) or "")
        texts.append(cmd.help or "")
        for sub in getattr(cmd, "commands", {}).values():
            walk(sub)
    walk(get_command(app))
    assert len(texts) > 100
    # `--scheme seed001` is a value still accepted; its help says what it is
    bad = [t for t in texts
           if re.search(r"seed ?\d{3}", t, re.IGNORECASE) and "its first name" not in t]
    assert not bad, bad
