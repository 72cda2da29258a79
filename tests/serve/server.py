"""A real `irw serve` in a subprocess on a free port of 127.0.0.1, for the workspace's tests."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from urllib.parse import urlsplit

IRW = [sys.executable, "-m", "irwarehouse.cli"]


def irw(*args, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(IRW + [str(a) for a in args], capture_output=True, text=True,
                          timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"irw {' '.join(map(str, args))} failed: {done.stderr}")
    return done


@contextmanager
def serving(path, *options):
    """`irw serve -w PATH --port 0 OPTIONS`; yields (base URL, token or None)."""
    import tempfile
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(IRW + ["serve", "-w", str(path), "--port", "0", *map(str, options)],
                            stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = proc.stdout.readline()
        found = re.search(r"(http://\S+?/)(\?token=(\S+))?\s", line)
        if not found:
            proc.kill()
            log.seek(0)
            raise AssertionError(f"irw serve printed {line!r}; stderr {log.read()}")
        base, token = found.group(1), found.group(3)
        host = urlsplit(base)
        if host.hostname in ("0.0.0.0", "::"):
            base = f"http://127.0.0.1:{host.port}/"
        _wait_listening(base)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        log.seek(0)
        errors = log.read()
        log.close()
        if "Traceback" in errors:       # a request failed inside the server: show it
            print(errors, file=sys.stderr)


def _wait_listening(base: str) -> None:
    for _ in range(100):
        try:
            get(base, "/static/style.css")
            return
        except OSError:
            time.sleep(0.1)


def request(base: str, path: str, *, method: str = "GET", headers: dict | None = None,
            body: bytes | None = None) -> tuple[int, dict, bytes]:
    """One request (no redirect followed): (status, headers lower-cased, body)."""
    parts = urlsplit(base)
    con = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        con.request(method, path, body=body, headers=headers or {})
        response = con.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        con.close()


def get(base: str, path: str, **kwargs) -> tuple[int, dict, bytes]:
    return request(base, path, **kwargs)
