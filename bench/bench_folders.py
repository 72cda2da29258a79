#!/usr/bin/env python
"""Folders of runs (issue 32, target 3): a benchmark, not a test.

    PYTHONPATH=. python bench/bench_folders.py --trec-eval /path/to/trec_eval \
        [--runs 100,400] [--repeat 3] [--out bench/out/folders]

`irw eval QRELS RUN1 ... RUNn` (n run files in one command, no warehouse) against trec_eval run
once per file in a loop, on bench_eval.py's campaign (50 topics x 1,000 documents per run, a
graded pool of which 1,500 documents per topic are judged; the first n runs of one generated set),
each measured in the same run, interleaved (irw, trec_eval loop, irw, ...), every command a fresh
process whose CPU (user + sys), wall seconds and peak RSS come from its own rusage (os.wait4).
The ratios are of the medians. Beside them, DuckDB's floor for the same reading: one parallel
`read_csv` of every file into a table (typed, no check of any kind) and the join with the
judgments, nothing else (no ranking, no measure, no output): no DuckDB pipeline that reads the
files and looks up their judgments does less. irw's values are checked against trec_eval's (4
decimals). Target: irw's CPU at most 0.8x the loop's at 100 files; peak RSS under 500 MB at
every n.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_campaign import FLAGS, Step, _uptime, check, run  # noqa: E402
from bench_eval import PY, REPO, find_trec_eval, gen_campaign, irw, irw_env  # noqa: E402

FLOOR = r"""
import sys, duckdb
con = duckdb.connect()
con.execute('''CREATE TABLE judged AS
    SELECT column0 AS topic, column2 AS doc, CAST(column3 AS INTEGER) AS rel
    FROM read_csv($q, delim = ' ', header = false, all_varchar = true)''', {"q": sys.argv[1]})
con.execute('''CREATE TABLE runs AS
    SELECT file_index AS fi, topic, doc, score
    FROM read_csv($runs, columns = {'topic': 'VARCHAR', 'q0': 'VARCHAR', 'doc': 'VARCHAR',
                                    'rank': 'VARCHAR', 'score': 'DOUBLE', 'tag': 'VARCHAR'},
                  delim = ' ', quote = '', escape = '', header = false, auto_detect = false)''',
            {"runs": sys.argv[2:]})
print(con.execute('''SELECT count(*), sum(rel) FROM runs r
                     JOIN judged j ON j.topic = r.topic AND j.doc = r.doc''').fetchone())
"""


def trec_eval_loop(binary: str, qrels: Path, runs: list[Path], outdir: Path) -> Step:
    total = Step(0.0, 0.0, 0.0)
    for i, path in enumerate(runs):
        total = total + run([binary, *FLAGS, qrels, path], out=outdir / f"te.{i:03d}.txt")
    return total


def median(steps: list[Step]) -> Step:
    return Step(statistics.median(s.wall for s in steps), statistics.median(s.cpu for s in steps),
                statistics.median(s.mb for s in steps))


def point(n: int, qrels: Path, runs: list[Path], work: Path, trec_eval: str, repeat: int,
          env: dict) -> tuple[dict, list[str]]:
    work.mkdir(parents=True, exist_ok=True)
    irw_out = work / "irw.txt"
    steps: dict[str, list[Step]] = {"irw": [], "trec_eval": [], "floor": []}
    print(f"  {n} files ...", file=sys.stderr, flush=True)
    for _ in range(max(1, repeat)):
        steps["irw"].append(run(irw("eval", qrels, *runs, "-m", "runid", *FLAGS), env=env,
                                out=irw_out))
        steps["trec_eval"].append(trec_eval_loop(trec_eval, qrels, runs, work))
        steps["floor"].append(run([PY, "-c", FLOOR, qrels, *runs]))
    med = {k: median(v) for k, v in steps.items()}
    for k, s in med.items():
        print(f"    {k:10s} {s.wall:7.2f}s wall {s.cpu:7.2f}s cpu {s.mb:6.0f} MB",
              file=sys.stderr, flush=True)
    problems = check(work, irw_out, runs, lambda p: f"run{p.name.split('.')[1]}")
    return {"n": n, **med}, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=None, help="a built trec_eval (else $TREC_EVAL or "
                    "PATH)")
    ap.add_argument("--runs", default="100,400")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "folders")
    args = ap.parse_args(argv)
    trec_eval = args.trec_eval or find_trec_eval()
    if not trec_eval:
        sys.exit("bench_folders.py needs trec_eval (--trec-eval, $TREC_EVAL or PATH)")
    counts = [int(x) for x in args.runs.split(",") if x]
    data = args.out / "data"
    stamp = data / "stamp"
    want = f"seed={args.seed} runs={max(counts)}\n"
    if not (stamp.exists() and stamp.read_text() == want):
        t0 = time.perf_counter()
        gen_campaign(data, np.random.default_rng(args.seed), max(counts), 50, 1000,
                     judged=1500, pool=3000)
        stamp.write_text(want)
        print(f"generated data in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    all_runs = sorted((data / "runs").glob("run.*"))
    env = irw_env()
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "irwarehouse")], check=True,
                   env={**env, "PYTHONDONTWRITEBYTECODE": ""}, stdout=subprocess.DEVNULL)
    up0 = _uptime()
    points, problems = [], []
    for n in counts:
        res, bad = point(n, data / "qrels", all_runs[:n], args.out / f"n{n}", trec_eval,
                         args.repeat, env)
        points.append(res)
        problems += bad
    lines = [f"before: {up0}", f"after: {_uptime()}", f"{os.cpu_count()} cores; medians of "
             f"{args.repeat} interleaved runs", "",
             "| files | M rows | irw CPU s | irw wall s | irw peak MB | trec_eval loop CPU s "
             "| loop wall s | loop peak MB | CPU irw / loop | wall irw / loop "
             "| DuckDB floor CPU s (wall) | floor / loop CPU |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in points:
        i, t, f = p["irw"], p["trec_eval"], p["floor"]
        lines.append(f"| {p['n']} | {p['n'] * 0.05:.1f} | {i.cpu:.2f} | {i.wall:.2f} | "
                     f"{i.mb:.0f} | {t.cpu:.2f} | {t.wall:.2f} | {t.mb:.0f} | "
                     f"{i.cpu / t.cpu:.2f} | {i.wall / t.wall:.2f} | {f.cpu:.2f} ({f.wall:.2f}) "
                     f"| {f.cpu / t.cpu:.2f} |")
    by = {p["n"]: p for p in points}
    lines.append("")
    if 100 in by:
        r = by[100]["irw"].cpu / by[100]["trec_eval"].cpu
        lines.append(f"* {'[met]' if r <= 0.8 else '[missed]'} 100 files, CPU <= 0.8x "
                     f"trec_eval's loop: {r:.2f}x")
    peak = max(p["irw"].mb for p in points)
    lines.append(f"* {'[met]' if peak < 500 else '[missed]'} peak RSS under 500 MB at "
                 f"{', '.join(str(p['n']) for p in points)} files: "
                 + ", ".join(f"{p['irw'].mb:.0f}" for p in points) + " MB")
    lines.append("* irw's run values agree with trec_eval's (4 decimals)" if not problems
                 else f"* DISAGREEMENTS ({len(problems)}): " + "; ".join(problems[:10]))
    report = "\n".join(lines)
    print(report)
    (args.out / "report.md").write_text(report + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
