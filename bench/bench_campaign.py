#!/usr/bin/env python
"""Campaign-scale throughput (issue 22): a benchmark, not a test.

    PYTHONPATH=. python bench/bench_campaign.py --trec-eval /path/to/trec_eval \
        [--runs 10,50,100,200,400] [--topics 50,500,2000,7000] [--repeat 3] [--out DIR]

Two scaling curves, each point timed next to its references in the same run:

* runs: 10 -> 400 runs of bench_eval.py's campaign (50 topics x 1,000 documents per run, a
  graded pool of which 1,500 documents per topic are judged), the first N runs of one generated
  set of 400;
* topics: one run of 50 -> 7,000 topics x 1,000 documents against sparse qrels (bench_eval.py's
  large run at 7,000).

At every point: `irw ingest runs DIR` into a fresh warehouse (made by `irw init`, timed
apart) against DuckDB's own single
`CREATE TABLE AS SELECT * FROM read_csv([files])` into a fresh file with a CHECKPOINT;
`irw eval --campaign` of the stored runs (`-m map -m P.10 -m ndcg_cut.10 -m recip_rank`), the
same with `--store`, `irw eval QRELS RUN...` from the files, and trec_eval run once per run
file. Each command runs in a fresh process; its wall and CPU seconds and peak RSS come from its
own rusage (os.wait4); a step repeated (--repeat) keeps its fastest run, for every tool alike
(contention on a shared machine only ever adds time). The slope of each series is the
least-squares seconds per million run rows. irw's run values are checked against trec_eval's
(4 decimals) at every point. The output directory (default bench/out/campaign) is gitignored.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_eval import (  # noqa: E402  (bench_eval.py is this folder's module, not a package)
    PY,
    REPO,
    find_trec_eval,
    gen_big,
    gen_campaign,
    irw,
    irw_env,
    parse_irw_out,
    parse_trec_eval_out,
)

MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
FLAGS = [x for m in MEASURES for x in ("-m", m)]

READ_CSV = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, delim=' ', header=false)",
            [sys.argv[2:]])
con.execute("CHECKPOINT")
con.close()
"""


class Step:
    """One timed command: wall and CPU seconds, peak RSS in MB."""

    def __init__(self, wall: float, cpu: float, mb: float):
        self.wall, self.cpu, self.mb = wall, cpu, mb

    def __lt__(self, other):
        return self.wall < other.wall

    def __add__(self, other):
        return Step(self.wall + other.wall, self.cpu + other.cpu, max(self.mb, other.mb))


