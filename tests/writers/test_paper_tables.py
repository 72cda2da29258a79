"""Paper-ready tables (issue 34, item 6): `--format latex|markdown` of `irw eval -C`,
`irw compare` and `irw meta report` (irwarehouse.writers.paper).

Expected significance marks come from scipy's paired t-test on the same per-topic values (never
from irwarehouse's tests); expected numbers are written out by hand."""

import os
import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.writers import paper

RUNS = ("best_run", "mid&run", "low%run#1")     # LaTeX specials in the names


def _write_campaign(folder, n_topics=15, seed=5):
    """Three runs of clearly different quality, and one that ties the middle one per topic
    on average only by chance: relevant documents planted at the top of each ranking."""
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels"
    with open(qrels, "w") as f:
        for t in range(n_topics):
            f.writelines(f"{t} 0 d{d} {int(d < 10)}\n" for d in range(40))
    paths = []
    for r, name in enumerate(RUNS):
        path = folder / f"run{r}"
        with open(path, "w") as f:
            for t in range(n_topics):
                # run r puts about 8 - 3r relevant documents (d0..d9) in the top 10
                good = int(np.clip(8 - 3 * r + rng.integers(-1, 2), 0, 10))
                order = [f"d{d}" for d in range(good)] + [f"d{d}" for d in range(10, 20)] + \
                    [f"d{d}" for d in range(good, 10)] + [f"d{d}" for d in range(20, 40)]
                f.writelines(f"{t} Q0 {doc} {i} {100 - i} {name}\n"
                             for i, doc in enumerate(order))
        paths.append(path)
    return qrels, paths


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paper")
    qrels, paths = _write_campaign(folder)
    path = folder / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "c")
        for run, name in zip(paths, RUNS):
            wh.ingest_run(run, "c", name=name)
    return path


def _irw(path, *args, code=0):
    result = CliRunner().invoke(app, [*args, "-w", str(path)])
    assert result.exit_code == code, result.output
    return result


def _per_topic(path, measure):
    """run -> per-topic values, in the order irw lists the runs (their letters' order)."""
    with Warehouse(path) as wh:
        matrix = wh.score_matrix("c", measure)
    return {run: matrix.column(run) for run in matrix.runs}


def _expected_letters(columns, alpha=0.05):
    """The letters of the runs each run beats by scipy's paired t-test (ranx's rule: the
    pair is significant and the run's mean is larger)."""
    letters = {run: chr(ord("a") + i) for i, run in enumerate(columns)}
    out = {}
    for run in columns:
        beaten = [other for other in columns if other != run
                  and sps.ttest_rel(columns[run], columns[other]).pvalue < alpha
                  and columns[run].mean() > columns[other].mean()]
        out[run] = "".join(letters[o] for o in beaten)
    return out


def test_latex_escapes_every_special_character():
    assert paper.latex_escape(r"a_b&c%d#e$f{g}~h^i\j<k>l|m") == (
        r"a\_b\&c\%d\#e\$f\{g\}\textasciitilde{}h\textasciicircum{}i\textbackslash{}j"
        r"\textless{}k\textgreater{}l\textbar{}m")
    assert paper.markdown_escape("a_b|c*d") == r"a\_b\|c\*d"


def test_letters_go_past_z():
    assert [paper.letter(i) for i in (0, 1, 25, 26, 27, 51, 52)] == \
        ["a", "b", "z", "aa", "ab", "az", "ba"]


def test_compare_latex_marks_the_runs_each_run_beats_as_scipy_says(campaign):
    out = _irw(campaign, "compare", "-C", "c", "-m", "P.10", "-m", "map", "--test", "t",
               "-f", "latex").stdout
    assert "\\begin{tabular}{clcc}" in out and "\\toprule" in out and "\\bottomrule" in out
    rows = [line for line in out.splitlines() if line[:4] in ("a & ", "b & ", "c & ")]
    order = list(_per_topic(campaign, "map"))
    assert [line.split(" & ")[1] for line in rows] == [paper.latex_escape(r) for r in order]
    assert {paper.latex_escape(r) for r in RUNS} == {"best\\_run", "mid\\&run",
                                                     "low\\%run\\#1"}
    for j, measure in enumerate(("P.10", "map")):
        columns = _per_topic(campaign, measure)
        expected = _expected_letters(columns)
        assert any(expected.values()), "the synthetic runs must differ significantly"
        best = max(columns, key=lambda r: columns[r].mean())
        for i, (run, line) in enumerate(zip(columns, rows)):
            cell = line.rstrip(" \\").split(" & ")[2 + j]
            value = f"{columns[run].mean():.4f}"
            shown = f"\\textbf{{{value}}}" if run == best else value
            assert cell.startswith(shown), (cell, shown)
            marks = f"$^{{{expected[run]}}}$" if expected[run] else ""
            others = "".join(ch for ch in "abc" if ch != "abc"[i] and ch not in expected[run])
            phantom = f"\\hphantom{{$^{{{others}}}$}}" if others else ""
            assert cell == shown + marks + phantom
    caption = next(line for line in out.splitlines() if line.startswith("\\caption"))
    assert "paired t-test" in caption and "alpha = 0.05" in caption
    assert "no correction" in caption


