"""Names (campaign, run, team, qrels and the other stored names) are checked on every path that
stores one, as `irw rename` checks them: not empty, at most 200 characters, no line breaks,
escape sequences, right-to-left overrides or zero-width characters (one line, exit 1, the
warehouse unchanged); `--name ''` is an error, not the default name; and a name that got in
behind irw's back is shown escaped in the terminal, and literally in a report's HTML and plots
(a run named `$$x$$` is not TeX)."""

from __future__ import annotations

import pytest

from tests.helpers.every_table import RUN
from tests.helpers.faults import irw, one_line, state
from tests.helpers.online_logs import write_sessions
from tests.helpers.paths import DATA, private_copy

QRELS = DATA / "qrels.test"
BAD = {"empty": "", "newline": "a\nb", "long": "x" * 5000, "escape": "\x1b[2Jgone",
       "rtl": "abc\u202edcba", "zero-width": "a\u200bb", "nel": "a\x85b", "spaces": "   "}


@pytest.fixture(scope="module")
def base_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "w.duckdb"
    for args in (("ingest", "qrels", QRELS, "-C", "c"), ("ingest", "run", RUN, "-C", "c")):
        assert irw(*args, "--warehouse", path).exit_code == 0
    return path


@pytest.fixture
def base(base_template, tmp_path):
    return private_copy(base_template, tmp_path)


def _tagged(tmp_path, tag: str):
    path = tmp_path / "tagged.run"
    path.write_text(f"301 Q0 d1 1 1.0 {tag}\n", encoding="utf-8")
    return path


def _paths(tmp_path, bad: str) -> dict[str, tuple]:
    """Every way a name reaches the warehouse, with the bad name in it."""
    sessions = write_sessions(tmp_path / "s.tsv", [("s1", "301", 1, 1, "d1", 1, None, None)])
    texts = tmp_path / "out.tsv"
    texts.write_text(f"301\t{bad}\tsome text\n", encoding="utf-8")
    gold = tmp_path / "gold.tsv"
    gold.write_text("301\tn1\t1\tnugget\n")
    teams = tmp_path / "teams.tsv"
    teams.write_text(f"STANDARD\t{bad}\n", encoding="utf-8")
    return {
        "campaign": ("ingest", "run", RUN, "-C", bad),
        "qrels campaign": ("ingest", "qrels", QRELS, "-C", bad),
        "run --name": ("ingest", "run", RUN, "-C", "c", "--name", bad),
        "run --team": ("ingest", "run", RUN, "-C", "c", "--name", "n2", "--team", bad),
        "qrels --name": ("ingest", "qrels", QRELS, "-C", "c", "--name", bad),
        "sessions --run": ("ingest", "sessions", sessions, "-C", "c", "--run", bad),
        "texts run": ("ingest", "texts", texts, "-C", "c"),
        "references --name": ("ingest", "texts", texts, "-C", "c", "--kind", "references",
                              "--name", bad),
        "nuggets --name": ("ingest", "nuggets", "-C", "c", "--name", bad, "--gold", gold),
        "teams file": ("ingest", "teams", teams, "-C", "c"),
        "pool --name": ("meta", "pool", "-C", "c", "-k", "5", "--name", bad),
        "rename": ("rename", "run", "STANDARD", bad, "-C", "c"),
    }


# every path with three bad names; the paths that share no code with the others (a campaign's
# creation, a run's --name) with all of them: the rule itself is one function (check_name)
EVERY_PATH = ("empty", "escape", "rtl")
EVERY_NAME = ("campaign", "run --name")


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_name_is_refused_on_every_path(base, tmp_path, kind):
    bad = BAD[kind]
    before = state(base)
    paths = _paths(tmp_path, bad)
    for path_name, args in paths.items():
        if kind not in EVERY_PATH and path_name not in EVERY_NAME:
            continue
        if kind in ("empty", "spaces") and path_name == "texts run":
            continue                    # an empty run field is a malformed line (its own test)
        result = irw(*args, "--warehouse", base)
        assert result.exit_code == 1, (path_name, result.output)
        line = one_line(result)
        assert "name" in line and len(line) < 400, (path_name, line)
        assert "\x1b" not in result.output and "\u202e" not in result.output
    assert state(base) == before


@pytest.mark.parametrize("kind", ["escape", "rtl", "zero-width", "nel", "long"])
def test_a_bad_run_tag_in_a_file_is_refused(base, tmp_path, kind):
    result = irw("ingest", "run", _tagged(tmp_path, BAD[kind]), "-C", "c", "--warehouse", base)
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output


def test_an_empty_name_option_is_an_error_not_the_default(base, tmp_path):
    for args in (("ingest", "run", RUN, "-C", "c", "--name", ""),
                 ("ingest", "qrels", QRELS, "-C", "c", "--name", ""),
                 ("ingest", "sessions",
                  write_sessions(tmp_path / "s.tsv", [("s", "301", 1, 1, "d", 0, None, None)]),
                  "-C", "c", "--run", "")):
        result = irw(*args, "--warehouse", base)
        assert result.exit_code == 1, (args, result.output)
        assert "bad" in one_line(result) and "name ''" in one_line(result)


def test_a_name_written_behind_irws_back_is_shown_escaped(base):
    """`irw sql --write` can store any name; the terminal tables show it escaped."""
    assert irw("sql", "--write", "UPDATE run SET name = chr(27) || '[2J' || chr(8238) || 'x'",
               "--warehouse", base).exit_code == 0
    assert irw("sql", "--write", "UPDATE campaign SET name = 'c' || chr(10) || 'd'",
               "--warehouse", base).exit_code == 0
    for args in (("runs",), ("campaigns",), ("sql", "SELECT name FROM run"),
                 ("sql", "SELECT name FROM campaign")):
        result = irw(*args, "--warehouse", base)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout and "\u202e" not in result.stdout, args
    assert "\\x1b[2J\\u202ex" in irw("runs", "--warehouse", base).stdout
    assert "c d" in irw("campaigns", "--warehouse", base).stdout


@pytest.mark.slow
def test_a_run_named_like_tex_is_reported_literally(tmp_path):
    """matplotlib reads `$...$` as mathtext; a run named `$$x$$` broke `irw report`."""
    path = tmp_path / "w.duckdb"
    for args in (("ingest", "qrels", QRELS, "-C", "c"),
                 ("ingest", "run", RUN, "-C", "c", "--name", "$$x$$"),
                 ("ingest", "run", RUN, "-C", "c", "--name", "b_{1}^2")):
        assert irw(*args, "--warehouse", path).exit_code == 0
    result = irw("report", "-C", "c", "-o", tmp_path / "rep", "-m", "map", "--warehouse", path)
    assert result.exit_code == 0, result.output
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "$$x$$" in html and "b_{1}^2" in html
    svgs = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "rep").rglob("*.svg"))
    assert "$$x$$" in svgs or "$$x$$" in html
