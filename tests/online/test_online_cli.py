"""The online commands end to end (typer's runner): ingest errors (file:line, exit 1, nothing
written), session measures stored and compared, interleaving with a click log, preferences and
predictive power, A/B, and the user-oriented measures and E/F worked by hand."""

from __future__ import annotations

import json

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from tests.helpers.online_logs import write_qrels, write_sessions

RUN = CliRunner()


def irw(*args):
    return RUN.invoke(app, [str(a) for a in args])


@pytest.fixture
def camp(tmp_path):
    w = tmp_path / "w.duckdb"
    qrels = {("t1", "a"): 1, ("t1", "b"): 0, ("t1", "c"): 2, ("t1", "d"): 1,
             ("t2", "a"): 1, ("t2", "e"): 1}
    assert irw("ingest", "qrels", write_qrels(tmp_path / "q.txt", qrels), "-C", "c",
               "-w", w).exit_code == 0
    for name, lines in (("A", {"t1": "acbd", "t2": "ae"}), ("B", {"t1": "bdca", "t2": "ea"})):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} {name}\n"
                                for t, docs in lines.items() for i, d in enumerate(docs)))
        assert irw("ingest", "run", path, "-C", "c", "-w", w).exit_code == 0
    return tmp_path, w


def test_bad_session_rows(camp):
    tmp, w = camp
    cases = [
        ([("s", "t1", 1, 1, "a", 2, None, None)], "clicked '2' is not 0 or 1"),
        ([("s", "t1", 0, 1, "a", 0, None, None)], "query_no '0' is not a positive integer"),
        ([("s", "t1", 1, 1, "a", 0, None, None), ("s", "t2", 2, 1, "a", 0, None, None)],
         "one topic per session"),
        ([("s", "t1", 1, 1, "a", 0, None, None), ("s", "t1", 1, 1, "b", 0, None, None)],
         "appears twice"),
        ([("s", "t1", 1, 1, "a", 0, 5, None)], "not clicked"),
    ]
    for i, (rows, message) in enumerate(cases):
        path = write_sessions(tmp / f"bad{i}.tsv", rows)
        res = irw("ingest", "sessions", path, "-C", "c", "--run", "S", "-w", w)
        assert res.exit_code == 1
        assert f"bad{i}.tsv:" in res.output and message in res.output
    bad = tmp / "badhead.tsv"
    bad.write_text("session\ttopic\trank\tdoc\nx\tt1\t1\ta\n")
    res = irw("ingest", "sessions", bad, "-C", "c", "-w", w)
    assert res.exit_code == 1 and "badhead.tsv:1:" in res.output and "query_no" in res.output
    con = duckdb.connect(str(w), read_only=True)
    assert con.execute("SELECT count(*) FROM session_row").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM run").fetchone()[0] == 2
    con.close()


def _log(tmp, name, clicks):
    rows = []
    for s, (topic, docs) in enumerate((("t1", "acbd"), ("t1", "cadb"), ("t2", "ea"))):
        for r, d in enumerate(docs, 1):
            c = d in clicks
            rows.append((f"{name}{s}", topic, 1, r, d, int(c), 3.0 * r if c else None,
                         40 if c else None))
    return write_sessions(tmp / f"{name}.tsv", rows)


def test_sessions_scores_compare_ab(camp):
    tmp, w = camp
    assert irw("ingest", "sessions", _log(tmp, "x", "ac"), "-C", "c", "--run", "X",
               "-w", w).exit_code == 0
    assert irw("ingest", "sessions", _log(tmp, "y", "e"), "-C", "c", "--system", "Y",
               "-w", w).exit_code == 0
    res = irw("ingest", "sessions", _log(tmp, "x", "ac"), "-C", "c", "--run", "X", "-w", w)
    assert res.exit_code == 1 and "--replace" in res.output
    res = irw("ingest", "sessions", _log(tmp, "x", "ac"), "-C", "c", "--run", "A", "-w", w)
    assert res.exit_code == 1 and "ranked run" in res.output
    res = irw("online", "eval", "-C", "c", "-m", "sDCG@3", "-m", "CTR", "--level", "topic",
              "--store", "-f", "json", "-w", w)
    assert res.exit_code == 0, res.output
    res = irw("compare", "-C", "c", "-m", "CTR", "--run", "X", "--run", "Y", "--test", "t",
              "-w", w)
    assert res.exit_code == 0, res.output
    assert "X" in res.output and "Y" in res.output
    con = duckdb.connect(str(w), read_only=True)
    got = dict(con.execute("SELECT run || '/' || topic, value FROM topic_score "
                           "WHERE measure = 'CTR'").fetchall())
    con.close()
    # X: t1 sessions click a and c of 4 (0.5 each), t2 clicks a of 2 (0.5); Y: t2 e only
    assert got == {"X/t1": 0.5, "X/t2": 0.5, "Y/t1": 0.0, "Y/t2": 0.5}
    res = irw("online", "ab", "-C", "c", "--a", "X", "--b", "Y", "-f", "json", "-w", w)
    assert res.exit_code == 0, res.output
    rows = {r["measure"]: r for r in json.loads(res.stdout)}
    assert rows["CTR"]["mean_a"] == pytest.approx(0.5)
    assert rows["CTR"]["mean_b"] == pytest.approx(1 / 6)
    assert rows["abandonment"]["mean_b"] == pytest.approx(2 / 3)
    assert rows["CTR"]["ci_low"] <= rows["CTR"]["delta"] <= rows["CTR"]["ci_high"]


