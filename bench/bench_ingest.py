#!/usr/bin/env python
"""`irw ingest runs DIR` against DuckDB's own read_csv, time and peak memory (issue 32 target 4).

    PYTHONPATH=. python bench/bench_ingest.py [--runs 100,400] [--repeat 3] [--data DIR]
        [--out bench/out/ingest] [--floor]

A benchmark, not a test. The runs are bench_campaign.py's campaign (50 topics x 1,000 documents
a run, seed 7; `--data` is its data folder, `bench/out/campaign/data/campaign` by default, made
by `bench_campaign.py --generate-only`); a point of N runs takes the first N files. At each
point, in fresh processes taken in turn (A B A B ..., `--repeat` rounds): `irw ingest runs DIR`
into a copy of a fresh `irw init` warehouse, and DuckDB's `CREATE TABLE AS SELECT * FROM
read_csv([files])` + CHECKPOINT into a fresh file (bench_campaign.py's READ_CSV). With
`--floor`, a third: the same read_csv into the same columns as irw's run_row with each row's
list position (no sort) as its rank, a row number in file order kept from the reader
(campaign_floor.py's "files in order" floor). Wall and CPU seconds and peak RSS come from each
child's rusage; the table gives medians and the median of the pairwise ratios, and the load
average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_campaign import READ_CSV, _uptime, fresh, run  # noqa: E402
from bench_eval import PY, REPO, irw, irw_env  # noqa: E402

# read_csv into run_row's columns, each row's position in its list in file order as the rank:
# what storing the rows costs when no list needs sorting, without any check
FLOOR = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute('''
    CREATE TABLE t AS
    WITH r AS (SELECT *, row_number() OVER () AS line
               FROM read_csv(?, delim=' ', header=false, filename=true, all_varchar=true))
    SELECT CAST(filename AS VARCHAR) AS run, column0 AS topic, column2 AS doc,
           CAST(column4 AS DOUBLE) AS score, CAST(column3 AS BIGINT) AS rank, line AS file_order,
           line - min(line) OVER (PARTITION BY filename, column0) + 1 AS score_rank
    FROM r''', [sys.argv[2:]])
con.execute("CHECKPOINT")
con.close()
"""


def point(folder: Path, work: Path, repeat: int, env: dict, floor: bool) -> dict:
    runs = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    template, wh = work / "init.duckdb", work / "wh.duckdb"
    raw, low = work / "read_csv.duckdb", work / "floor.duckdb"
    run(irw("init", "-w", fresh(template)), env=env)

    def ingest():
        shutil.copyfile(template, fresh(wh))
        return run(irw("ingest", "runs", folder, "-C", "c", "-w", wh), env=env)
    steps = {"ingest": ingest, "read_csv": lambda: run([PY, "-c", READ_CSV, fresh(raw), *runs])}
    if floor:
        steps["floor"] = lambda: run([PY, "-c", FLOOR, fresh(low), *runs])
    got: dict[str, list] = {k: [] for k in steps}
    for _ in range(max(1, repeat)):
        for key, step in steps.items():
            got[key].append(step())
            s = got[key][-1]
            print(f"    {key:9s} {s.wall:7.2f}s wall {s.cpu:7.2f}s cpu {s.mb:6.0f} MB",
                  file=sys.stderr, flush=True)
    return got


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default="100,400")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", type=Path,
                    default=REPO / "bench" / "out" / "campaign" / "data" / "campaign")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "ingest")
    ap.add_argument("--floor", action="store_true")
    args = ap.parse_args(argv)
    files = sorted((args.data / "runs").glob("run.*"))
    if not files:
        sys.exit(f"no runs in {args.data}/runs: make them with "
                 "`bench/bench_campaign.py --generate-only --runs N --topics ''`")
    env = irw_env()
    before = _uptime()
    lines = ["| runs (M rows) | irw ingest runs: wall s (CPU) | read_csv: wall s (CPU) | "
             "ingest / read_csv: wall (CPU) | peak MiB ingest / read_csv |"
             + (" floor / read_csv: wall (CPU) |" if args.floor else ""),
             "|---|---:|---:|---:|---:|" + ("---:|" if args.floor else "")]
    for n in [int(x) for x in args.runs.split(",") if x]:
        if n > len(files):
            sys.exit(f"--runs {n}: only {len(files)} runs in {args.data}")
        work = args.out / f"runs{n}"
        folder = work / "runs"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for p in files[:n]:
            (folder / p.name).symlink_to(p.resolve())
        print(f"  {n} runs", file=sys.stderr, flush=True)
        got = point(folder, work, args.repeat, env, args.floor)

        def med(key, attr):
            return statistics.median(getattr(s, attr) for s in got[key])

        def ratio(key, attr):
            return statistics.median(getattr(a, attr) / getattr(b, attr)
                                     for a, b in zip(got[key], got["read_csv"]))
        row = (f"| {n} ({n * 0.05:g}) | {med('ingest', 'wall'):.2f} ({med('ingest', 'cpu'):.2f}) "
               f"| {med('read_csv', 'wall'):.2f} ({med('read_csv', 'cpu'):.2f}) "
               f"| {ratio('ingest', 'wall'):.2f}x ({ratio('ingest', 'cpu'):.2f}x) "
               f"| {max(s.mb for s in got['ingest']):.0f} / "
               f"{max(s.mb for s in got['read_csv']):.0f} |")
        if args.floor:
            row += f" {ratio('floor', 'wall'):.2f}x ({ratio('floor', 'cpu'):.2f}x) |"
        lines.append(row)
        print(row, file=sys.stderr, flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load before: {before}\nload after: {_uptime()}; {os.cpu_count()} cores; "
          f"{args.repeat} rounds, medians\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
