"""Report styling (issue 19, item 10): the 17 runs of TREC 2003 Robust in tab20's colours were
hard to tell apart; every run now has its own colour and marker pair, and runs that share a
colour differ in marker and line style as well."""

from __future__ import annotations

import itertools

from irwarehouse.report import plots


def test_seventeen_runs_have_distinct_styles():
    runs = [f"run{i:02d}" for i in range(17)]
    styles = plots.run_styles(runs)
    pairs = {(s["color"], s["marker"]) for s in styles.values()}
    assert len(pairs) == 17
    for a, b in itertools.combinations(runs, 2):
        if styles[a]["color"] == styles[b]["color"]:
            assert styles[a]["marker"] != styles[b]["marker"]
            assert styles[a]["linestyle"] != styles[b]["linestyle"]


def test_curves_are_drawn_with_the_run_styles(tmp_path, monkeypatch):
    captured = {}

    def keep(fig, folder, name):
        captured[name] = fig
        return ""
    monkeypatch.setattr(plots, "save_pair", keep)
    runs = [f"r{i}" for i in range(17)]
    rows = [{"run": r, "recall": x / 10, "precision": (1 - x / 10) * (i + 1) / 17}
            for i, r in enumerate(runs) for x in range(11)]
    plots.plot_pr(rows, tmp_path)
    lines = captured["pr_curves"].axes[0].get_lines()
    looks = {(line.get_color(), line.get_marker(), line.get_linestyle()) for line in lines}
    assert len(lines) == 17 and len(looks) == 17
    assert len({(line.get_color(), line.get_marker()) for line in lines}) == 17
