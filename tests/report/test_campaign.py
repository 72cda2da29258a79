"""`irw report`: the HTML report, its figures and queries; end to end on real data with a
headless Chromium screenshot when Chromium is installed."""

from __future__ import annotations

import re
import shutil
from html import unescape
import subprocess

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.query import run_sql
from irwarehouse.api import Warehouse
from irwarehouse.cli import app

CHROMIUM = "/usr/bin/chromium"
FIGURES = ["means_ci", "heatmap", "pr_curves", "by_rank", "deltas",
           "precision_histogram"]      # the last: issue 16 (irwarehouse.online.report)


def _check_report(out, warehouse, extra=()):
    html = (out / "report.html").read_text()
    # ASL curves need three runs or more; the report says so otherwise
    asl = [] if "(fewer than three runs)" in html else ["asl_curves"]
    figures = FIGURES + ["cg_curves", *asl] + list(extra)
    assert "http://" not in html and "https://" not in html          # self-contained
    assert html.count("data:image/png;base64,") == len(figures)
    for name in figures:
        assert (out / "figures" / f"{name}.png").stat().st_size > 5_000
        assert (out / "figures" / f"{name}.svg").read_text().lstrip().startswith("<?xml")
    queries = sorted((out / "queries").glob("*.sql"))
    assert len(queries) == 8 + len(extra)           # 8th: precision_histogram.sql
    assert html.count("<details><summary>SQL") == len(queries)
    assert "randomised Tukey HSD" in html and "row minus column" in html
    # every shown query runs through the guarded `irw sql` and gives the numbers shown
    for path in queries:
        assert path.read_text() in unescape(html)
        rows = run_sql(warehouse, path.read_text()).to_pylist()
        assert rows, path.name
    means = run_sql(warehouse, (out / "queries" / "run_means.sql").read_text()).to_pylist()
    for row in means:
        assert f"{row['mean']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in html
    return html