def test_interleave_with_clicks(camp):
    tmp, w = camp
    out = tmp / "il.run"
    res = irw("interleave", "-C", "c", "--run", "A", "--run", "B", "--method", "team_draft",
              "--seed", "3", "--depth", "4", "--out", out, "-w", w)
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(w), read_only=True)
    lists = con.execute("SELECT topic, rank, doc, team FROM interleaved_row "
                        "ORDER BY topic, rank").fetchall()
    con.close()
    assert [line.split()[2] for line in out.read_text().splitlines()] == [r[2] for r in lists]
    # every impression clicks the documents of team A: A wins each one with a click
    rows = [(f"u{u}-{t}", t, 1, r, d, int(team == "A"), None, None)
            for u in range(5) for t, r, d, team in lists]
    clicks = write_sessions(tmp / "clicks.tsv", rows)
    res = irw("interleave", "-C", "c", "--run", "A", "--run", "B", "--method", "team_draft",
              "--seed", "3", "--clicks", clicks, "-f", "json", "-w", w)
    assert res.exit_code == 0, res.output
    (summary,) = json.loads(res.stdout)
    assert summary["wins"] == 10 and summary["losses"] == 0 and summary["ties"] == 0
    assert summary["delta"] == 0.5 and summary["p_sign"] == pytest.approx(2 / 2 ** 10)
    wrong = write_sessions(tmp / "wrong.tsv", [("u", "t1", 1, 1, "zz", 1, None, None)])
    res = irw("interleave", "-C", "c", "--name", "A~B.team_draft.3", "--clicks", wrong,
              "-w", w)
    assert res.exit_code == 1 and "wrong.tsv:2:" in res.output


def test_preferences_and_predictive_power(camp):
    tmp, w = camp
    prefs = tmp / "prefs.txt"
    prefs.write_text("topic left_run right_run preference assessor\n"
                     "t1 A B left p1\nt1 B A right p2\nt2 A B right p1\nt2 A B tie p3\n")
    assert irw("ingest", "preferences", prefs, "-w", w).exit_code == 0
    bad = tmp / "bad.txt"
    bad.write_text("t1 A Z left p1\n")
    res = irw("ingest", "preferences", bad, "-C", "c", "-w", w)
    assert res.exit_code == 1 and "bad.txt:1: no run 'Z'" in res.output
    res = irw("online", "preferences", "-C", "c", "-f", "json", "-w", w)
    assert json.loads(res.stdout) == [{"left_run": "A", "right_run": "B", "left": 2,
                                      "right": 1, "ties": 1, "p": 1.0}]
    assert irw("eval", "-C", "c", "-m", "P.1", "--store", "-w", w).exit_code == 0
    res = irw("meta", "predictive-power", "-C", "c", "-m", "P.1", "-f", "json", "-w", w)
    assert res.exit_code == 0, res.output
    (got,) = json.loads(res.stdout)
    # P@1: t1 A=1 (a), B=0 (b): agrees with both t1 preferences; t2 A=1 (a), B=1 (e): a
    # metric tie on the preference for B
    assert (got["agree"], got["disagree"], got["metric_ties"], got["people_ties"]) == \
        (2, 0, 1, 1)
    assert got["predictive_power"] == pytest.approx(2 / 3)


def test_user_oriented_and_e_f(camp):
    tmp, w = camp
    known = tmp / "known.txt"
    known.write_text("u1 t1 a\nu1 t1 d\nu1 t1 b\nu2 t1 c\n")
    assert irw("ingest", "known", known, "-C", "c", "-w", w).exit_code == 0
    res = irw("online", "eval", "-C", "c", "--run", "A", "-m", "coverage@2", "-m",
              "novelty@2", "-m", "relative_recall@2", "-m", "recall_effort", "-m",
              "E(b=0)@2", "-m", "F@2", "-m", "E@2", "-q", "-f", "json", "-w", w)
    assert res.exit_code == 0, res.output
    got = {(r["measure"], r["topic"]): r["value"] for r in json.loads(res.stdout)}
    # run A, t1: a c b d; R = {a, c, d}; top 2 = {a, c}.
    # u1: K∩R = {a, d}: coverage 1/2, novelty |{a,c} - K|/2 = 1/2, relative recall 2/2;
    # u2: K∩R = {c}: coverage 1, novelty 1/2, relative recall 2/1.
    assert got[("coverage@2", "t1")] == pytest.approx((0.5 + 1) / 2)
    assert got[("novelty@2", "t1")] == pytest.approx(0.5)
    assert got[("relative_recall@2", "t1")] == pytest.approx((1 + 2) / 2)
    # recall effort, whole list: u1 expects 2 -> found at rank 2: 2/2; u2 expects 1: 1/1
    assert got[("recall_effort", "t1")] == pytest.approx(1.0)
    # E(b=0) = 1 - P(2) = 0; F(2) = 2 P r / (P + r), P = 1, r = 2/3 -> 0.8 = 1 - E(b=1)
    assert got[("E(b=0)@2", "t1")] == pytest.approx(0.0)
    assert got[("F@2", "t1")] == pytest.approx(0.8)
    assert got[("E@2", "t1")] == pytest.approx(0.2)


def test_report_has_precision_histogram_and_click_logs(camp):
    pytest.importorskip("matplotlib")
    tmp, w = camp
    assert irw("ingest", "sessions", _log(tmp, "x", "ac"), "-C", "c", "--run", "X",
               "-w", w).exit_code == 0
    res = irw("report", "-C", "c", "-o", tmp / "rep", "--baseline", "A", "-w", w)
    assert res.exit_code == 0, res.output
    text = (tmp / "rep" / "report.html").read_text()
    assert "Precision histogram against A" in text and "Click logs" in text
    assert (tmp / "rep" / "figures" / "precision_histogram.svg").is_file()
    assert "run_delta('A', 'Rprec')" in (tmp / "rep" / "queries" /
                                         "precision_histogram.sql").read_text()
