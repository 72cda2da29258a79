"""`irw serve`: the workspace as a Starlette application (docs/serve.md).

Every page is a GET whose address holds all its choices (bookmarkable, shareable); it opens the
warehouse read-only for the request (serve.access), computes its context (serve.pages) and
renders a Jinja template (autoescaped: every value from a user's file is text). Any table of a
page downloads by adding `table=NAME&download=csv|markdown|latex` to the page's address. The one
write, storing scores evaluated on demand, is a POST with the server's CSRF token, refused
unless the server was started with --allow-writes."""

from __future__ import annotations

import io
import secrets
from pathlib import Path
from urllib.parse import parse_qsl

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import IrwError
from . import pages
from .access import QUERY_TIME, Access, Busy
from .security import MAX_BODY, BodyTooLarge, Guard, allowed_hosts, csrf_ok
from .tables import DOWNLOADS, download, url

HERE = Path(__file__).parent
CONSOLE_ROWS = 500              # rows of a console result shown on the page (downloads: all)


class Settings:
    def __init__(self, path: str, *, host: str, token: str | None, allow_writes: bool,
                 query_time: float):
        self.path, self.host, self.token = str(path), host, token
        self.allow_writes, self.query_time = allow_writes, query_time
        self.csrf = secrets.token_urlsafe(24)
        self.access = Access(self.path)


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.globals["url"] = url
    return env


ENV = environment()


def page_text(name: str, context: dict) -> str:
    """A page as HTML: the one rendering of every page, served by `irw serve` and written by
    `irw report` (serve.snapshot). Unsafe characters of names or values (right-to-left
    overrides, zero-width characters, terminal escapes: failures.unsafe) are shown escaped,
    not obeyed."""
    from ..failures import escaped
    return escaped(ENV.get_template(name).render(**context), keep="\n\t\r")


def render(name: str, context: dict, status: int = 200) -> HTMLResponse:
    return HTMLResponse(page_text(name, context), status_code=status)


def _scrubbed(settings: Settings, message: str) -> str:
    """A message without the server's paths: the warehouse named by its file name only, the
    temporary folder (a query's spill folder) as TMP."""
    import tempfile
    path = Path(settings.path)
    message = message.replace(tempfile.gettempdir() + "/irw-sql-spill-", "TMP/irw-sql-spill-")
    for text in sorted({str(path.resolve()), str(path), str(path.resolve().parent),
                        str(path.parent)}, key=len, reverse=True):
        if text not in ("", "."):
            message = message.replace(text + "/", "").replace(text, path.name)
    return message


def error_page(settings: Settings, status: int, message: str,
               choices: list | None = None) -> HTMLResponse:
    return render("error.html", {"title": f"{status}", "status": status,
                                 "message": _scrubbed(settings, message),
                                 "choices": choices or [],
                                 "writes": settings.allow_writes}, status)


PAGES = {
    "/": (pages.campaigns, "campaigns.html"),
    "/leaderboard": (pages.leaderboard, "leaderboard.html"),
    "/run": (pages.run_page, "run.html"),
    "/topic": (pages.topic_page, "topic.html"),
    "/ranked": (pages.ranked, "ranked.html"),
    "/compare": (pages.compare, "compare.html"),
    "/meta": (pages.meta, "meta.html"),
    "/report": (pages.report_page, "report.html"),
    "/across": (pages.across, "across.html"),
}


def _page_endpoint(settings: Settings, compute, template: str):
    async def endpoint(request: Request):
        params = request.query_params
        fmt, name = params.get("download"), params.get("table")

        def work():
            with settings.access.reading(settings.query_time) as wh:
                context = compute(wh, params)
                if context.get("campaign"):
                    context["qrels_choices"] = pages.qrels_names(wh.con, context["campaign"])
                return context
        context = await run_in_threadpool(work)
        if fmt is not None:
            table = context["tables"].get(name or "")
            if table is None or fmt not in DOWNLOADS:
                return error_page(settings, 404, "no such table or download format")
            text, media, suffix = download(table, fmt)
            return Response(text, media_type=f"{media}; charset=utf-8", headers={
                "content-disposition": f'attachment; filename="{table.name}.{suffix}"'})
        here = [(k, v) for k, v in params.multi_items() if k not in ("download", "table")]

        def download_url(table_name: str, kind: str) -> str:
            return url(request.url.path, **_grouped(here + [("table", table_name),
                                                            ("download", kind)]))
        context.update(qrels=params.get("qrels", ""), download_url=download_url,
                       downloads=DOWNLOADS,
                       writes=settings.allow_writes, csrf=settings.csrf, path=request.url.path)
        return render(template, context)
    return endpoint


def _grouped(pairs) -> dict:
    out: dict[str, list] = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


def _console(settings: Settings):
    async def endpoint(request: Request):
        params = request.query_params
        text = params.get("q", "").strip()
        fmt = params.get("download")

        def work():
            from ..analyst.query import guarded_reader, write_result
            from .tables import Table
            result = None
            with settings.access.reading(settings.query_time) as wh:
                catalog = pages.catalog(wh.con)
                if text:
                    reader = next(guarded_reader(wh.con, text, wh.deadline))
                    if fmt in ("csv", "parquet"):
                        table = _scrub_table(settings, _read(reader, wh.deadline))
                        return ("file", _result_file(table, fmt, write_result))
                    rows, more = [], False
                    for batch in _batches(reader, wh.deadline):
                        rows += batch.to_pylist()
                        if len(rows) > CONSOLE_ROWS:
                            more = True
                            break
                    names = reader.schema.names
                    rows = [{k: _scrubbed(settings, v) if isinstance(v, str) else v
                             for k, v in row.items()} for row in rows[:CONSOLE_ROWS]]
                    result = Table("result", names, rows)
                    result.more = more
            return ("page", {"catalog": catalog, "result": result})
        kind, value = await run_in_threadpool(work)
        if kind == "file":
            data, media, suffix = value
            return Response(data, media_type=media, headers={
                "content-disposition": f'attachment; filename="result.{suffix}"'})
        return render("console.html", {"title": "SQL console", "q": text, **value,
                                       "rows_shown": CONSOLE_ROWS,
                                       "csv_url": url("/sql", q=text, download="csv"),
                                       "parquet_url": url("/sql", q=text, download="parquet"),
                                       "writes": settings.allow_writes, "path": "/sql",
                                       "downloads": ()})
    return endpoint