def run(cmd, *, env=None, out: Path | None = None) -> Step:
    with open(out or os.devnull, "wb") as sink:
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], env=env, stdout=sink,
                                stderr=subprocess.PIPE)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{err.decode()[-2000:]}")
    return Step(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def fresh(path: Path) -> Path:
    for p in (path, Path(str(path) + ".wal")):
        p.unlink(missing_ok=True)
    return path


def best(n: int, fn) -> Step:
    return min(fn() for _ in range(max(1, n)))


def trec_eval_loop(binary: str, qrels: Path, runs: list[Path], outdir: Path) -> Step:
    total = Step(0.0, 0.0, 0.0)
    for i, path in enumerate(runs):
        total = total + run([binary, *FLAGS, qrels, path], out=outdir / f"te.{i:03d}.txt")
    return total


def check(outdir: Path, irw_out: Path, runs: list[Path], tag_of) -> list[str]:
    """irw's run values against trec_eval's, 4 decimals."""
    got = parse_irw_out(irw_out)
    problems = []
    for i, path in enumerate(runs):
        want = parse_trec_eval_out(outdir / f"te.{i:03d}.txt")
        mine = got.get(tag_of(path), {})
        for m, v in want.items():
            if m not in mine or abs(mine[m] - v) > 1e-4:
                problems.append(f"{irw_out.name} {path.name}: {m} irw={mine.get(m)} "
                                f"trec_eval={v}")
    return problems


def point(label: str, qrels: Path, folder: Path, rows: int, work: Path, trec_eval: str,
          repeat: int, env: dict, tag_of) -> tuple[dict, list[str]]:
    """Every step at one point of a curve."""
    work.mkdir(parents=True, exist_ok=True)
    runs = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    wh, raw = work / "wh.duckdb", work / "read_csv.duckdb"
    print(f"  {label}: {len(runs)} runs, {rows / 1e6:.2f}M rows", file=sys.stderr, flush=True)
    s = {}
    s["read_csv"] = best(repeat, lambda: run([PY, "-c", READ_CSV, fresh(raw), *runs]))
    # A fresh warehouse made by `irw init` (timed on its own: creating the schema and the
    # macros is paid once per warehouse, not per ingest), copied before each ingest.
    template = work / "init.duckdb"
    s["init"] = run(irw("init", "-w", fresh(template)), env=env)

    def ingest():
        shutil.copyfile(template, fresh(wh))
        return run(irw("ingest", "runs", folder, "-C", "c", "-w", wh), env=env)
    s["ingest"] = best(repeat, ingest)
    s["qrels"] = run(irw("ingest", "qrels", qrels, "-C", "c", "-w", wh), env=env)
    size = wh.stat().st_size + (Path(str(wh) + ".wal").stat().st_size
                                if Path(str(wh) + ".wal").exists() else 0)
    stored_out, files_out = work / "irw_stored.txt", work / "irw_files.txt"
    s["stored"] = best(repeat, lambda: run(irw("eval", "--campaign", "c", "-w", wh, "-m",
                                               "runid", *FLAGS), env=env, out=stored_out))
    s["store"] = best(repeat, lambda: run(irw("eval", "--campaign", "c", "-w", wh, "--store",
                                              *FLAGS), env=env))
    s["files"] = best(repeat, lambda: run(irw("eval", qrels, *runs, "-m", "runid", *FLAGS),
                                          env=env, out=files_out))
    s["trec_eval"] = best(repeat, lambda: trec_eval_loop(trec_eval, qrels, runs, work))
    problems = check(work, stored_out, runs, tag_of) + check(work, files_out, runs, tag_of)
    for key, step in s.items():
        print(f"    {key:10s} {step.wall:7.2f}s wall {step.cpu:7.2f}s cpu {step.mb:6.0f} MB",
              file=sys.stderr, flush=True)
    return {"label": label, "runs": len(runs), "rows": rows, "size": size, **s}, problems


def slope(points: list[dict], key: str, attr: str = "wall") -> float:
    """Least-squares seconds per million run rows (with an intercept: start-up)."""
    if len(points) < 2:
        return float("nan")
    x = np.array([p["rows"] / 1e6 for p in points])
    y = np.array([getattr(p[key], attr) for p in points])
    return float(np.polyfit(x, y, 1)[0])


COLUMNS = [("init", "irw init"), ("ingest", "irw ingest runs"), ("read_csv", "DuckDB read_csv"),
           ("stored", "irw eval --campaign"), ("store", "... --store"),
           ("files", "irw eval QRELS RUN..."), ("trec_eval", "trec_eval loop")]


def table(title: str, points: list[dict]) -> str:
    head = ("| point | M rows | " + " | ".join(name for _, name in COLUMNS)
            + " | ingest / read_csv | stored / trec_eval | --store adds | files / trec_eval"
            " | peak MB ingest / stored / store / files | file MB |")
    lines = [f"### {title} (wall s; CPU s in brackets)", "", head,
             "|" + "---|" * (head.count("|") - 1)]
    for p in points:
        cells = [f"{p[k].wall:.2f} ({p[k].cpu:.2f})" for k, _ in COLUMNS]
        lines.append(
            f"| {p['label']} | {p['rows'] / 1e6:.2f} | " + " | ".join(cells)
            + f" | {p['ingest'].wall / p['read_csv'].wall:.2f}x"
            + f" | {p['stored'].wall / p['trec_eval'].wall:.3f}"
            + f" | {100 * (p['store'].wall / p['stored'].wall - 1):+.0f}%"
            + f" | {p['files'].wall / p['trec_eval'].wall:.2f}"
            + f" | {p['ingest'].mb:.0f} / {p['stored'].mb:.0f} / {p['store'].mb:.0f} / "
              f"{p['files'].mb:.0f} | {p['size'] / 1e6:.0f} |")
    lines.append("| slope, s per M rows (wall) | | " + " | ".join(
        f"{slope(points, k):.3f}" for k, _ in COLUMNS) + " | | | | | | |")
    lines.append("| slope, s per M rows (CPU) | | " + " | ".join(
        f"{slope(points, k, 'cpu'):.3f}" for k, _ in COLUMNS) + " | | | | | | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=None, help="a built trec_eval (else $TREC_EVAL or "
                    "PATH)")
    ap.add_argument("--runs", default="10,50,100,200,400")
    ap.add_argument("--topics", default="50,500,2000,7000")
    ap.add_argument("--repeat", type=int, default=3,
                    help="times each step runs at the 10- and 100-run points (the targets' "
                    "points); 1 elsewhere")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "campaign")
    ap.add_argument("--generate-only", action="store_true",
                    help="write the data (reused by later runs with the same seed and sizes)")
    args = ap.parse_args(argv)
    trec_eval = args.trec_eval or find_trec_eval()
    if not trec_eval:
        sys.exit("bench_campaign.py needs trec_eval (--trec-eval, $TREC_EVAL or PATH)")
    run_counts = [int(x) for x in args.runs.split(",") if x]
    topic_counts = [int(x) for x in args.topics.split(",") if x]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    env = irw_env()
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "irwarehouse")], check=True,
                   env={**env, "PYTHONDONTWRITEBYTECODE": ""}, stdout=subprocess.DEVNULL)

    # data: one set of max(runs) runs (the curve takes the first N), one run per topic count
    rng = np.random.default_rng(args.seed)
    pool = out / "data" / "campaign"
    stamp = out / "data" / "stamp"
    want_stamp = f"seed={args.seed} runs={max(run_counts, default=0)} topics={topic_counts}\n"
    if not (stamp.exists() and stamp.read_text() == want_stamp):
        t0 = time.perf_counter()
        if run_counts:
            gen_campaign(pool, rng, max(run_counts), 50, 1000, judged=1500, pool=3000)
        for t in topic_counts:
            big = out / "data" / f"topics{t}"
            gen_big(big, rng, t, 1000)
            (big / "runs").mkdir(exist_ok=True)
            (big / "run").replace(big / "runs" / "run")
        stamp.write_text(want_stamp)
        print(f"generated data in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    all_runs = sorted((pool / "runs").glob("run.*")) if run_counts else []
    if args.generate_only:
        return 0

    load0, up0 = os.getloadavg(), _uptime()
    problems: list[str] = []
    run_points, topic_points = [], []
    for n in run_counts:
        folder = out / "points" / f"runs{n}" / "runs"
        folder.mkdir(parents=True, exist_ok=True)
        for p in all_runs[:n]:
            link = folder / p.name
            if not link.exists():
                link.symlink_to(p)
        repeat = args.repeat if n in (10, 100) else 1
        res, bad = point(f"{n} runs x 50 topics", pool / "qrels", folder, n * 50 * 1000,
                         out / "points" / f"runs{n}", trec_eval, repeat, env,
                         lambda p: f"run{p.name.split('.')[1]}")
        run_points.append(res)
        problems += bad
    for t in topic_counts:
        big = out / "data" / f"topics{t}"
        res, bad = point(f"1 run x {t} topics", big / "qrels", big / "runs", t * 1000,
                         out / "points" / f"topics{t}", trec_eval, 1, env,
                         lambda p: "irwBench-bm25-rm3")
        topic_points.append(res)
        problems += bad

    text = [f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} ({up0}); "
            f"after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({_uptime()}); "
            f"{os.cpu_count()} cores", ""]
    if run_points:
        text += [table("Runs: 10 -> 400 (50 topics x 1,000 documents per run)", run_points), ""]
    if topic_points:
        text += [table("Topics: 50 -> 7,000 (one run, 1,000 documents per topic)",
                       topic_points), ""]
    text += targets(run_points)
    text += ["", "irw's run values agree with trec_eval's at every point (4 decimals)."
             if not problems else f"DISAGREEMENTS ({len(problems)}): " + "; ".join(problems[:10])]
    report = "\n".join(text)
    print(report)
    (out / "report.md").write_text(report + "\n")
    return 1 if problems else 0


