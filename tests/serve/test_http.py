"""`irw serve` over HTTP, against a real uvicorn on 127.0.0.1 (a subprocess): every security
rule of docs/serve.md (token, bind, Host header, writes refused, CSRF, escaping, path escapes,
SQL refusals, request size, query time, no traceback or path), the pages, the downloads, and
the concurrency with another process's `irw ingest` and writers."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import sys
import time

from tests.helpers.paths import DATA
from tests.serve.conftest import XSS
from tests.serve.server import get, irw, request, serving


def text(body: bytes) -> str:
    return body.decode("utf-8")


# -- pages and numbers ---------------------------------------------------------------------------
def test_pages_answer_and_equal_irw_eval(served):
    expected = {}
    for line in irw("eval", "-C", "sample", "-m", "map", "-m", "P@10", "-w", served).stdout \
            .splitlines():
        measure, _, value = line.split("\t")
        if measure.strip() == "runid":
            run = value
        else:
            expected[(run, measure.strip())] = value
    with serving(served) as (base, _):
        status, _, body = get(base, "/leaderboard?c=sample&m=map&m=P@10")
        assert status == 200
        page = text(body)
        for (run, measure), value in expected.items():
            row = re.search(r"<tr[^>]*>\s*<td class=\"l\"><a [^>]*>" + re.escape(
                run.replace("<", "&lt;").replace(">", "&gt;")) + r"</a></td>(.*?)</tr>",
                page, re.DOTALL)
            assert row, run
            cells = re.findall(r"<td class=\"n[^\"]*\"[^>]*>([^<]*)", row.group(1))
            column = 0 if measure == "map" else 3        # value, ci_low, ci_high per measure
            assert cells[column].strip() == value, (run, measure, cells)
        for path in ("/", "/?q=demo", "/run?c=sample&run=sys1&baseline=STANDARD",
                     "/topic?c=sample&topic=302", "/ranked?c=sample&topic=302&run=sys1&m=P@10",
                     "/compare?c=sample&run=sys1&run=STANDARD",
                     "/compare?c=sample&all=1", "/meta?c=sample&m=map&m=P@10&B=200",
                     "/across?m=map", "/sql?q=SELECT+1+AS+x"):
            status, _, body = get(base, path)
            assert status == 200, (path, text(body))


def test_ranked_list_is_cut_at_the_cutoff_and_marks_unjudged(served):
    with serving(served) as (base, _):
        _, _, body = get(base, "/ranked?c=sample&topic=302&run=sys1&m=P@5")
        rows = re.findall(r"<tr class=\"(relevant|nonrelevant|unjudged)\">", text(body))
        assert len(rows) == 5
        status, _, body = get(base, "/ranked?c=sample&topic=302&run=sys1&m=P@5"
                                    "&table=ranked&download=csv")
        listed = list(csv.DictReader(io.StringIO(text(body))))
    assert status == 200 and [int(r["position"]) for r in listed] == [1, 2, 3, 4, 5]
    # the relevance of each listed document, from the qrels file itself
    graded = {}
    for line in (DATA / "qrels.rel_level").read_text().splitlines():
        topic, _, doc, rel = line.split()
        if topic == "302":
            graded[doc] = int(rel)
    for r in listed:
        assert (r["relevance"] or None) == (str(graded[r["doc"]]) if r["doc"] in graded
                                            else None)


def test_downloads_in_every_layout(served):
    with serving(served) as (base, _):
        got = {}
        for fmt in ("csv", "markdown", "latex"):
            status, headers, body = get(base, f"/leaderboard?c=sample&m=map&table=leaderboard"
                                              f"&download={fmt}")
            assert status == 200 and "attachment" in headers["content-disposition"]
            got[fmt] = text(body)
        status, _, parquet = get(base, "/sql?q=SELECT+run,+mean+FROM+run_score+WHERE+"
                                       "measure='map'&download=parquet")
        _, _, console_csv = get(base, "/sql?q=SELECT+42+AS+answer&download=csv")
    assert got["csv"].startswith("run,map,")
    assert got["markdown"].startswith("| run | map |")
    assert "\\begin{tabular}" in got["latex"] and "\\&lt;" not in got["latex"]
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(pa.BufferReader(parquet))
    assert status == 200 and table.column_names == ["run", "mean"] and table.num_rows == 4
    assert list(csv.reader(io.StringIO(text(console_csv)))) == [["answer"], ["42"]]


# -- security -----------------------------------------------------------------------------------
def test_binds_loopback_by_default_without_token(served):
    with serving(served) as (base, token):
        assert base.startswith("http://127.0.0.1:") and token is None
        status, headers, body = get(base, "/")
    assert status == 200 and "sample" in text(body)
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "server" not in headers


def test_other_address_needs_the_token(served):
    with serving(served, "--host", "0.0.0.0") as (base, token):
        assert token and len(token) >= 16
        status, _, body = get(base, "/leaderboard?c=sample")
        assert status == 401 and b"sample" not in body and b"STANDARD" not in body
        status, _, body = get(base, "/sql?q=SELECT+*+FROM+run")
        assert status == 401 and b"STANDARD" not in body
        assert get(base, "/", headers={"Authorization": "Bearer wrong" + token})[0] == 401
        assert get(base, "/", headers={"Authorization": f"Bearer {token}"})[0] == 200
        assert get(base, "/", headers={"X-Irw-Token": token})[0] == 200
        status, headers, _ = get(base, f"/leaderboard?c=sample&token={token}")
        assert status == 303 and headers["location"] == "/leaderboard?c=sample"
        cookie = headers["set-cookie"].split(";")[0]
        assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
        status, _, body = get(base, "/leaderboard?c=sample", headers={"Cookie": cookie})
        assert status == 200 and b"STANDARD" in body


def test_short_token_refused(served):
    done = irw("serve", "-w", served, "--token", "abc", check=False)
    assert done.returncode != 0 and "16 characters" in done.stderr


def test_host_header_checked(served):
    with serving(served) as (base, _):
        for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
            status, _, body = get(base, "/", headers={"Host": host})
            assert status == 400 and b"sample" not in body, host
        port = base.rsplit(":", 1)[1].strip("/")
        assert get(base, "/", headers={"Host": f"localhost:{port}"})[0] == 200


def test_writes_refused_unless_allowed_and_need_csrf(served):
    form = b"c=sample&m=Rprec"
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    with serving(served) as (base, _):
        status, _, body = request(base, "/store", method="POST", body=form, headers=headers)
        assert status == 403 and b"read-only" in body
        status, _, body = get(base, "/leaderboard?c=sample&m=Rprec")
        assert b"Store these scores" not in body and b"Evaluated now" in body
    with serving(served, "--allow-writes") as (base, _):
        status, _, body = request(base, "/store", method="POST", body=form, headers=headers)
        assert status == 403 and b"CSRF" in body
        status, _, body = request(base, "/store", method="POST",
                                  body=form + b"&csrf=guessed", headers=headers)
        assert status == 403
        assert get(base, "/store")[0] == 405
        _, _, page = get(base, "/leaderboard?c=sample&m=Rprec")
        csrf = re.search(rb'name="csrf" value="([^"]+)"', page).group(1)
        status, _, _ = request(base, "/store", method="POST",
                                      body=form + b"&csrf=" + csrf, headers=headers)
        assert status == 303
        _, _, page = get(base, "/leaderboard?c=sample&m=Rprec")
        assert b"Evaluated now" not in page
    stored = irw("sql", "SELECT (SELECT count(*) FROM topic_score WHERE measure = 'Rprec'), "
                 "(SELECT count(*) FROM (SELECT DISTINCT run_id, topic FROM run_row))",
                 "--format", "json", "-w", served).stdout
    counts = list(__import__("json").loads(stored)[0].values())
    assert counts[0] == counts[1] > 0


def test_user_values_are_escaped(served):
    with serving(served) as (base, _):
        for path in ("/leaderboard?c=sample&m=map", "/?q=sample",
                     "/compare?c=sample&m=map", "/across?m=map"):
            _, _, body = get(base, path)
            page = text(body)
            assert "&lt;img src=x onerror=alert(1)&gt;" in page, path
            assert "<img src=x" not in page, path
        from urllib.parse import quote
        status, _, body = get(base, "/run?c=sample&run=" + quote(XSS))
        assert status == 200 and "<img" not in text(body)
        status, _, body = get(base, "/leaderboard?c=" + quote("<script>alert(1)</script>"))
        assert status == 404 and b"<script>" not in body


def test_no_traceback_or_server_path_in_any_response(served):
    folder = str(served.parent)
    with serving(served) as (base, _):
        for path in ("/leaderboard?c=sample&m=not_a_measure", "/run?c=sample&run=nope",
                     "/topic?c=sample&topic=nope", "/nope", "/meta?c=sample&B=7",
                     "/compare?c=sample&alpha=2", "/sql?q=SELEKT",
                     "/compare?c=sample&all=1&seed=x", "/meta?c=sample&seed=1e9x",
                     "/leaderboard?c=sample&table=nope&download=csv",
                     "/sql?q=SELECT+*+FROM+duckdb_databases()",
                     "/sql?q=SELECT+current_setting('temp_directory')"):
            status, _, body = get(base, path)
            page = text(body)
            assert "Traceback" not in page and folder not in page, (path, page)
            assert status in (200, 400, 404), path


def test_paths_never_reach_the_file_system(served):
    with serving(served) as (base, _):
        for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                     "/static/..%2f..%2fapp.py", "/static/%2e%2e/app.py",
                     "/static/../templates/base.html"):
            status, _, body = get(base, path)
            assert status in (400, 404), path
            assert b"root:" not in body and b"import" not in body and b"{%" not in body


def test_sql_console_keeps_the_guard(served):
    refused = ["SELECT * FROM read_csv('/etc/passwd')", "ATTACH '/tmp/x.duckdb' AS x",
               "COPY run TO '/tmp/out.csv'", "DELETE FROM run", "INSTALL httpfs",
               "SELECT 1; DELETE FROM run", "PRAGMA database_list",
               "SELECT * FROM glob('/etc/*')"]
    from urllib.parse import quote
    with serving(served) as (base, _):
        for query in refused:
            status, _, body = get(base, "/sql?q=" + quote(query))
            assert status == 400 and b"refused" in body or b"failed" in body, query
            assert b"root:" not in body
        status, _, body = get(base, "/sql?q=" + quote("SELECT count(*) AS n FROM run"))
        assert status == 200 and b">5<" in body
    # the warehouse is unchanged
    assert irw("sql", "SELECT count(*) AS n FROM run", "--format", "csv", "-w",
               served).stdout.splitlines()[1] == "5"


def test_request_size_bounded(served):
    with serving(served, "--allow-writes") as (base, _):
        big = b"q=" + b"x" * (200 * 1024)
        status, _, _ = request(base, "/store", method="POST", body=big,
                               headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 413


def test_query_time_bounded(served):
    from urllib.parse import quote
    query = "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3"
    with serving(served, "--query-time", "1") as (base, _):
        started = time.monotonic()
        status, _, body = get(base, "/sql?q=" + quote(query))
        took = time.monotonic() - started
    assert status == 400 and b"time limit" in body
    assert took < 60          # interrupted, far before the query's own end (hours)


# -- living with the file lock ------------------------------------------------------------------
def test_ingest_from_another_shell_while_serving(served, tmp_path):
    run = tmp_path / "late.run"
    run.write_text((DATA / "runs" / "STANDARD.results.trunc").read_text().replace(
        "STANDARD", "late"))
    with serving(served) as (base, _):
        _, _, before = get(base, "/leaderboard?c=sample&m=map")
        assert b">late<" not in before
        done = irw("ingest", "run", run, "-C", "sample", "-w", served, check=False)
        assert done.returncode == 0, done.stderr
        done = irw("eval", "-C", "sample", "-m", "P@5", "--store", "-w", served, check=False)
        assert done.returncode == 0, done.stderr
        status, _, after = get(base, "/leaderboard?c=sample&m=map")
        assert status == 200 and b">late<" in after
        _, _, stored = get(base, "/leaderboard?c=sample&m=P@5")
        assert b"Evaluated now" not in stored
        done = irw("rm", "run", "late", "-C", "sample", "-w", served, check=False)
        assert done.returncode == 0, done.stderr
        _, _, gone = get(base, "/leaderboard?c=sample&m=map")
        assert b">late<" not in gone


def test_busy_while_another_process_writes(served):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('held', "
        "flush=True); time.sleep(60)"), str(served)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with serving(served) as (base, _):
            status, _, body = get(base, "/leaderboard?c=sample")
            assert status == 503 and b"busy" in body and b"STANDARD" not in body
            holder.kill()
            holder.wait()
            status, _, _ = get(base, "/leaderboard?c=sample")
            assert status == 200
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_meta_page_equals_irw_meta(served_template, tmp_path):
    """The meta-evaluation page's tables are `irw meta`'s (same measures, seed and B)."""
    path = tmp_path / "w.duckdb"
    shutil.copy(served_template, path)
    irw("rm", "run", XSS, "-C", "sample", "-w", path)   # every run has every topic
    cli = {name: irw("meta", name, "-C", "sample", "-m", "map", "-m", "P@10", *extra,
                     "--format", "csv", "-w", path).stdout
           for name, extra in (("rankcorr", ()), ("discpower", ("--seed", "0", "-B", "200")),
                               ("swap", ("--seed", "0", "-B", "200")))}
    with serving(path) as (base, _):
        for name, expected in cli.items():
            status, _, body = get(base, f"/meta?c=sample&m=map&m=P@10&seed=0&B=200"
                                        f"&table={name}&download=csv")
            assert status == 200 and text(body) == expected, name
