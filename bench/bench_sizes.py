#!/usr/bin/env python
"""Readers at MS MARCO scale (issue 31): a one-off check, not a test (CI runs the 10 MB case,
tests/formats/test_real_sizes.py).

    PYTHONPATH=. python bench/bench_sizes.py [--topics 7000] [--depth 1000] [--runs 4]
        [--out bench/out/sizes]

Generates bench_eval.py's large run (7,000 topics x 1,000 documents, tied scores included, seed
7) and copies of it under other run tags (twins: the same lines), then checks, timing each
command in a fresh process (wall and CPU seconds, peak RSS, os.wait4):

* `irw eval QRELS A B -q -f json` with --order score, rank and file gives A and B, read
  together, the bits A gets alone (with ties in the scores, file order differs from score
  order, so a wrong file order shows);
* `irw ingest runs DIR` of --runs twins stores them all (it refused such folders: "a staged
  file's rows are not contiguous"), each run's file_order being its line order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_eval import gen_big, irw, irw_env, run_cmd  # noqa: E402

MEASURES = ["map", "P.10", "ndcg_cut.10"]


def twin(source: Path, target: Path, tag: str) -> None:
    """`source` with every line's run tag (the last field) replaced by `tag`."""
    with open(source, "rb") as src, open(target, "wb") as out:
        for block in iter(lambda: src.readlines(1 << 24), []):
            out.writelines(line[:line.rindex(b" ") + 1] + tag.encode() + b"\n"
                           for line in block)


def values(out: Path) -> dict:
    return {(r["run"], r["topic"], r["measure"]): r["value"]
            for r in json.loads(out.read_text())}


def timed(label: str, cmd: list, out: Path | None = None) -> None:
    wall, rss, cpu = run_cmd(cmd, env=irw_env(), stdout_path=out)
    print(f"| {label} | {wall:.1f} | {cpu:.1f} | {rss:,.0f} |", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=7000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "sizes")
    args = ap.parse_args()
    out = args.out
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    qrels, first = gen_big(out / "big", np.random.default_rng(7), args.topics, args.depth)
    names = [f"run{k}" for k in range(args.runs)]
    for name in names:
        twin(first, runs / f"{name}.txt", name)
    a, b = runs / "run0.txt", runs / "run1.txt"
    print(f"load average {os.getloadavg()[0]:.1f}; {args.runs} runs of "
          f"{args.topics * args.depth:,} lines, {a.stat().st_size / 1e6:.0f} MB each\n")
    print("| step | wall s | CPU s | peak RSS MB |\n|---|---:|---:|---:|")
    flags = [x for m in MEASURES for x in ("-m", m)] + ["-q", "-f", "json"]
    same = True
    for order in ("score", "rank", "file"):
        timed(f"irw eval, {a.name} alone, --order {order}",
              irw("eval", qrels, a, *flags, "--order", order), out / "alone.json")
        timed(f"irw eval, {a.name} and {b.name}, --order {order}",
              irw("eval", qrels, a, b, *flags, "--order", order), out / "both.json")
        alone, together = values(out / "alone.json"), values(out / "both.json")
        # b is a's twin: its values read together must be a's alone
        expected = {**alone, **{("run1", *k[1:]): v for k, v in alone.items()}}
        equal = sum(together[k] == expected.get(k) for k in together)
        print(f"|   the same bits as alone | {equal:,} of {len(expected):,} values | | |")
        same &= equal == len(expected) == len(together)
    wh = out / "w.duckdb"
    wh.unlink(missing_ok=True)
    timed("irw init", irw("init", "-w", wh))
    started = time.perf_counter()
    timed(f"irw ingest runs ({args.runs} runs)", irw("ingest", "runs", runs, "-C", "c",
                                                      "-w", wh))
    import duckdb
    con = duckdb.connect(str(wh), read_only=True)
    rows, wrong = con.execute(f"""
        SELECT count(*), count(*) FILTER (WHERE file_order <>
                   (CAST(topic AS INTEGER) - 401) * {args.depth} + rank - 1)
        FROM run_row""").fetchone()
    con.close()
    print(f"|   stored rows, file_order not the line order | {rows:,}, {wrong:,} | | |")
    print(f"\n{time.perf_counter() - started:.0f} s for the ingest and its check; "
          f"load average {os.getloadavg()[0]:.1f}")
    return 0 if same and wrong == 0 and rows == args.runs * args.topics * args.depth else 1


if __name__ == "__main__":
    sys.exit(main())