def targets(points: list[dict]) -> list[str]:
    """Issue 22's targets, from the points of the runs curve."""
    by = {p["runs"]: p for p in points}
    lines = ["Targets (ratios of wall seconds in this run):"]

    def verdict(ok):
        return "[met]" if ok else "[missed]"
    if 100 in by:
        p = by[100]
        r = p["ingest"].wall / p["read_csv"].wall
        lines.append(f"* {verdict(r <= 1.5)} ingest of 100 runs <= 1.5x read_csv: {r:.2f}x "
                     f"(CPU {p['ingest'].cpu / p['read_csv'].cpu:.2f}x)")
        r = p["stored"].wall / p["trec_eval"].wall
        lines.append(f"* {verdict(r <= 0.1)} eval --campaign, 100 runs, <= 0.1x trec_eval's "
                     f"loop: {r:.3f} (CPU {p['stored'].cpu / p['trec_eval'].cpu:.3f})")
    if 10 in by:
        p = by[10]
        r = p["stored"].wall / p["trec_eval"].wall
        lines.append(f"* {verdict(r <= 0.3)} eval --campaign, 10 runs, <= 0.3x trec_eval's "
                     f"loop: {r:.3f} (CPU {p['stored'].cpu / p['trec_eval'].cpu:.3f})")
    if 400 in by:
        p = by[400]
        r = p["store"].wall / p["stored"].wall - 1
        lines.append(f"* {verdict(r <= 0.2)} --store of four measures, 400 runs, adds <= 20%: "
                     f"{100 * r:+.0f}%")
    big = [p for p in points if p["runs"] >= 100]
    if len(big) >= 2:
        grow = big[-1]["store"].mb / big[0]["store"].mb
        lines.append(f"* {verdict(grow < 1.25)} peak memory of eval --store flat from "
                     f"{big[0]['runs']} to {big[-1]['runs']} runs: {big[0]['store'].mb:.0f} -> "
                     f"{big[-1]['store'].mb:.0f} MB")
    return lines


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
