#!/usr/bin/env python
"""Stored campaigns re-evaluated (issue 32, target 5): a benchmark, not a test.

    PYTHONPATH=. python bench/stored_campaign.py --trec-eval /path/to/trec_eval \
        [--runs 100,400] [--repeat 5] [--before DIR] [--out bench/out/campaign]

For each N, bench_campaign.py's warehouse of N stored runs (bench/out/campaign/points/runsN/
wh.duckdb; run bench_campaign.py first) and its N run files, timed as fresh processes,
interleaved round by round (so that a change of load hits every step alike), fastest of
--repeat:

  irw eval       `irw eval --campaign c -m map -m P.10 -m ndcg_cut.10 -m recip_rank`
  macros         a Python process that opens the warehouse read-only with plain DuckDB and runs
                 `FROM irw_map(campaign := 'c')`, irw_P(cutoff := 10), irw_ndcg_cut(cutoff :=
                 10) and irw_recip_rank, fetching every row
  trec_eval      trec_eval run once per run file with the same measures (a shell loop)
  --before DIR   the first two again with the irwarehouse package of another checkout (DIR,
                 e.g. `git archive` of the commit before), on a copy of the warehouse brought
                 to that version's SQL by its `irw init` (its tables and rows unchanged)

Ratios are of the same round's processes, wall and CPU (user + sys of the child, os.wait4).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_campaign import FLAGS, Step, _uptime, run, trec_eval_loop  # noqa: E402
from bench_eval import PY, REPO, find_trec_eval, irw_env  # noqa: E402

MACROS = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
for sql in ("FROM irw_map(campaign := 'c')", "FROM irw_P(campaign := 'c', cutoff := 10)",
            "FROM irw_ndcg_cut(campaign := 'c', cutoff := 10)",
            "FROM irw_recip_rank(campaign := 'c')"):
    con.execute(sql).fetchall()
"""
# `irw ARGS` with the irwarehouse package of another checkout (its folder the first argument):
# this venv's editable install of the worktree is a meta-path finder that would serve the
# package's modules ahead of PYTHONPATH, so it is dropped first
OTHER_IRW = r"""
import sys
folder = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, folder)
sys.argv[0] = "irw"
from irwarehouse.cli import main
main()
"""


def steps(n: int, out: Path, trec_eval: str, before: Path | None) -> dict:
    point = out / "points" / f"runs{n}"
    wh = point / "wh.duckdb"
    runs = sorted(p for p in (point / "runs").iterdir() if not p.name.startswith("."))
    qrels = out / "data" / "campaign" / "qrels"
    env = irw_env()
    work = out / "stored" / f"runs{n}"
    work.mkdir(parents=True, exist_ok=True)
    todo = {
        "irw eval": lambda: run([PY, "-m", "irwarehouse.cli", "eval", "--campaign", "c", "-w",
                                 wh, *FLAGS], env=env),
        "macros": lambda: run([PY, "-c", MACROS, wh], env=env),
        "trec_eval": lambda: trec_eval_loop(trec_eval, qrels, runs, work),
    }
    if before:
        old_wh = work / "before.duckdb"
        old_irw = [PY, "-c", OTHER_IRW, before]
        if not old_wh.exists():
            # a copy brought to the other checkout's SQL (its macros), as a read-write open
            # by that version does
            shutil.copyfile(wh, old_wh)
            run([*old_irw, "init", "-w", old_wh], env=env)
        todo["irw eval, before"] = lambda: run(
            [*old_irw, "eval", "--campaign", "c", "-w", old_wh, *FLAGS], env=env)
        todo["macros, before"] = lambda: run([PY, "-c", MACROS, old_wh], env=env)
    return todo


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=None)
    ap.add_argument("--runs", default="100,400")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", type=Path, default=None,
                    help="a checkout whose irwarehouse/ is timed too (the commit before)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "campaign")
    args = ap.parse_args(argv)
    trec_eval = args.trec_eval or find_trec_eval()
    if not trec_eval:
        sys.exit("stored_campaign.py needs trec_eval (--trec-eval, $TREC_EVAL or PATH)")
    load0, up0 = os.getloadavg(), _uptime()
    lines = ["| runs | step | wall s | CPU s | / trec_eval wall | / trec_eval CPU |",
             "|---:|---|---:|---:|---:|---:|"]
    for n in (int(x) for x in args.runs.split(",")):
        todo = steps(n, args.out, trec_eval, args.before)
        best: dict[str, Step] = {}
        for _ in range(max(1, args.repeat)):
            for name, fn in todo.items():
                step = fn()
                if name not in best or step.wall < best[name].wall:
                    best[name] = step
        te = best["trec_eval"]
        for name, step in best.items():
            lines.append(f"| {n} | {name} | {step.wall:.2f} | {step.cpu:.2f} | "
                         f"{step.wall / te.wall:.3f} | {step.cpu / te.cpu:.3f} |")
        print("\n".join(lines[-len(best):]), file=sys.stderr, flush=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load0)} ({up0}); after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} ({_uptime()}); "
          f"{os.cpu_count()} cores; fastest of {args.repeat}\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
