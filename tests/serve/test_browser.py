"""`irw serve` in a real browser: Debian's chromium, headless, driven by Playwright (its own
browser download cannot be fetched here, so the system's is launched by path). On the bundled
sample and on TREC 2003 Robust: campaigns -> leaderboard -> run -> topic -> ranked list ->
compare, a console query, a table downloaded; the numbers on the page equal `irw eval`'s (and,
on Robust, trec_eval's reference output). Screenshots go to $IRW_SCREENSHOTS, else the test's
temporary folder."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.cli.test_daily_round import www4, www4_built  # noqa: F401  (WWW-4 fixtures)
from tests.serve.server import irw, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="no chromium (Debian's package) on this machine")


@pytest.fixture
def browser():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("IRW_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _page(browser, shots, name):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    dialogs, failures = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("requestfailed", lambda r: failures.append(r.url))
    page.on("request", lambda r: failures.append(r.url)
            if not r.url.startswith(("http://127.0.0.1", "data:")) else None)
    page.dialogs, page.failures = dialogs, failures
    page.shot = lambda step: page.screenshot(path=str(shots / f"{name}-{step}.png"),
                                             full_page=True)
    return page


def _eval_values(warehouse, campaign, measure) -> dict[str, str]:
    out, run = {}, None
    for line in irw("eval", "-C", campaign, "-m", measure, "-w", warehouse).stdout.splitlines():
        name, _, value = line.split("\t")
        if name.strip() == "runid":
            run = value
        else:
            out[run] = value
    return out


def _leaderboard_values(page, column: str) -> dict[str, str]:
    """run -> the shown value of `column` in the leaderboard table."""
    heads = page.locator("#t-leaderboard thead th").all_inner_texts()
    at = heads.index(column)
    values = {}
    for row in page.locator("#t-leaderboard tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        values[cells[0].strip()] = cells[at].split()[0]
    return values


def _walk(page, base, campaign, measure, run, other, shots_name):
    """campaigns -> leaderboard -> run -> topic -> ranked list -> compare -> console ->
    download; returns the leaderboard's values of `measure`."""
    page.goto(base)
    page.shot("1-campaigns")
    page.get_by_role("link", name=campaign, exact=True).first.click()
    page.wait_for_selector("#t-leaderboard")
    assert page.title().startswith(f"Leaderboard: {campaign}")
    if measure not in page.locator("#t-leaderboard thead th").all_inner_texts():
        page.locator("form.controls input[name=m]").first.fill(measure)   # the page's form
        page.get_by_role("button", name="Show").click()
        page.wait_for_selector("#t-leaderboard")
    page.shot("2-leaderboard")
    shown = _leaderboard_values(page, measure)
    # sorting by a column head (the page's script)
    page.locator("#t-leaderboard thead th", has_text=re.compile(f"^{re.escape(measure)}$")) \
        .first.click()
    first = page.locator("#t-leaderboard tbody tr").first.locator("td").first.inner_text()
    best = max(shown, key=lambda r: float(shown[r]))
    assert float(shown[first.strip()]) == float(shown[best])
    # a table downloaded
    with page.expect_download() as got:
        page.locator("#t-leaderboard a.dl", has_text="csv").click()
    csv_text = Path(got.value.path()).read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith(f"run,{measure}")
    # run -> topic -> ranked list
    page.locator("#t-leaderboard tbody a", has_text=re.compile(f"^{re.escape(run)}$")).click()
    page.wait_for_selector("#t-topics")
    assert page.locator("h1").inner_text() == f"Run {run}"
    page.shot("3-run")
    topic = page.locator("#t-topics tbody a").first.inner_text()
    page.locator("#t-topics tbody a").first.click()
    page.wait_for_selector("#t-runs")
    assert page.locator("h1").inner_text() == f"Topic {topic}"
    page.shot("4-topic")
    page.locator("#t-runs tbody a", has_text=re.compile(f"^{re.escape(run)}$")).click()
    page.wait_for_selector("#t-ranked")
    page.shot("5-ranked")
    assert page.locator("#t-ranked tbody tr").count() >= 1
    # compare two runs
    page.get_by_role("link", name="compare", exact=True).click()
    page.locator("select[name=run]").select_option([run, other])
    page.get_by_role("button", name="Compare").click()
    page.wait_for_selector("#t-test")
    page.shot("6-compare")
    assert page.locator("#t-differences tbody tr").count() >= 1
    # a console query
    page.get_by_role("link", name="SQL console").click()
    page.locator("textarea[name=q]").fill(
        f"SELECT count(*) AS runs FROM run_info WHERE campaign = '{campaign}'")
    page.get_by_role("button", name="Run").click()
    page.wait_for_selector("#t-result")
    page.shot("7-console")
    assert int(page.locator("#t-result tbody td").first.inner_text()) >= 2
    assert not page.dialogs, page.dialogs          # no script of a stored name ran
    assert not [u for u in page.failures if not u.startswith("http://127.0.0.1")]
    return shown