def test_compare_baseline_daggers_as_scipy_says(campaign):
    out = _irw(campaign, "compare", "-C", "c", "-m", "P.10", "--test", "t",
               "--baseline", RUNS[1], "-f", "latex").stdout
    columns = _per_topic(campaign, "P.10")
    lines = {line.split(" & ")[0]: line for line in out.splitlines() if " & " in line}
    assert "\\textbf{\\#}" not in out                      # no letters with a baseline
    for run in (RUNS[0], RUNS[2]):
        p = sps.ttest_rel(columns[run], columns[RUNS[1]]).pvalue
        better = columns[run].mean() > columns[RUNS[1]].mean()
        line = lines[paper.latex_escape(run)]
        if p < 0.05:
            assert ("$^{\\dagger}$" if better else "$^{\\ddagger}$") in line
        else:
            assert "dagger" not in line
    assert "dagger" not in lines[paper.latex_escape(RUNS[1])]
    assert "baseline mid\\&run" in out


def test_digits_percent_and_markdown(campaign):
    columns = _per_topic(campaign, "map")
    means = {run: columns[run].mean() for run in RUNS}
    out = _irw(campaign, "compare", "-C", "c", "-m", "map", "--test", "t", "-f", "markdown",
               "--percent", "--digits", "1").stdout
    lines = out.splitlines()
    assert lines[0] == "| # | Run | map |" and lines[1] == "|:-:|:--|--:|"
    for i, run in enumerate(_per_topic(campaign, "map")):
        cell = lines[2 + i].split(" | ")[2]
        value = f"{100 * means[run]:.1f}"
        assert cell.strip("*").startswith(value), (cell, value)
        assert cell.startswith("**") == (run == max(means, key=means.get))
    assert "(in percent)" in out
    assert "best\\_run" in out and "mid&run" in out


def test_every_value_tied_at_the_printed_precision_is_bold():
    style = paper.Style(digits=2)
    table = paper.PaperTable(caption="c", columns=["m"], rows=[
        ("x", [paper.Cell(0.3041)]), ("y", [paper.Cell(0.2960)]), ("z", [paper.Cell(0.28)])])
    table.mark_best(style)
    assert [row[1][0].bold for row in table.rows] == [True, True, False]   # 0.30, 0.30, 0.28


def test_eval_campaign_latex_and_markdown(campaign):
    columns = _per_topic(campaign, "map")
    out = _irw(campaign, "eval", "-C", "c", "-m", "map", "-m", "num_ret", "-f", "latex",
               "--digits", "3").stdout
    rows = {line.split(" & ")[0]: line for line in out.splitlines() if " & " in line}
    for run in RUNS:
        assert f"{columns[run].mean():.3f}" in rows[paper.latex_escape(run)]
        assert " 600 " in rows[paper.latex_escape(run)] + " "   # 15 topics x 40: an integer
    assert "No significance test" in out
    md = _irw(campaign, "eval", "-C", "c", "-m", "map", "-f", "markdown").stdout
    assert md.startswith("| Run | map |")


def test_paper_options_and_per_topic_refused(campaign):
    res = _irw(campaign, "eval", "-C", "c", "-m", "map", "--digits", "3", code=1)
    assert "--format latex" in res.output and len(res.output.strip().splitlines()) == 1
    res = _irw(campaign, "eval", "-C", "c", "-m", "map", "-q", "-f", "latex", code=1)
    assert "-q" in res.output
    _irw(campaign, "compare", "-C", "c", "-m", "map", "--percent", code=1)


