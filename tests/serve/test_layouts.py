"""The Markdown and LaTeX table layouts (meta/render) the workspace's downloads use."""

from irwarehouse.meta.render import FORMATS, render


def test_markdown_and_latex_layouts():
    rows = [{"run": "a|b_1", "map": 0.123456, "n": 3}, {"run": "50% & $x^2$", "map": None,
                                                        "n": 10}]
    assert {"markdown", "latex"} <= set(FORMATS)
    assert render(rows, "markdown") == (
        "| run | map | n |\n"
        "|:---|---:|---:|\n"
        "| a\\|b_1 | 0.1235 | 3 |\n"
        "| 50% & $x^2$ | - | 10 |\n")
    assert render(rows, "latex") == (
        "\\begin{tabular}{lrr}\n\\toprule\n"
        "run & map & n \\\\\n\\midrule\n"
        "a|b\\_1 & 0.1235 & 3 \\\\\n"
        "50\\% \\& \\$x\\textasciicircum{}2\\$ & - & 10 \\\\\n"
        "\\bottomrule\n\\end{tabular}\n")
