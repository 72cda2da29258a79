"""`irw report` on ROUGE and nugget scores (issue 17), end to end through the CLI: a campaign of
text outputs only (tests/data/rouge155_see: two topics, runs A and B, ROUGE-1.5.5's own
per-evaluation values in expected.txt) and the same texts beside ranked runs (the sample's
qrels and run, trec_eval's map in tests/data/trec_eval/out.test)."""

from __future__ import annotations

import re
from html import unescape
import statistics

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.query import run_sql
from irwarehouse.cli import app
from tests.helpers.paths import DATA, TEST_DATA

SEE = TEST_DATA / "rouge155_see"
T_975_DF1 = 12.706204736174698         # t(0.975, 1): two topics
# Nuggets of the two topics (weights 1), each run's matches and output lengths; nugget F
# (beta 3, allowance 100 characters per matched nugget; Voorhees, TREC 2003 QA overview):
# t01 A: R = 1/2, l = 150 > 100 so P = 1 - 50/150 = 2/3, F = 10 P R / (9 P + R) = 20/39;
# t01 B: R = 1, l = 40 <= 200, F = 1; t02 A: R = 1, F = 1; t02 B: nothing matched, F = 0.
NUGGETS = {"gold.tsv": "t01\tn1\t1\tranked retrieval\nt01\tn2\t1\tintent\n"
                       "t02\tn1\t1\tquery\n",
           "matches.tsv": "t01\tA\tn1\t20\nt01\tB\tn1\t10\nt01\tB\tn2\t30\nt02\tA\tn1\t15\n",
           "lengths.tsv": "t01\tA\t150\nt01\tB\t40\nt02\tA\t60\nt02\tB\t80\n"}
NUGGET_F = {("A", "t01"): 20 / 39, ("B", "t01"): 1.0, ("A", "t02"): 1.0, ("B", "t02"): 0.0}


def irw(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def rouge155(measure: str) -> dict[tuple[str, str], float]:
    """{(run, topic): value} of e.g. ROUGE-1-R from ROUGE-1.5.5.pl's own -d output."""
    tag, stat = measure.rsplit("-", 1)
    text = (SEE / "expected.txt").read_text()
    pattern = rf"^(\w+) {re.escape(tag)} Eval (\w+)\.\w+ R:([\d.]+) P:([\d.]+) F:([\d.]+)$"
    return {(run, topic): float(m["RPF".index(stat)])
            for run, topic, *m in re.findall(pattern, text, re.MULTILINE)}


def stored(warehouse, campaign: str, measure: str) -> dict[tuple[str, str], float]:
    rows = run_sql(warehouse, f"SELECT run, topic, value FROM topic_score WHERE campaign = "
                              f"'{campaign}' AND measure = '{measure}'").to_pylist()
    return {(r["run"], r["topic"]): r["value"] for r in rows}


def text_campaign(tmp_path, campaign: str = "c") -> str:
    """The SEE configuration's texts, their ROUGE scores (-n 2 -2 4 -u -m, stored) and nugget
    F scores (stored) in one campaign."""
    w = str(tmp_path / "w.duckdb")
    irw("ingest", "texts", SEE / "see.xml", "-C", campaign, "--name", "refs", "-w", w)
    irw("rouge", "-n", "2", "-2", "4", "-u", "-m", "--campaign", campaign, "--references",
        "refs", "--warehouse", w)
    for name, text in NUGGETS.items():
        (tmp_path / name).write_text(text)
    irw("ingest", "nuggets", "-C", campaign, "--name", "gold", "--gold", tmp_path / "gold.tsv",
        "--matches", tmp_path / "matches.tsv", "--lengths", tmp_path / "lengths.tsv", "-w", w)
    irw("nuggets", "-C", campaign, "--nuggets", "gold", "-m", "nuggetF", "--store", "-w", w)
    return w


def run_table(html: str) -> dict[tuple[str, str], str]:
    """{(run, measure): 'mean [lo, hi]'} from the report's first table."""
    table = html[html.index("<h2>Runs: means"):]
    table = table[:table.index("</table>")]
    heads = re.findall(r"<th>([^<]+)</th>", table)
    assert heads[:3] == ["run", "team", "topics"]
    cells = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table[table.index("<tbody>"):], re.DOTALL):
        values = [unescape(re.sub(r"<[^>]+>", "", cell)) for cell in
                  re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]
        assert re.fullmatch(r"\d+", values[2])                   # topics
        for head, cell in zip(heads[3:], values[3:]):
            cells[(values[0], head.removesuffix(" mean [95% CI]"))] = cell
    return cells


def expected_cell(values: list[float]) -> str:
    """Mean and t-based 95% interval over two topics, computed here, not by the warehouse."""
    mean = statistics.fmean(values)
    half = T_975_DF1 * statistics.stdev(values) / len(values) ** 0.5
    return f"{mean:.4f} [{mean - half:.4f}, {mean + half:.4f}]"


