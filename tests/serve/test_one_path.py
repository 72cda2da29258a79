"""One rendering path (issue 33): `irw report` writes the workspace's pages, so a written page is
the page `irw serve` serves for the same address, but for its links (a file name, or plain text
for a page not written), its forms (nothing to submit to) and what names the mode; and the
report package holds no page code."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.helpers.paths import REPO
from tests.serve.server import get, irw, serving


def _body(html: str) -> str:
    """The page's <main>, modulo links and forms."""
    main = html[html.index("<main>"):html.index("</main>")]
    main = re.sub(r"<form.*?</form>", "", main, flags=re.DOTALL)
    main = re.sub(r'<p class="note">Stored measures:.*?</p>', "", main, flags=re.DOTALL)
    main = re.sub(r"<a\b[^>]*>open in the console</a>", "", main)  # the console: live only
    main = re.sub(r"</?a\b[^>]*>", "", main)
    return re.sub(r"\s+", " ", main).strip()


def _report_body(html: str) -> str:
    """The report page's sections, modulo what names where it was made (the SQL blocks'
    command, the facts: warehouse path, time) and the figures' bytes (checked apart)."""
    body = _body(html)
    body = body[body.index("<section"):]
    body = re.sub(r"<summary>SQL that reproduces these numbers .*?</summary>",
                  "<summary>SQL</summary>", body)
    body = re.sub(r"-w \S+", "-w W", body)       # the live page names no server path
    return re.sub(r'src="data:image/png;base64,[^"]*"', 'src=""', body)


@pytest.mark.slow
def test_written_pages_are_the_served_pages(served, tmp_path):
    out = tmp_path / "report"
    with serving(served) as (base, _):      # read-only: the live report reads stored scores
        status, _, page = get(base, "/report?c=sample&m=recip_rank")
    assert status == 400 and "is not stored for every run" in unescape(page.decode())
    assert "irw report -C sample" in unescape(page.decode())
    irw("report", "-C", "sample", "-m", "map", "--baseline", "STANDARD", "-o", out,
        "-w", served)
    with serving(served) as (base, _):
        for address, name in [("/leaderboard?c=sample&m=map&baseline=STANDARD",
                                "leaderboard.html"),
                               ("/compare?c=sample&m=map&all=1", "compare.html"),
                               ("/meta?c=sample&m=map", "meta.html")]:
            status, _, live = get(base, address)
            assert status == 200, address
            written = (out / name).read_text(encoding="utf-8")
            assert _body(written) == _body(live.decode("utf-8")), name
        status, _, live = get(base, "/report?c=sample&m=map&baseline=STANDARD")
    assert status == 200
    live = live.decode("utf-8")
    written = (out / "report.html").read_text(encoding="utf-8")
    assert _report_body(written) == _report_body(live)
    assert str(served) not in live and str(served) in written
    # the same sections and tables, in the same order, on both
    titles = re.findall(r"<h2>(.*?)</h2>", written)
    assert titles == re.findall(r"<h2>(.*?)</h2>", live) and len(titles) >= 10
    assert unescape(titles[0]) == "Runs: means with 95% confidence intervals"
    # the written pages link to each other: report -> run page -> topic -> ranked list
    run = re.search(r'href="(run-STANDARD-[0-9a-f]{8}\.html)"', written).group(1)
    topic = re.search(r'href="(topic-[^"]+\.html)"', (out / run).read_text()).group(1)
    ranked = re.search(r'href="(ranked-[^"]+\.html)"', (out / topic).read_text()).group(1)
    assert "relevance" in (out / ranked).read_text()
    assert 'href="report.html"' in (out / "leaderboard.html").read_text()


def test_the_report_package_holds_no_page_code():
    """The report's pages are the workspace's templates (irwarehouse/serve/templates): no
    template, CSS or HTML markup in irwarehouse/report."""
    folder = REPO / "irwarehouse" / "report"
    assert not [p for p in folder.rglob("*") if p.suffix in (".html", ".css", ".j2", ".js")]
    markup = re.compile(r"<(html|head|body|table|tr|td|th|h[1-6]|p|div|details|summary|img|"
                        r"pre|style|section|code|sub|sup)\b", re.IGNORECASE)
    found = [f"{p.name}: {m.group(0)}" for p in sorted(folder.glob("*.py"))
             for m in markup.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found
