"""The rules of `irw serve` as a server (docs/serve.md, "Security"), as one ASGI middleware in
front of every route:

- Host header: only the bound host and the loopback names, so that a page of another site
  cannot reach the loopback server through a DNS name it rebinds to 127.0.0.1 (DNS rebinding).
- Token: when the server has one (required to bind other than loopback), every request carries
  it in `Authorization: Bearer T`, `X-Irw-Token: T` or the `irw_token` cookie; `?token=T` on a
  first visit sets the cookie and redirects to the same address without it. Otherwise 401 and
  no data.
- Request size: a body larger than MAX_BODY is refused (413) before it is read whole.
- Headers on every answer: a Content-Security-Policy that allows only the package's own
  scripts and styles (no inline script runs, whatever a stored name holds), no framing, no
  MIME sniffing, no referrer.
- CSRF: a write is a POST whose form carries the server's CSRF token (`csrf_ok`); the token
  is in the page's forms only, which another origin cannot read.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from urllib.parse import parse_qsl, urlencode

MAX_BODY = 64 * 1024            # bytes of a request body (a console query, a form)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
COOKIE = "irw_token"
HEADERS = [
    (b"content-security-policy",
     (b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str) -> set[str]:
    """The Host header names accepted (without the port): the bound one and, on loopback or
    an all-addresses bind, the loopback names."""
    names = {host.lower().strip("[]")}
    if is_loopback(host) or host in ("0.0.0.0", "::"):
        names |= set(LOOPBACK_NAMES)
    if host in ("0.0.0.0", "::"):           # every address: the machine's own names and addresses
        names |= _machine_names()
    return names


def _machine_names() -> set[str]:
    import socket
    names = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        names.add(name.lower())
        try:
            names |= {info[4][0].lower() for info in socket.getaddrinfo(name, None)}
        except OSError:
            pass
    return names


def host_name(header: str) -> str:
    """The name of a Host header without its port: `[::1]:8765` -> `::1`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def csrf_ok(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), given.encode())


class Guard:
    """ASGI middleware applying the rules above to every HTTP request."""

    def __init__(self, app, *, hosts: set[str], token: str | None, max_body: int = MAX_BODY):
        self.app, self.hosts, self.token, self.max_body = app, hosts, token, max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        if host_name(headers.get("host", "")) not in self.hosts:
            return await _plain(send, 400, "This server answers only to its own host name.")
        if self.token is not None:
            query = scope.get("query_string", b"").decode("latin-1")
            pairs = parse_qsl(query, keep_blank_values=True)
            given = dict(pairs).get("token")
            if given is not None and _same(given, self.token):
                rest = urlencode([(k, v) for k, v in pairs if k != "token"])
                where = scope.get("path", "/") + (f"?{rest}" if rest else "")
                return await _redirect_with_cookie(send, where, self.token)
            if not self._authorised(headers):
                return await _plain(send, 401, "A token is required: open the address "
                                    "`irw serve` printed (it ends in ?token=...).")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await _plain(send, 413, f"Request too large (at most {self.max_body} bytes).")
        return await self.app(scope, self._bounded(receive), _with_headers(send))

    def _authorised(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer ") and _same(auth[7:].strip(), self.token):
            return True
        if _same(headers.get("x-irw-token", ""), self.token):
            return True
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and _same(value, self.token):
                return True
        return False

    def _bounded(self, receive):
        """`receive` that fails once more than max_body bytes have come (a chunked body
        has no Content-Length to check first)."""
        seen = {"n": 0}

        async def bounded():
            message = await receive()
            if message["type"] == "http.request":
                seen["n"] += len(message.get("body", b""))
                if seen["n"] > self.max_body:
                    raise BodyTooLarge()
            return message
        return bounded


class BodyTooLarge(Exception):
    """A streamed body passed MAX_BODY (the app answers 413)."""


def _same(given: str, token: str | None) -> bool:
    return token is not None and hmac.compare_digest(given.encode(), token.encode())


def _with_headers(send):
    """`send` adding HEADERS and a Server-Timing header (the request's wall and process CPU
    milliseconds until its answer starts: bench/bench_serve.py reads it)."""
    import time
    wall, cpu = time.perf_counter(), time.process_time()

    async def sending(message):
        if message["type"] == "http.response.start":
            timing = (f"app;dur={(time.perf_counter() - wall) * 1000:.1f}, "
                      f"cpu;dur={(time.process_time() - cpu) * 1000:.1f}").encode()
            message = {**message, "headers": list(message.get("headers", [])) + HEADERS
                       + [(b"server-timing", timing)]}
        await send(message)
    return sending


async def _plain(send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})


async def _redirect_with_cookie(send, where: str, token: str) -> None:
    cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict".encode()
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", where.encode("latin-1", "replace")),
                            (b"set-cookie", cookie), (b"content-length", b"0"), *HEADERS]})
    await send({"type": "http.response.body", "body": b""})