def check_queries(out, warehouse, html: str) -> None:
    """Every saved query is the one shown and gives rows through the guarded irw sql."""
    shown = unescape(html)
    for path in (out / "queries").glob("*.sql"):
        assert path.read_text() in shown, path.name
        assert run_sql(warehouse, path.read_text()).to_pylist(), path.name


def test_report_of_a_text_campaign(tmp_path):
    w = text_campaign(tmp_path)
    # the fixture is what the comments say: stored values = ROUGE-1.5.5's own, nugget F by hand
    for measure in ("ROUGE-1-R", "ROUGE-L-F"):
        assert stored(w, "c", measure) == rouge155(measure) != {}
    assert stored(w, "c", "nuggetF") == pytest.approx(NUGGET_F, abs=1e-12)
    out = tmp_path / "report"
    irw("report", "-C", "c", "-m", "ROUGE-1-R", "-m", "ROUGE-L-F", "-m", "nuggetF",
        "-o", out, "-w", w)
    html = (out / "report.html").read_text()
    cells = run_table(html)
    assert len(cells) == 6
    for measure in ("ROUGE-1-R", "ROUGE-L-F", "nuggetF"):
        values = stored(w, "c", measure)
        for run in ("A", "B"):
            assert cells[(run, measure)] == expected_cell([values[(run, "t01")],
                                                           values[(run, "t02")]])
    # ROUGE-1.5.5's values give the same cells; A's ROUGE-1 recall (0.09333 + 0.36735) / 2
    golden = rouge155("ROUGE-1-R")
    assert cells[("A", "ROUGE-1-R")].startswith("0.2303 ")
    assert cells[("B", "ROUGE-1-R")] == expected_cell([golden[("B", "t01")],
                                                       golden[("B", "t02")]])
    assert cells[("A", "nuggetF")].startswith(f"{(20 / 39 + 1) / 2:.4f} ")
    # the text scores are named with the set and options they are filed under
    assert "ROUGE-1-R (refs, -f A -p 0.5 -m); ROUGE-L-F (refs, -f A -p 0.5 -m); " \
           "nuggetF (gold)" in html
    # baseline: the lower median run by the first measure; significance against it
    r1 = stored(w, "c", "ROUGE-1-R")
    baseline = min(("A", "B"), key=lambda run: r1[(run, "t01")] + r1[(run, "t02")])
    other = "B" if baseline == "A" else "A"
    assert f"<td>{baseline}</td></tr><tr><td>warehouse</td>" in html
    sig = run_sql(w, (out / "queries" / "significance.sql").read_text()).to_pylist()
    assert {r["measure"] for r in sig} == {"ROUGE-1-R", "ROUGE-L-F", "nuggetF"}
    for row in sig:
        values = stored(w, "c", row["measure"])
        deltas = [values[(other, t)] - values[(baseline, t)] for t in ("t01", "t02")]
        assert row["run"] == other and row["mean_delta"] == pytest.approx(
            statistics.fmean(deltas), abs=1e-12)
        assert row["wins"] == sum(d > 0 for d in deltas)
    hard = run_sql(w, (out / "queries" / "hard_topics.sql").read_text()).to_pylist()
    assert hard[0]["topic"] == min(("t01", "t02"), key=lambda t: r1[("A", t)] + r1[("B", t)])
    assert "ROUGE-1-R: randomised Tukey HSD, B = 5000, seed = 1; 2 topics, 2 runs." in html
    # the ranked-only figures are left out with a note, not an error
    assert "Curves of ranked runs: not in this report" in html
    assert "Precision histogram and click logs: not in this report" in html
    figures = sorted(p.stem for p in (out / "figures").glob("*.png"))
    assert figures == ["deltas", "heatmap", "means_ci"]
    assert html.count("data:image/png;base64,") == 3
    queries = sorted(p.stem for p in (out / "queries").glob("*.sql"))
    assert queries == ["deltas", "hard_topics", "heatmap", "run_means", "significance",
                       "text_scores"]
    check_queries(out, w, html)
    # nothing was evaluated or stored for the report
    assert run_sql(w, "SELECT DISTINCT family FROM topic_score ORDER BY 1").to_pylist() == \
        [{"family": "nuggets"}, {"family": "rouge"}]