def test_meta_report_writes_the_table(campaign, tmp_path):
    _irw(campaign, "meta", "report", "-C", "c", "-m", "map", "-m", "P.10", "--out",
         str(tmp_path / "r"), "--B-bootstrap", "200", "--B-tukey", "200", "--B-swap", "50",
         "-f", "latex")
    tex = (tmp_path / "r" / "table.tex").read_text()
    assert "\\begin{tabular}{lccccc}" in tex and "B = 200" in tex and "seed 1" in tex
    assert (tmp_path / "r" / "report.md").exists()
    _irw(campaign, "meta", "report", "-C", "c", "-m", "map", "--out", str(tmp_path / "m"),
         "--B-bootstrap", "100", "--B-tukey", "100", "--B-swap", "20", "-f", "markdown")
    assert (tmp_path / "m" / "table.md").read_text().startswith("| Measure | Bootstrap (%)")


@pytest.mark.skipif(shutil.which("pdflatex") is None or shutil.which("pdftoppm") is None,
                    reason="pdflatex and pdftoppm absent (Debian: texlive-latex-base, "
                    "texlive-latex-recommended, poppler-utils; .ci/run installs them)")
def test_latex_compiles_with_pdflatex_and_renders(campaign, tmp_path):
    table = _irw(campaign, "compare", "-C", "c", "-m", "P.10", "-m", "map", "-f", "latex",
                 "--seed", "1").stdout
    meta = tmp_path / "r"
    _irw(campaign, "meta", "report", "-C", "c", "-m", "map", "--out", str(meta),
         "--B-bootstrap", "100", "--B-tukey", "100", "--B-swap", "20", "-f", "latex")
    rankcorr = _irw(campaign, "meta", "rankcorr", "-C", "c", "-m", "map", "-m", "P.10",
                    "-f", "latex").stdout             # any command's records (meta.render)
    document = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
                "\\begin{document}\n"
                + table + (meta / "table.tex").read_text() + rankcorr + "\\end{document}\n")
    (tmp_path / "t.tex").write_text(document)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout[-2000:]
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "t.pdf", "page"],
                   cwd=tmp_path, check=True, timeout=60)
    png = next(tmp_path.glob("page*.png"))
    if os.environ.get("IRW_PAPER_PNG"):        # to look at the page: IRW_PAPER_PNG=/tmp/p.png
        shutil.copy(png, os.environ["IRW_PAPER_PNG"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    if shutil.which("pdftotext"):                  # the names print as written
        text = subprocess.run(["pdftotext", "t.pdf", "-"], cwd=tmp_path, capture_output=True,
                              text=True, check=True).stdout
        for run in RUNS:
            assert run in text


def test_caption_names_test_correction_alpha_and_B():
    from irwarehouse.engine.matrix import ScoreMatrix
    from irwarehouse.stats import compare_all
    values = np.array([[0.1, 0.5, 0.3], [0.2, 0.6, 0.2], [0.3, 0.7, 0.4], [0.2, 0.9, 0.1]])
    matrix = ScoreMatrix(values, ["1", "2", "3", "4"], ["x", "y", "z"], "map")
    holm = compare_all(values, matrix.runs, test="bootstrap", correction="holm", B=300, rng=2,
                       alpha=0.1)
    caption = paper.comparison_table([(holm, matrix)]).caption
    assert "paired bootstrap test" in caption and "Holm correction" in caption
    assert "alpha = 0.1" in caption and "B = 300, seed 2" in caption
    assert "over the 4 topics" in caption
    tukey = compare_all(values, matrix.runs, rng=2)                 # the default: Tukey HSD
    caption = paper.comparison_table([(tukey, matrix)]).caption
    assert "randomised Tukey HSD" in caption and "B = 5000" in caption
    assert "family-wise error itself" in caption


def test_any_records_command_prints_markdown_and_latex(campaign):
    out = _irw(campaign, "meta", "rankcorr", "-C", "c", "-m", "map", "-m", "P.10",
               "-f", "markdown").stdout
    lines = out.splitlines()
    assert lines[0].startswith("| measure\\_a | measure\\_b | kendall |")
    assert lines[2].startswith("| map | P.10 | 1.0000 |")      # three runs, same order
    assert "n\\_runs = 3" in out
    tex = _irw(campaign, "meta", "rankcorr", "-C", "c", "-m", "map", "-m", "P.10",
               "-f", "latex").stdout
    assert "\\begin{tabular}{lcccc}" in tex and "map & P.10 & 1.0000" in tex
