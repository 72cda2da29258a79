"""`irw report` writes the workspace's pages (serve.snapshot): the same page functions and
templates as `irw serve`, linked to each other as files."""

from __future__ import annotations

import re

from tests.serve.conftest import XSS
from tests.serve.server import irw


def test_report_writes_the_workspace_pages(served, tmp_path):
    out = tmp_path / "report"
    done = irw("report", "-C", "sample", "-m", "map", "--baseline", "STANDARD", "-o", out,
               "-w", served)
    assert f"{out / 'report.html'}" in done.stdout
    folder = out                        # report.html and the other pages side by side
    names = {p.name for p in folder.iterdir()}
    assert {"report.html", "index.html", "leaderboard.html", "compare.html", "meta.html",
            "across.html"} <= names
    # the baseline's ranked list on every topic (3 topics in the sample)
    assert len([n for n in names if n.startswith("ranked-") and n.endswith(".html")]) == 3
    for page in folder.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<form" not in text, page.name                 # nothing to submit to
        assert "<img src=x" not in text, page.name            # a stored name is text
        assert "http://" not in text and "https://" not in text, page.name   # no network
        for href in re.findall(r'href="([^"]+)"', text):
            assert (folder / href).is_file(), (page.name, href)    # every link resolves
    board = (folder / "leaderboard.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in board
    expected, run = {}, None
    for line in irw("eval", "-C", "sample", "-m", "map", "-w", served).stdout.splitlines():
        name, _, value = line.split("\t")
        if name.strip() == "runid":
            run = value
        else:
            expected[run] = value
    csv_lines = (folder / "leaderboard.leaderboard.csv").read_text().splitlines()
    shown = {line.split(",")[0].strip('"'): line.split(",")[1] for line in csv_lines[1:]}
    for run, value in expected.items():
        if run == XSS:
            continue
        assert f"{float(shown[run]):.4f}" == value, run
        assert f">{value}" in board
