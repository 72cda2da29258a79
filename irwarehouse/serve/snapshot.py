"""The workspace's pages written to files: the same page functions (serve.pages) and templates
as `irw serve`, with every link that names a written page pointing at its file (the others
plain text), no forms, and each table's downloads written beside its page. `irw report` writes
them into its folder: report.html (the /report page), index.html, leaderboard.html,
compare.html, meta.html, across.html, a page per run and per topic (at most MAX_TOPIC_PAGES
topics), and the baseline run's ranked list on each written topic (other runs' ranked lists are
left to `irw serve`: a campaign of 100 runs and 250 topics would need 25,000 files)."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from starlette.datastructures import QueryParams

from . import pages
from .tables import DOWNLOADS, MEDIA, STATIC, download

MAX_TOPIC_PAGES = 500           # a campaign of more topics gets the first 500 pages


def _slug(text: str) -> str:
    """A file-name part for any name (a run or topic id from a user's file): safe characters
    kept, the rest replaced, a digest of the name added so that two names never collide."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", text)[:40]
    return f"{safe}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:8]}"


class Site:
    """Which pages are written, under which file names."""

    def __init__(self, campaign: str, runs: list[str], topics: list[str],
                 baseline: str | None, pages: set[str]):
        self.campaign, self.runs, self.topics = campaign, set(runs), set(topics)
        self.baseline, self.pages = baseline, pages

    def link(self, path: str, params: dict) -> str | None:
        c = params.get("c")
        if path == "/":
            return "index.html"
        if path == "/across":
            return "across.html"
        if c != self.campaign or path not in self.pages:
            return None
        if path in ("/leaderboard", "/compare", "/meta", "/report"):
            return f"{path[1:]}.html"
        if path == "/run" and params.get("run") in self.runs:
            return f"run-{_slug(params['run'])}.html"
        if path == "/topic" and params.get("topic") in self.topics:
            return f"topic-{_slug(params['topic'])}.html"
        if (path == "/ranked" and params.get("topic") in self.topics
                and params.get("run") == self.baseline):
            return f"ranked-{_slug(params['topic'])}.html"
        return None


def write_report(wh, campaign: str, out: str | Path, *, measures: list[str] | None = None,
                 baseline: str | None = None, qrels: str | None = None, note=None,
                 settings=None, **options) -> Path:
    """`irw report`: the report page (serve.pages.report_view of report.campaign's data) as
    out/report.html, the campaign's other pages beside it, figures/ and queries/. Evaluates and
    stores the measures the warehouse lacks; `options`: report_context's (warehouse_label,
    seed, scatter, tie_rule). Returns the path of report.html."""
    from ..report.campaign import report_context
    context = pages.report_view(report_context(
        wh, campaign, out, measures=measures, baseline=baseline, qrels=qrels,
        settings=settings, report=note, **options))
    return write_pages(wh, campaign, out, measures=measures, baseline=context["baseline"],
                       qrels=qrels or getattr(settings, "qrels", None), report=context,
                       note=note)


def write_pages(wh, campaign: str, out: str | Path, *, measures: list[str] | None = None,
                baseline: str | None = None, qrels: str | None = None,
                report: dict | None = None, note=None) -> Path:
    """Write the campaign's workspace pages into `out`; `report`: the context of the report
    page (write_report), written as report.html. Returns out/report.html
    (out/index.html without a report). A campaign the leaderboard cannot show (text outputs
    only) gets its report page and the campaigns page; `note(text)` is told why."""
    from ..errors import IrwError
    from .app import page_text
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(Path(__file__).parent / "static", out / "static", dirs_exist_ok=True)
    common = [("c", campaign)] + ([("qrels", qrels)] if qrels else [])
    labels = [("m", m) for m in (measures or [])]
    first = labels[:1]
    todo = [("index.html", "campaigns.html", pages.campaigns, [("q", campaign)]),
            ("across.html", "across.html", pages.across, first)]
    written = {"/report"} if report is not None else set()
    try:
        board = pages.leaderboard(wh, QueryParams(common + labels))
    except IrwError as exc:
        if report is None:
            raise
        if note is not None:
            note(f"irw: note: the workspace's leaderboard, run and topic pages were not "
                 f"written: {exc}")
        runs, topics = [], []
    else:
        runs = board["runs"]
        baseline = baseline or (report or {}).get("baseline")
        base = [("baseline", baseline)] if baseline else []
        run_pages = {r: pages.run_page(wh, QueryParams(
            common + first + [("run", r)] + (base if r != baseline else []))) for r in runs}
        topics = sorted({row["topic"] for page in run_pages.values()
                         for row in page["tables"]["topics"].rows})
        topics = topics[:MAX_TOPIC_PAGES]
        written |= {"/leaderboard", "/compare", "/meta", "/run", "/topic", "/ranked"}
        todo += [("leaderboard.html", "leaderboard.html", pages.leaderboard,
                  common + labels + base),
                 ("compare.html", "compare.html", pages.compare, common + first + [("all", "1")]),
                 ("meta.html", "meta.html", pages.meta, common + labels)]
        todo += [(f"run-{_slug(r)}.html", "run.html", run_pages[r], None) for r in runs]
        todo += [(f"topic-{_slug(t)}.html", "topic.html", pages.topic_page,
                  common + first + [("topic", t)]) for t in topics]
        if baseline in runs:
            todo += [(f"ranked-{_slug(t)}.html", "ranked.html", pages.ranked,
                      common + first + [("topic", t), ("run", baseline)]) for t in topics]
    site = Site(campaign, runs, topics, baseline, written)
    token = STATIC.set(site)
    try:
        if report is not None:
            _write(out, "report.html", "report.html", dict(report), qrels)
        for name, template, compute, params in todo:
            try:        # compute: a page function, or the context already computed
                context = compute(wh, QueryParams(params)) if params is not None else compute
            except (IrwError, ValueError) as exc:   # compare or meta of one run (stats:
                # ValueError), a topic the baseline has no ranked list for
                (out / name).write_text(page_text("error.html", {
                    "title": "Not shown", "message": str(exc), "static": True, "root": ""}),
                    encoding="utf-8")
                continue
            _write(out, name, template, context, qrels)
    finally:
        STATIC.reset(token)
    return out / ("report.html" if report is not None else "index.html")


def _write(out: Path, name: str, template: str, context: dict, qrels) -> None:
    """One page and its tables' downloads (NAME.TABLE.csv|md|tex) beside it."""
    stem = name[:-len(".html")]
    for table in context.get("tables", {}).values():
        for fmt in DOWNLOADS:
            text, _, suffix = download(table, fmt)
            (out / f"{stem}.{table.name}.{suffix}").write_text(text, encoding="utf-8")

    def download_url(table_name, fmt, stem=stem):
        return f"{stem}.{table_name}.{MEDIA[fmt][1]}"
    context.update(static=True, root="", download_url=download_url, downloads=DOWNLOADS,
                   writes=False, qrels=qrels or "")
    from .app import page_text
    (out / name).write_text(page_text(template, context), encoding="utf-8")
