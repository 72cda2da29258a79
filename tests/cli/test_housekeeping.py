"""Housekeeping (issue 19, item 8): `irw rename`, `irw runs`, `irw ingest topics` (the topic
table stayed empty), `irw ingest teams` and the default team of a run name (`THUIRr`,
`pircRBa`, `KASYS-CO-REV-` came out, so run_family could not join THUIR across years)."""

from __future__ import annotations

import csv
import gzip
import io
import json

import duckdb
import pytest

from irwarehouse.analyst.teams import default_team
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA, REALDATA

RUN = DATA / "runs" / "STANDARD.results.test"


def _ok(*args):
    result = irw(*[str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def _rows(path, sql, params=None):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def wh_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("housekeeping") / "w.duckdb"
    _ok("ingest", "qrels", DATA / "qrels.test", "-C", "c", "-w", path)
    _ok("ingest", "run", RUN, "-C", "c", "--team", "std", "-w", path)
    _ok("ingest", "run", RUN, "-C", "c", "--name", "other", "-w", path)
    _ok("eval", "-C", "c", "-m", "map", "--store", "-w", path)
    _ok("compare", "-C", "c", "-m", "map", "--test", "t", "--store", "-w", path)
    return path


@pytest.fixture(scope="module")
def blank_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("blank") / "w.duckdb"
    _ok("init", "-w", path)
    return path


@pytest.fixture
def blank(blank_template, tmp_path):
    """A new warehouse (a copy: making one applies the whole schema, seconds each)."""
    import shutil
    path = tmp_path / "blank.duckdb"
    shutil.copy(blank_template, path)
    return path


@pytest.fixture
def wh(wh_template, tmp_path):
    """A private copy of the small warehouse (tests rename and remove)."""
    import shutil
    path = tmp_path / "w.duckdb"
    shutil.copy(wh_template, path)
    return path


# -- irw runs ---------------------------------------------------------------------------------
def test_runs_lists_rows_topics_team(wh):
    out = _ok("runs", "-C", "c", "-w", wh, "--format", "json").stdout
    got = {r["run"]: r for r in json.loads(out)}
    assert set(got) == {"STANDARD", "other"}
    assert got["STANDARD"]["rows"] == 1500 and got["STANDARD"]["team"] == "std"
    assert got["STANDARD"]["topics"] == _rows(wh, "SELECT count(DISTINCT topic) FROM run_row "
                                               "JOIN run USING (run_id) WHERE name = "
                                               "'STANDARD'")[0][0]
    table = _ok("runs", "-C", "c", "-w", wh).stdout.splitlines()
    assert table[0].split()[:5] == ["campaign", "run", "team", "rows", "topics"]
    assert "(2 rows)" in table[-1]
    lines = list(csv.reader(io.StringIO(_ok("runs", "-w", wh, "-f", "csv").stdout)))
    assert len(lines) == 3


def test_runs_of_unknown_campaign(wh):
    result = irw("runs", "-C", "nope", "-w", str(wh))
    assert result.exit_code == 1 and "no campaign 'nope'" in one_line(result)


# -- irw rename -------------------------------------------------------------------------------
def test_rename_run_follows_into_stored_comparisons(wh):
    _ok("rename", "run", "other", "renamed", "-C", "c", "-w", wh)
    assert _rows(wh, "SELECT name FROM run ORDER BY name") == [("STANDARD",), ("renamed",)]
    pairs = _rows(wh, "SELECT run_a, run_b FROM significance")
    assert pairs and all("other" not in p for p in pairs)
    assert any("renamed" in p for p in pairs)
    scores = _rows(wh, "SELECT count(*) FROM topic_score WHERE run = 'renamed'")[0][0]
    assert scores > 0


def test_rename_campaign_and_qrels(wh):
    _ok("rename", "campaign", "c", "c2", "-w", wh)
    assert _rows(wh, "SELECT DISTINCT campaign FROM significance") == [("c2",)]
    _ok("rename", "qrels", "qrels.test", "official", "-C", "c2", "-w", wh)
    assert _rows(wh, "SELECT name FROM qrels") == [("official",)]
    assert _rows(wh, "SELECT DISTINCT qrels FROM topic_score") == [("official",)]


@pytest.mark.parametrize("args, message", [
    (("run", "nope", "x", "-C", "c"), "no run 'nope' in campaign 'c'"),
    (("run", "other", "STANDARD", "-C", "c"), "has a run 'STANDARD' already"),
    (("run", "other", "x"), "needs its campaign (-C NAME)"),
    (("campaign", "nope", "x"), "no campaign 'nope'"),
    (("run", "other", "a\tb", "-C", "c"), "bad run name"),
])
def test_rename_errors_change_nothing(wh, args, message):
    before = _rows(wh, "SELECT name FROM run ORDER BY name")
    result = irw("rename", *args, "-w", str(wh))
    assert result.exit_code == 1 and message in one_line(result)
    assert _rows(wh, "SELECT name FROM run ORDER BY name") == before


# -- irw ingest topics ------------------------------------------------------------------------
TREC_TOPICS = """<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences impede the integration
of foreign minorities in Germany?

<narr> Narrative:
A relevant document will focus on the causes.
</top>

<top>
<num> Number: 402
<title> behavioral genetics
<desc> Description:
What is happening in the field of behavioral genetics?
</top>
"""

NTCIR_TOPICS = """<?xml version="1.0" encoding="UTF-8"?>
<topics>
  <topic>
    <number>0001</number>
    <query>mac os x lion</query>
    <description>Find information on the operating system.</description>
  </topic>
  <topic><number>0002</number><query>tokyo &amp; kyoto</query></topic>
</topics>
"""


def test_ingest_trec_topics(tmp_path, blank):
    path, topics = blank, tmp_path / "topics.401-402.gz"
    topics.write_bytes(gzip.compress(TREC_TOPICS.encode()))
    out = _ok("ingest", "topics", topics, "-C", "robust", "-w", path).stdout
    assert "ingested 2 topics" in out
    assert _rows(path, "SELECT topic, title, description FROM topic ORDER BY topic") == [
        ("401", "foreign minorities, Germany", "What language and cultural differences "
         "impede the integration of foreign minorities in Germany?"),
        ("402", "behavioral genetics", "What is happening in the field of behavioral "
         "genetics?")]


def test_ingest_ntcir_xml_topics(tmp_path, blank):
    path, topics = blank, tmp_path / "topics.xml"
    topics.write_text(NTCIR_TOPICS)
    _ok("ingest", "topics", topics, "-C", "ntcir", "-w", path)
    assert _rows(path, "SELECT topic, title FROM topic ORDER BY topic") == [
        ("0001", "mac os x lion"), ("0002", "tokyo & kyoto")]


@pytest.mark.realdata
@pytest.mark.parametrize("rel, first, n, kind", [
    ("ntcir16_www4_english/www4topics.xml", ("0201", "Timnit Gebru Google"), 50, None),
    ("trec2012_web_diversity/qrels/full-topics.xml", ("151", "403b"), 50, "faceted"),
    ("trec2012_web_diversity/qrels/queries.151-200.txt", ("151", "403b"), 50, None)])
def test_ingest_real_topic_files(blank, rel, first, n, kind):
    if not (REALDATA / rel).exists():
        pytest.skip("../shared/realdata is not beside the repository")
    path = blank
    _ok("ingest", "topics", REALDATA / rel, "-C", "c", "-w", path)
    rows = _rows(path, "SELECT topic, title, topic_type FROM topic ORDER BY topic")
    assert len(rows) == n and rows[0][:2] == first and rows[0][2] == kind


@pytest.mark.parametrize("text, line, message", [
    ("<top>\n<num> Number: 401\n<title> a\n", 1, "<top> without </top>"),
    ("<top>\n<title> a\n</top>\n", 1, "topic without a number"),
    ("<top>\n<num> Number: 1\n</top>\n<top>\n<num> Number: 1\n</top>\n", 4, "topic '1' again"),
    ("<topics>\n<topic><query>a</query></topic>\n</topics>\n", 2, "without a topic id"),
    ("<topics>\n<topic><number>1</number>\n</topics>\n", 3, "not well-formed XML"),
    ("401 no separator\n", 1, "expected id<TAB>title"),
])
def test_bad_topic_files_name_file_and_line(tmp_path, blank, text, line, message):
    path, topics = blank, tmp_path / "t.txt"
    topics.write_text(text)
    result = irw("ingest", "topics", str(topics), "-C", "c", "-w", str(path))
    assert result.exit_code == 1
    assert f"t.txt:{line}: " in one_line(result) and message in one_line(result)


def test_topics_not_in_the_qrels_are_warned(wh, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("9991\tnothing\n")
    result = _ok("ingest", "topics", topics, "-C", "c", "-w", wh)
    assert "0 of them judged" in result.stdout and "warning" in result.stderr


# -- teams ------------------------------------------------------------------------------------
@pytest.mark.parametrize("run, team", [
    ("MU03rob01", "MU"), ("KASYS-CO-REV-6", "KASYS"), ("THUIR-CO-NEW-2", "THUIR"),
    ("THUIRr0301", "THUIR"), ("pircRBa1", "pirc"), ("uwmtCR0", "uwmt"), ("VTcdhgp1", "VT"),
    ("SABIR03BASE", "SABIR"), ("fub03IeOLKe3", "fub"), ("humR03dc", "hum"),
    ("rm.results-cata", "rm"), ("UAmsT03RDesc", "UAmsT"), ("123", None)])
def test_default_team(run, team):
    assert default_team(run) == team


def test_team_file_joins_a_team_across_campaigns(tmp_path, blank):
    path = blank
    for campaign, name in (("robust03", "THUIRr0301"), ("www4", "THUIR-CO-NEW-2"),
                           ("robust03", "UAmsT03RDesc")):
        _ok("ingest", "run", RUN, "-C", campaign, "--name", name, "-w", path)
    teams = tmp_path / "teams.tsv"
    teams.write_text("# run\tteam\nUAmsT03RDesc\tUAms\nTHUIRr0301\tTHUIR\nTHUIR-CO-NEW-2\tTHUIR\n")
    out = _ok("ingest", "teams", teams, "-C", "robust03", "-w", path).stdout
    assert "set the team of 2 runs" in out
    _ok("ingest", "teams", teams, "-C", "www4", "-w", path)
    families = _rows(path, "SELECT campaign, family FROM run_family WHERE family = 'THUIR' "
                           "ORDER BY campaign")
    assert families == [("robust03", "THUIR"), ("www4", "THUIR")]
    assert _rows(path, "SELECT team FROM run WHERE name = 'UAmsT03RDesc'") == [("UAms",)]


@pytest.mark.parametrize("text, line, message", [
    ("a\tb\tc\n", 1, "expected 2 tab-separated fields"),
    ("a\tb\na\tc\n", 2, "given team 'b' at line 1"),
])
def test_bad_team_files(tmp_path, blank, text, line, message):
    path = blank
    _ok("ingest", "run", RUN, "-C", "c", "--name", "a", "-w", path)
    teams = tmp_path / "teams.tsv"
    teams.write_text(text)
    before = _rows(path, "SELECT team FROM run")
    result = irw("ingest", "teams", str(teams), "-C", "c", "-w", str(path))
    assert result.exit_code == 1
    assert f"teams.tsv:{line}: " in one_line(result) and message in one_line(result)
    assert _rows(path, "SELECT team FROM run") == before