def test_report_on_the_sample(sample_warehouse, tmp_path, monkeypatch):
    # relative paths on the command line (issue 19: the report's commands kept them, so they
    # worked only from the folder the report was made in)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report"
    topics = tmp_path / "topics.tsv"        # issue 19: the hardest topics showed bare ids
    topics.write_text("301\tInternational Organized Crime\n302\tPoliomyelitis and Post-Polio\n"
                      "303\tHubble Telescope Achievements\n")
    res = CliRunner().invoke(app, ["ingest", "topics", str(topics), "-C", "sample", "-w",
                                   str(sample_warehouse)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["report", "-w", sample_warehouse.name, "-C", "sample",
                                   "--qrels", "graded", "-m", "P.10", "-m", "map",
                                   "--baseline", "STANDARD", "--scatter", "P.10,ndcg_cut.10",
                                   "-o", "report"])
    assert res.exit_code == 0, res.output
    html = _check_report(out, sample_warehouse, extra=["scatter"])
    assert "P_10 against ndcg_cut_10" in html
    assert "per-topic P_10 difference" not in html             # title is in the PNG, not HTML
    assert "Per-topic differences against STANDARD (P_10)" in html
    # a run's name links to its written run page (the workspace's, beside report.html)
    linked = re.findall(r'<td class="l"><a href="(run-sys\d-[0-9a-f]{8}\.html)">sys\d</a></td>',
                        html)
    assert linked and all((out / name).is_file() for name in linked)
    assert f"irw sql -w {sample_warehouse} -f {out / 'queries' / 'run_means.sql'}" in html
    assert f"irw compare -w {sample_warehouse} -C sample -m P_10 --qrels graded --test tukey" \
        in html
    assert "-f queries/" not in html
    # the Tukey table is an HTML table of the upper triangle that fits the page, not a <pre>
    tukey = html[html.index("randomised Tukey HSD ("):html.index("Hardest topics")]
    assert "<pre>" not in tukey.split("<details>")[0]
    # 4 runs: a header and 4 rows; columns 2-4 (run 1 is never the subtrahend above the
    # diagonal)
    assert tukey.count("<tr>") == 5 and "<th>4</th>" in tukey and "<th>1</th>" not in tukey
    hardest = html[html.index("Hardest topics"):]
    assert '<td class="l">Hubble Telescope Achievements</td>' in hardest


def test_report_errors_are_one_line(sample_warehouse, tmp_path):
    runner = CliRunner()
    base = ["report", "-w", str(sample_warehouse), "-o", str(tmp_path / "r")]
    res = runner.invoke(app, base + ["-C", "sample"])
    assert res.exit_code == 1 and "several qrels" in res.output
    res = runner.invoke(app, base + ["-C", "sample", "--qrels", "graded", "--baseline", "nope"])
    assert res.exit_code == 1 and "no run 'nope'" in res.output
    res = runner.invoke(app, base + ["-C", "nope"])
    assert res.exit_code == 1 and "no runs in campaign 'nope'" in res.output
    res = runner.invoke(app, base + ["-C", "sample", "--qrels", "graded", "--scatter", "map"])
    assert res.exit_code == 1 and "--scatter needs two measures" in res.output


def test_report_with_a_single_run(tmp_path, sample_data):
    """One run: no baseline comparison, the rest of the report still there."""
    wh_path = tmp_path / "one.duckdb"
    with Warehouse(wh_path) as wh:
        wh.ingest_qrels(sample_data / "qrels.test", "one")
        wh.ingest_run(sample_data / "runs" / "STANDARD.results.test", "one")
    out = tmp_path / "r"
    res = CliRunner().invoke(app, ["report", "-w", str(wh_path), "-C", "one", "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = (out / "report.html").read_text()
    # means, heat map, PR curves, by-rank and CG curves; no deltas, no ASL curves
    assert "(no other run)" in html and html.count("data:image/png;base64,") == 5
    assert "(fewer than three runs)" in html
    assert not (out / "figures" / "deltas.png").exists()


def _screenshot(html, png, profile):
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", f"--user-data-dir={profile}", "--hide-scrollbars",
                    "--window-size=1280,2400", f"--screenshot={png}", html.as_uri()],
                   check=True, timeout=180, capture_output=True)


@pytest.mark.slow
@pytest.mark.realdata
def test_end_to_end_sample_and_trec2003_robust(tmp_path, make_runs, sample_data):
    """The sample, TREC 2003 Robust and TREC 2012 Web (ad hoc and diversity qrels) in one
    warehouse, evaluated by the reports themselves, lined up by the cross-campaign view; the
    robust report is opened in headless Chromium when installed."""
    from tests.helpers.paths import REALDATA as realdata
    robust, web = realdata / "trec2003_robust", realdata / "trec2012_web_diversity"
    if not (robust / "runs").is_dir() or not (web / "runs").is_dir():
        pytest.skip("../shared/realdata (trec2003_robust, trec2012_web_diversity) is not present")
    wh_path = tmp_path / "wh.duckdb"
    runner = CliRunner()
    sample_runs = tmp_path / "sample_runs"
    sample_runs.mkdir()
    shutil.copy(sample_data / "runs" / "STANDARD.results.test", sample_runs)
    make_runs(sample_runs, n=2)
    steps = [
        ["ingest", "qrels", str(sample_data / "qrels.test"), "-C", "sample"],
        ["ingest", "runs", str(sample_runs), "-C", "sample", "--year", "2024"],
        ["ingest", "qrels", str(robust / "qrels" / "robust03_qrels.txt"), "-C", "robust03"],
        ["ingest", "runs", str(robust / "runs"), "-C", "robust03", "--year", "2003",
         "--venue", "TREC", "--team-pattern", r"^input\.([A-Za-z]+)"],
        ["ingest", "qrels", str(web / "qrels" / "qrels.adhoc.txt"), "-C", "web2012"],
        ["ingest", "qrels", str(web / "qrels" / "qrels-for-ndeval.txt"), "-C", "web2012",
         "--format", "diversity", "--name", "diversity"],
        # the eight baselines all carry the tag "indri": name them by file
        ["ingest", "runs", str(web / "runs"), "-C", "web2012", "--year", "2012",
         "--names", "file"],
    ]
    for step in steps:
        res = runner.invoke(app, step + ["-w", str(wh_path)])
        assert res.exit_code == 0, (step, res.output)
    reports = {}
    for campaign, extra in [("sample", []), ("robust03", []),
                            ("web2012", ["--qrels", "qrels.adhoc.txt"])]:
        out = tmp_path / f"report-{campaign}"
        res = runner.invoke(app, ["report", "-w", str(wh_path), "-C", campaign, "-o", str(out),
                                  *extra])
        assert res.exit_code == 0, res.output
        _check_report(out, wh_path)
        reports[campaign] = out
    # the diversity judgments of the same campaign: D-nDCG against I-rec (Järvelin & Kekäläinen, ACM TOIS 2002/005)
    out = tmp_path / "report-web2012-diversity"
    res = runner.invoke(app, ["report", "-w", str(wh_path), "-C", "web2012", "-o", str(out),
                              "--qrels", "diversity", "-m", "D-nDCG@10", "-m", "alpha-nDCG@10",
                              "--scatter", "D-nDCG@10,I-rec@10"])
    assert res.exit_code == 0, res.output
    html = _check_report(out, wh_path, extra=["scatter"])
    assert "D-nDCG@10 against I-rec@10" in html
    with Warehouse(wh_path, read_only=True) as wh:
        lined_up = wh.con.execute("""
            SELECT year, count(*), max(rank_in_campaign) FROM cross_campaign
            WHERE measure = 'map' GROUP BY year ORDER BY year""").fetchall()
        pr_rows = wh.con.execute("""SELECT count(*) FROM topic_score
            WHERE campaign = 'robust03' AND starts_with(measure, 'iprec_at_recall_')
            """).fetchall()[0][0]
        official = wh.con.execute("""SELECT mean FROM run_score
            WHERE campaign = 'robust03' AND run = 'aplrob03a' AND measure = 'map'""").fetchall()
        families = wh.con.execute("""SELECT family, count(*) FROM cross_campaign
            WHERE campaign = 'web2012' AND measure = 'map' GROUP BY family ORDER BY family
            """).fetchall()
    assert lined_up == [(2003, 17, 17), (2012, 8, 8), (2024, 3, 3)]
    assert families == [("ql", 4), ("rm", 4)]
    assert pr_rows == 17 * 100 * 11                             # evaluated by the report
    assert official[0][0] == pytest.approx(0.2998, abs=5e-5)    # NIST official MAP
    if not shutil.which(CHROMIUM):
        pytest.skip("no headless Chromium at /usr/bin/chromium; report checked without it")
    png = tmp_path / "report.png"
    _screenshot(reports["robust03"] / "report.html", png, tmp_path / "chromium-profile")
    assert png.stat().st_size > 20_000
    from matplotlib.image import imread
    pixels = imread(str(png))
    assert pixels.shape[0] >= 1000 and pixels.std() > 0.05        # not a blank page


def test_report_of_text_outputs_only_is_a_one_line_error(tmp_path):
    """A campaign of text outputs (issue 17) without stored ROUGE or nugget scores: one line,
    not a traceback (with scores: tests/report/test_textscores.py)."""
    w = str(tmp_path / "w.duckdb")
    (tmp_path / "out.tsv").write_text("t1\tA\tthe cat sat\nt1\tB\ta dog\n")
    (tmp_path / "refs.tsv").write_text("t1\tr1\tthe cat sat on the mat\n")
    runner = CliRunner()
    for args in (["ingest", "texts", str(tmp_path / "out.tsv"), "-C", "c", "-w", w],
                 ["ingest", "texts", str(tmp_path / "refs.tsv"), "-C", "c", "--kind",
                  "references", "--name", "refs", "-w", w]):
        assert runner.invoke(app, args).exit_code == 0
    res = runner.invoke(app, ["report", "-C", "c", "-o", str(tmp_path / "r"), "-w", w])
    assert res.exit_code == 1
    assert "campaign 'c' has no ranked runs and no stored ROUGE or nugget scores" in res.output