def _batches(reader, deadline):
    """The result's batches; a query stopped at the time limit is said so (the reading of a
    streamed result is interrupted too)."""
    import duckdb
    import pyarrow as pa
    try:
        yield from reader
    except (duckdb.Error, pa.ArrowException) as exc:
        if deadline.expired:
            raise deadline.error() from None
        raise IrwError(f"query failed: {str(exc).splitlines()[0]}") from None


def _read(reader, deadline):
    import pyarrow as pa
    return pa.Table.from_batches(list(_batches(reader, deadline)), schema=reader.schema)


def _scrub_table(settings: Settings, table):
    """The result's text columns without the server's paths (_scrubbed)."""
    import pyarrow as pa
    columns = []
    for column in table.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            column = pa.array([_scrubbed(settings, v) if v is not None else None
                               for v in column.to_pylist()], column.type)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=table.schema)


def _result_file(reader, fmt: str, write_result):
    import tempfile
    if fmt == "csv":
        buffer = io.StringIO()
        write_result(reader, "csv", stream=buffer, note=lambda _: None)
        return buffer.getvalue().encode(), "text/csv; charset=utf-8", "csv"
    with tempfile.TemporaryDirectory(prefix="irw-serve-") as folder:
        target = Path(folder) / "result.parquet"
        write_result(reader, "parquet", out=target, note=lambda _: None)
        return target.read_bytes(), "application/vnd.apache.parquet", "parquet"


def _store(settings: Settings):
    """POST /store: evaluate the measures and store their scores (irw eval -C --store)."""
    async def endpoint(request: Request):
        if not settings.allow_writes:
            return error_page(settings, 403, "This workspace is read-only (start `irw serve` "
                              "with --allow-writes to store scores from the page).")
        body = (await request.body()).decode("utf-8", "replace")
        form = QueryParams(parse_qsl(body, keep_blank_values=True))
        if not csrf_ok(settings.csrf, form.get("csrf")):
            return error_page(settings, 403, "The form's CSRF token is missing or wrong: "
                              "reload the page and try again.")
        campaign = form.get("c", "")
        measures = [m for m in form.getlist("m") if m][:pages.MAX_MEASURES]
        if not measures:
            return error_page(settings, 400, "no measure to store")

        def work():
            with settings.access.writing(settings.query_time) as wh:
                pages._campaign(wh.con, {"c": campaign})
                wh.evaluate(measures, campaign=campaign, store=True)
        await run_in_threadpool(work)
        return RedirectResponse(url("/leaderboard", c=campaign, m=measures), status_code=303)
    return endpoint


def _lifespan(settings: Settings):
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            settings.access.close()
    return lifespan


def build_app(path: str, *, host: str = "127.0.0.1", token: str | None = None,
              allow_writes: bool = False, query_time: float = QUERY_TIME):
    """The ASGI application of `irw serve` (Guard around Starlette)."""
    settings = Settings(path, host=host, token=token, allow_writes=allow_writes,
                        query_time=query_time)
    routes = [Route(p, _page_endpoint(settings, fn, t)) for p, (fn, t) in PAGES.items()]
    routes += [Route("/sql", _console(settings)),
               Route("/store", _store(settings), methods=["POST"]),
               Route("/favicon.ico", lambda request: Response(status_code=204)),
               Mount("/static", StaticFiles(directory=HERE / "static"), name="static")]

    async def failed(request, exc):
        if isinstance(exc, pages.ChooseQrels):
            base = [(k, v) for k, v in request.query_params.multi_items() if k != "qrels"]
            return error_page(settings, 400, str(exc), [
                (name, url(request.url.path, **_grouped(base + [("qrels", name)])))
                for name in exc.names])
        if isinstance(exc, pages.NotFound):
            return error_page(settings, 404, str(exc))
        if isinstance(exc, Busy):
            return error_page(settings, 503, "The warehouse is busy: another process (an "
                              "ingest, an evaluation being stored) is writing it. Reload in a "
                              "moment.")
        if isinstance(exc, BodyTooLarge):
            return error_page(settings, 413, f"Request too large (at most {MAX_BODY} bytes).")
        if isinstance(exc, IrwError):
            return error_page(settings, 400, str(exc))
        if getattr(exc, "status_code", None) in (404, 405):
            return error_page(settings, exc.status_code, "no such page")
        return error_page(settings, 500, "Internal error: the request failed (details are "
                          "in the server's log).")

    import logging
    log = logging.getLogger("irw.serve")

    async def crashed(request, exc):
        if isinstance(exc, (IrwError, Busy, BodyTooLarge)):
            return await failed(request, exc)
        log.exception("request %s failed", request.url.path)
        return await failed(request, exc)
    app = Starlette(routes=routes, exception_handlers={Exception: crashed, 404: failed,
                                                       405: failed, IrwError: failed,
                                                       Busy: failed, BodyTooLarge: failed},
                    lifespan=_lifespan(settings))
    app.state.settings = settings
    return Guard(app, hosts=allowed_hosts(host), token=token)