def test_report_of_a_text_campaign_by_default_and_a_scatter(tmp_path):
    """Without -m: every stored text score (ROUGE-1-F first); --scatter takes text scores."""
    w = text_campaign(tmp_path)
    out = tmp_path / "report"
    irw("report", "-C", "c", "--scatter", "ROUGE-2-F,nuggetF", "-o", out, "-w", w)
    html = (out / "report.html").read_text()
    stored_names = [r["measure"] for r in run_sql(
        w, "SELECT DISTINCT measure FROM topic_score ORDER BY 1").to_pylist()]
    assert len(stored_names) == 13 and stored_names[0] == "ROUGE-1-F"
    assert f"<td>measures</td><td>{', '.join(stored_names)}</td>" in html
    assert "Per-topic heat map (ROUGE-1-F)" in html
    rows = run_sql(w, (out / "queries" / "scatter.sql").read_text()).to_pylist()
    r2, nf = stored(w, "c", "ROUGE-2-F"), stored(w, "c", "nuggetF")
    assert rows == [{"run": run, "x": pytest.approx(statistics.fmean(
                        [r2[(run, "t01")], r2[(run, "t02")]]), abs=1e-12),
                     "y": pytest.approx(statistics.fmean(
                        [nf[(run, "t01")], nf[(run, "t02")]]), abs=1e-12)}
                    for run in ("A", "B")]
    assert "ROUGE-2-F against nuggetF" in html


def test_report_of_ranked_runs_and_texts(tmp_path):
    """A mixed campaign: map of the ranked runs (the only qrels of judgments is chosen) beside
    ROUGE of the text outputs; the curves cover the ranked runs."""
    w = text_campaign(tmp_path, "mix")
    irw("ingest", "qrels", DATA / "qrels.test", "-C", "mix", "-w", w)
    irw("ingest", "run", DATA / "runs" / "STANDARD.results.test", "-C", "mix", "-w", w)
    irw("ingest", "run", DATA / "runs" / "STANDARD.results.trunc", "-C", "mix",
        "--name", "TRUNC", "-w", w)
    out = tmp_path / "report"
    irw("report", "-C", "mix", "-m", "map", "-m", "ROUGE-1-R", "-o", out, "-w", w)
    html = (out / "report.html").read_text()
    cells = run_table(html)
    maps = stored(w, "mix", "map")
    official = float(re.search(r"^map\s+all\s+([\d.]+)$",
                               (TEST_DATA / "trec_eval" / "out.test").read_text(),
                               re.MULTILINE).group(1))
    assert statistics.fmean(v for (r, _), v in maps.items() if r == "STANDARD") == \
        pytest.approx(official, abs=5e-5)                     # trec_eval's map
    r1 = stored(w, "mix", "ROUGE-1-R")
    for run in ("A", "B"):
        assert cells[(run, "map")] == "–"
        assert cells[(run, "ROUGE-1-R")] == expected_cell([r1[(run, "t01")],
                                                           r1[(run, "t02")]])
    for run in ("STANDARD", "TRUNC"):
        assert cells[(run, "ROUGE-1-R")] == "–"
        assert cells[(run, "map")].startswith(
            f"{statistics.fmean(v for (r, _), v in maps.items() if r == run):.4f} [")
    assert "<td>qrels</td><td>qrels.test</td>" in html
    # the baseline (the lower median by map) is ranked: the ROUGE rows are missing, said so
    assert "<td>baseline</td><td>TRUNC</td>" in html
    assert "TRUNC has no ROUGE-1-R scores" in html
    figures = {p.stem for p in (out / "figures").glob("*.png")}
    assert {"pr_curves", "by_rank", "cg_curves", "precision_histogram"} <= figures
    pr = run_sql(w, (out / "queries" / "pr_curves.sql").read_text()).to_pylist()
    assert {r["run"] for r in pr} == {"STANDARD", "TRUNC"}
    check_queries(out, w, html)
    # a text run as the baseline: no precision histogram, with a note
    res = CliRunner().invoke(app, ["report", "-C", "mix", "-m", "ROUGE-1-R", "-m", "map",
                                   "--baseline", "B", "-o", str(tmp_path / "r2"), "-w", w])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r2" / "report.html").read_text()
    assert "the baseline B is not a ranked run" in html and "B has no map scores" in html
    assert (tmp_path / "r2" / "figures" / "pr_curves.png").exists()


def test_report_errors_on_text_campaigns(tmp_path):
    w = text_campaign(tmp_path)
    runner = CliRunner()
    base = ["report", "-C", "c", "-o", str(tmp_path / "r"), "-w", w]
    res = runner.invoke(app, base + ["-m", "map"])
    assert res.exit_code == 1
    assert "campaign 'c' has no ranked runs, so no map scores; its stored text scores: " \
           "ROUGE-1-F" in res.output
    res = runner.invoke(app, base + ["-m", "ROUGE-9-Q"])
    assert res.exit_code == 1 and "no ROUGE-9-Q scores" in res.output
    # ROUGE-1-R stored with a second option set: the report reads one
    irw("rouge", "-n", "1", "--campaign", "c", "--references", "refs", "--warehouse", w)
    res = runner.invoke(app, base + ["-m", "ROUGE-1-R"])
    assert res.exit_code == 1
    assert "scores of 'ROUGE-1-R' are stored several times in campaign 'c' (refs with " \
           "options '-f A -p 0.5'; refs with options '-f A -p 0.5 -m')" in res.output
    assert res.output.count("\n") == 1
