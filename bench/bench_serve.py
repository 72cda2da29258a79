#!/usr/bin/env python
"""`irw serve`'s pages on bench's 100-run campaign (issue 33): a benchmark, not a test.

    PYTHONPATH=. python bench/bench_serve.py [--repeat 5] [--out bench/out/serve]

The campaign is bench_eval.py's (seed 7: 100 runs x 50 topics x 1,000 documents, a pool of
3,000 documents per topic of which 1,500 are judged), stored with four measures
(`irw eval -C --store -m map -m P.10 -m ndcg_cut.10 -m recip_rank`). A real `irw serve` (uvicorn,
a subprocess) answers; each page is requested --repeat times over HTTP on 127.0.0.1 and its
fastest and median wall times are reported (a request opens the warehouse read-only, answers
and closes it: serve.access). Targets: the leaderboard at most 0.2 s, a topic drill-down at most
0.1 s, an on-demand evaluation of one measure for the 100 runs no slower than `irw eval -C` of
the same measure (a fresh process, as a user runs it; its time in-process is printed too).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_eval import PY, REPO, gen_campaign, irw_env  # noqa: E402  (after the path)

from tests.serve.server import get, serving  # noqa: E402  (after the path)

MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
ON_DEMAND = "Rprec"


def irw(*args) -> float:
    started = time.perf_counter()
    subprocess.run([PY, "-m", "irwarehouse.cli", *map(str, args)], check=True, env=irw_env(),
                   capture_output=True)
    return time.perf_counter() - started


def timed(base: str, path: str, repeat: int) -> tuple[float, float, float, float]:
    """Fastest and median seconds of the server's own time (its Server-Timing header: from
    the request's arrival to its answer, wall and CPU of the server process)."""
    walls, cpus = [], []
    for _ in range(repeat):
        status, headers, body = get(base, path)
        if status != 200:
            raise RuntimeError(f"{path}: {status} {body[:300]!r}")
        found = dict(re.findall(r"(\w+);dur=([0-9.]+)", headers["server-timing"]))
        walls.append(float(found["app"]) / 1000)
        cpus.append(float(found["cpu"]) / 1000)
    return min(walls), statistics.median(walls), min(cpus), statistics.median(cpus)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "serve")
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    warehouse = out / "bench.duckdb"
    if not warehouse.exists():
        qrels, _ = gen_campaign(out / "campaign", np.random.default_rng(7), 100, 50, 1000,
                                   judged=1500, pool=3000)
        irw("init", "-w", warehouse)
        irw("ingest", "qrels", qrels, "-C", "bench", "-w", warehouse)
        irw("ingest", "runs", out / "campaign" / "runs", "-C", "bench", "-w", warehouse)
        irw("eval", "-C", "bench", *[x for m in MEASURES for x in ("-m", m)], "--store", "-w",
            warehouse)
    rows = []
    with serving(warehouse) as (base, _):
        get(base, "/")                                           # warm: imports, first open
        pages = [
            ("leaderboard, 4 stored measures", "/leaderboard?c=bench"),
            ("leaderboard + paired t vs a baseline (Holm)",
             "/leaderboard?c=bench&baseline=run000"),
            ("topic drill-down (100 runs' map, judgments)", "/topic?c=bench&topic=1001&m=map"),
            ("ranked list (run x topic, cut at P@10)",
             "/ranked?c=bench&topic=1001&run=run000&m=P@10"),
            (f"leaderboard of {ON_DEMAND}, evaluated on demand (100 runs)",
             f"/leaderboard?c=bench&m={ON_DEMAND}"),
        ]
        for label, path in pages:
            rows.append((label, *timed(base, path, args.repeat)))
    cli = min(irw("eval", "-C", "bench", "-m", ON_DEMAND, "-w", warehouse)
              for _ in range(args.repeat))
    from irwarehouse.api import Warehouse
    inproc = []
    for _ in range(args.repeat):
        with Warehouse(warehouse, read_only=True, create=False) as wh:
            started = time.perf_counter()
            wh.evaluate([ON_DEMAND], campaign="bench")
            inproc.append(time.perf_counter() - started)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"# irw serve on bench's 100-run campaign ({time.strftime('%Y-%m-%d')}; {load})")
    print("| page (server time) | wall fastest s | wall median s | CPU fastest s | CPU median s |")
    print("|---|---:|---:|---:|---:|")
    for label, best, median, cbest, cmedian in rows:
        print(f"| {label} | {best:.3f} | {median:.3f} | {cbest:.3f} | {cmedian:.3f} |")
    print(f"| `irw eval -C bench -m {ON_DEMAND}` (fresh process, wall) | {cli:.3f} | | | |")
    print(f"| its evaluation in-process (Warehouse.evaluate, wall) | {min(inproc):.3f} | "
          f"{statistics.median(inproc):.3f} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