def test_sample_in_a_browser(browser, served, shots):
    expected = _eval_values(served, "sample", "map")
    with serving(served) as (base, _):
        page = _page(browser, shots, "sample")
        shown = _walk(page, base, "sample", "map", "sys1", "STANDARD", "sample")
    assert {r: shown[r] for r in expected} == expected
    assert (shots / "sample-2-leaderboard.png").stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.realdata
def test_robust2003_in_a_browser(browser, realdata, shots, tmp_path):
    robust = realdata / "trec2003_robust"
    runs = ["InexpC2", "MU03rob01", "SABIR03BASE"]
    warehouse = tmp_path / "robust.duckdb"
    irw("ingest", "qrels", robust / "qrels" / "robust03_qrels.txt", "-C", "robust03", "-w",
        warehouse)
    for run in runs:
        irw("ingest", "run", robust / "runs" / f"input.{run}.gz", "-C", "robust03", "-w",
            warehouse)
    # trec_eval's own output (the reference files), 4 decimals as it prints them
    official = {}
    for run in runs:
        text = (robust / "expected_trec_eval" / f"{run}.default.txt").read_text()
        official[run] = re.search(r"^map\s+all\s+(\S+)", text, re.MULTILINE).group(1)
    assert _eval_values(warehouse, "robust03", "map") == official
    with serving(warehouse) as (base, _):
        page = _page(browser, shots, "robust03")
        page.goto(f"{base}leaderboard?c=robust03&m=map&m=P@10")     # map evaluated on demand
        shown = _leaderboard_values(page, "map")
        assert shown == official
        assert "Evaluated now" in page.content()
        _walk(page, base, "robust03", "map", "InexpC2", "MU03rob01", "robust03")


@pytest.mark.slow
@pytest.mark.realdata
def test_www4_in_a_browser(browser, www4, shots):  # noqa: F811  (the fixture)
    """NTCIR-16 WWW-4 with NTCIREVAL's settings as the campaign's profile: the page's Q@10 of
    THUIR-CO-NEW-2 is the official one (its .nev file), evaluated on demand."""
    from tests.cli.test_daily_round import OFFICIAL_THUIR_Q10
    irw("campaign", "set", "www4", "--gains", "1:2", "--order", "file", "-c", "-M", "1000",
        "-w", www4)
    with serving(www4) as (base, _):
        page = _page(browser, shots, "www4")
        page.goto(f"{base}leaderboard?c=www4&m=Q@10")
        assert _leaderboard_values(page, "Q@10")["THUIR-CO-NEW-2"] == OFFICIAL_THUIR_Q10
        assert "from the campaign's profile" in page.content()
        _walk(page, base, "www4", "Q@10", "THUIR-CO-NEW-2", "Anserini", "www4")
