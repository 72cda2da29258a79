"""The Markdown and LaTeX table layouts (meta/render, written by writers.paper: the one writer
of paper tables) that the workspace's downloads use: values at 4 decimals, counts as integers,
a missing value as '-', every special character of a name escaped."""

from irwarehouse.meta.render import FORMATS, render


def test_markdown_and_latex_layouts():
    rows = [{"run": "a|b_1", "map": 0.123456, "n": 3}, {"run": "50% & $x^2$", "map": None,
                                                        "n": 10}]
    assert {"markdown", "latex"} <= set(FORMATS)
    assert render(rows, "markdown") == (
        "| run | map | n |\n"
        "|:--|--:|--:|\n"
        "| a\\|b\\_1 | 0.1235 | 3 |\n"
        "| 50% & $x^2$ | - | 10 |\n")
    latex = render(rows, "latex")
    assert "\\begin{tabular}{lcc}\n\\toprule\n" in latex
    assert "\\textbf{run} & \\textbf{map} & \\textbf{n} \\\\\n\\midrule\n" in latex
    assert "a\\textbar{}b\\_1 & 0.1235 & 3 \\\\\n" in latex
    assert "50\\% \\& \\$x\\textasciicircum{}2\\$ & - & 10 \\\\\n" in latex
    assert latex.endswith("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
