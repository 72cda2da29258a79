"""The workspace's pages written to files: the same page functions (serve.pages) and templates
as `irw serve`, with every link that names a written page pointing at its file (the others
plain text), no forms, and each table's downloads written beside its page. `irw report` writes
them into its folder (pages/index.html)."""

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

    def __init__(self, campaign: str, runs: list[str], topics: list[str]):
        self.campaign, self.runs, self.topics = campaign, set(runs), set(topics)

    def link(self, path: str, params: dict) -> str | None:
        c = params.get("c")
        if path == "/":
            return "index.html"
        if path == "/across":
            return "across.html"
        if c != self.campaign:
            return None
        if path == "/leaderboard":
            return "leaderboard.html"
        if path == "/compare":
            return "compare.html"
        if path == "/run" and params.get("run") in self.runs:
            return f"run-{_slug(params['run'])}.html"
        if path == "/topic" and params.get("topic") in self.topics:
            return f"topic-{_slug(params['topic'])}.html"
        return None


def write_pages(wh, campaign: str, out: str | Path, *, measures: list[str] | None = None,
                baseline: str | None = None, qrels: str | None = None) -> Path:
    """Write the campaign's workspace pages into `out`; returns out/index.html."""
    from .app import ENV
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(Path(__file__).parent / "static", out / "static", dirs_exist_ok=True)
    common = [("c", campaign)] + ([("qrels", qrels)] if qrels else [])
    labels = [("m", m) for m in (measures or [])]
    first = labels[:1]
    board = pages.leaderboard(wh, QueryParams(common + labels))
    runs = board["runs"]
    base = [("baseline", baseline)] if baseline else []
    topic_rows = pages.run_page(wh, QueryParams(common + first + [("run", runs[0])]))
    topics = sorted({t for r in runs for t in [row["topic"] for row in
                                                 topic_rows["tables"]["topics"].rows]})
    topics = topics[:MAX_TOPIC_PAGES]
    site = Site(campaign, runs, topics)
    token = STATIC.set(site)
    try:
        todo = [("index.html", "campaigns.html", pages.campaigns, [("q", campaign)]),
                ("leaderboard.html", "leaderboard.html", pages.leaderboard,
                 common + labels + base),
                ("compare.html", "compare.html", pages.compare, common + first + [("all", "1")]),
                ("across.html", "across.html", pages.across, first)]
        todo += [(site.link("/run", {"c": campaign, "run": r}), "run.html", pages.run_page,
                  common + first + [("run", r)] + (base if r != baseline else []))
                 for r in runs]
        todo += [(site.link("/topic", {"c": campaign, "topic": t}), "topic.html",
                  pages.topic_page, common + first + [("topic", t)]) for t in topics]
        for name, template, compute, params in todo:
            context = compute(wh, QueryParams(params))
            stem = name[:-len(".html")]
            for table in context.get("tables", {}).values():
                for fmt in DOWNLOADS:
                    text, _, suffix = download(table, fmt)
                    (out / f"{stem}.{table.name}.{suffix}").write_text(text, encoding="utf-8")

            def download_url(table_name, fmt, stem=stem):
                return f"{stem}.{table_name}.{MEDIA[fmt][1]}"
            context.update(static=True, root="", download_url=download_url,
                           downloads=DOWNLOADS, writes=False, qrels=qrels or "")
            (out / name).write_text(ENV.get_template(template).render(**context),
                                    encoding="utf-8")
    finally:
        STATIC.reset(token)
    return out / "index.html"
