"""`irw serve`: the live analyst workspace (irwarehouse/serve, docs/serve.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import WarehouseOpt, _guard, _warehouse_path, app


@app.command("serve")
def serve_cmd(
    warehouse: WarehouseOpt = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (other than "
                    "loopback: a token is required).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: any free "
                    "one).")] = 8765,
    token: Annotated[str | None, typer.Option("--token", help="Every request must carry this "
                     "token (generated and printed once when binding other than loopback).")]
    = None,
    allow_writes: Annotated[bool, typer.Option("--allow-writes", help="Let the page store "
                            "scores it evaluated (POST with a CSRF token).")] = False,
    query_time: Annotated[float, typer.Option("--query-time", min=1, help="Seconds a "
                          "request's queries may run before they are interrupted.")] = 30.0,
):
    """Serve a live workspace over the warehouse: leaderboards, runs, topics, ranked lists,
    comparisons, meta-evaluation and a guarded SQL console, in a browser."""
    def body():
        from pathlib import Path

        from ..errors import IrwError
        from ..serve.security import is_loopback, new_token
        path = _warehouse_path(warehouse)
        if not Path(path).is_file():
            raise IrwError(f"no warehouse at {path} (create one with `irw init`)")
        chosen = token
        if chosen is not None and len(chosen) < 16:
            raise IrwError("--token: give at least 16 characters")
        if not is_loopback(host) and chosen is None:
            chosen = new_token()
        run(path, host, port, chosen, allow_writes, query_time)
    _guard(body)


def run(path: str, host: str, port: int, token: str | None, allow_writes: bool,
        query_time: float) -> None:
    import socket

    import uvicorn

    from ..serve.app import build_app
    from ..serve.security import MAX_BODY
    app = build_app(path, host=host, token=token, allow_writes=allow_writes,
                    query_time=query_time)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{sock.getsockname()[1]}/"
    typer.echo(f"irw serve: {address}{'?token=' + token if token else ''} "
               f"({'writes allowed' if allow_writes else 'read-only'}; Ctrl-C stops)",
               err=False)
    config = uvicorn.Config(app, log_level="warning", server_header=False,
                            date_header=False, limit_concurrency=32,
                            h11_max_incomplete_event_size=MAX_BODY, access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:       # uvicorn stopped cleanly on Ctrl-C, then raises it again
        pass
    typer.echo("irw serve: stopped")
