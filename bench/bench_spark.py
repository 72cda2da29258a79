#!/usr/bin/env python
"""Benchmark DuckDB against Spark on one campaign (not a test).

    PYTHONPATH=. python bench/bench_spark.py [--runs 1000] [--topics 50] [--depth 1000]
        [--subsets 100,250,500,1000] [--out bench/out_spark] [--keep-data] [--memory 8g]
        [--spark-workers 1,2] [--no-curves]

Generates bench_eval.py's campaign (gen_campaign, seed 7): --runs runs x --topics topics x
--depth documents, drawn from shared per-topic pools of 3,000 documents of which 1,500 are
judged (graded 0-3); 1,000 x 50 x 1,000 = 50M run rows by default. Then, each step in a
subprocess (wall and CPU seconds, peak RSS of the process and, for Spark, of its JVM):

  1. `irw ingest qrels` + `irw ingest runs` into a fresh warehouse (DuckDB);
  2. `irw export campaign C --format parquet DIR` (the Spark side's input);
  3. `irw eval -C C` of map, P.10, ndcg_cut.10 and recip_rank (DuckDB, 2 threads), and the
     same with `--engine spark --spark-master local[1]` and `local[2]` (end to end: JVM start,
     reading the Parquet files, the evaluation);
  4. inside one process per engine setting: the same evaluation of the first N runs for every
     N of --subsets (DuckDB with 1 and 2 threads; Spark local[1] and local[2], one session
     each, warmed up first), to see how time grows with runs and workers.

Prints a table with the ratios Spark / DuckDB and writes it to OUT/report.md. Every run of
Spark here checks its run values against DuckDB's (to 1e-9).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
sys.path.insert(0, str(HERE))
from bench_eval import gen_campaign, irw, irw_env, run_cmd


def mflags() -> list[str]:
    return [x for m in MEASURES for x in ("-m", m)]


# -- the child: timings inside one process ----------------------------------------------------

def child(args) -> None:
    """Evaluate the first N runs for every N of --subsets with one engine setting; print one
    JSON line: {"engine", "workers", "points": [[N, seconds, rows]], "values": {...}}."""
    sys.path.insert(0, str(REPO))
    from irwarehouse.engine.evaluate import EvalOptions
    from irwarehouse.measures import parse_measures
    requests = parse_measures(MEASURES)
    subsets = [int(x) for x in args.subsets.split(",")]
    points, values, extra = [], {}, {}
    if args.engine == "duckdb":
        from irwarehouse.api import Warehouse
        from irwarehouse.engine.evaluate import evaluate
        with Warehouse(args.warehouse, read_only=True) as wh:
            wh.con.execute(f"SET threads = {int(args.workers)}")
            names = sorted(n for (n,) in wh.con.execute("SELECT name FROM run").fetchall())
            qid = wh.qrels_id("c")
            for n in subsets:
                ids = wh.run_ids("c", names[:n])
                start = time.perf_counter()
                result = evaluate(wh.con, ids, qid, requests, EvalOptions())
                points.append([n, time.perf_counter() - start, result.per_topic.num_rows])
            values = {f"{r['run']}/{r['measure']}": r["value"]
                      for r in result.summary.to_pylist()}
    else:
        from irwarehouse.spark.engine import (
            SparkEvaluation,
            evaluate_spark,
            register_export,
            spark_session,
        )
        start = time.perf_counter()
        spark = spark_session(f"local[{args.workers}]",
                              conf={"spark.driver.memory": args.memory,
                                    "spark.sql.shuffle.partitions": str(2 * args.workers)})
        extra["session_seconds"] = time.perf_counter() - start
        register_export(spark, args.data)
        names = sorted(r[0] for r in spark.sql("SELECT name FROM run").collect())
        start = time.perf_counter()
        evaluate_spark(spark, "c", requests, runs=names[:5])       # warm-up: JIT, caches
        extra["warmup_seconds"] = time.perf_counter() - start
        for n in subsets:
            start = time.perf_counter()
            result = evaluate_spark(spark, "c", requests, runs=None if n >= len(names)
                                    else names[:n])
            points.append([n, time.perf_counter() - start, result.per_topic.num_rows])
        values = {f"{r['run']}/{r['measure']}": r["value"] for r in result.summary.to_pylist()}
        ev = SparkEvaluation(spark, "c")                 # where the time of the largest goes
        ev.build(["ev_relevant"], EvalOptions())
        extra["relations"] = [[name, round(s, 2)] for name, s in ev.timings]
        ev.close()
        extra["jvm_peak_mb"] = _jvm_peak_mb(spark)
        spark.stop()
    print(json.dumps({"engine": args.engine, "workers": args.workers, "points": points,
                      "values": values, **extra}))


def _jvm_peak_mb(spark) -> float | None:
    """VmHWM of the JVM the session runs in (Linux)."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    try:
        text = Path(f"/proc/{proc.pid}/status").read_text()
    except (AttributeError, OSError):
        return None
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


# -- the parent ------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--subsets", default="100,250,500,1000")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "out_spark")
    ap.add_argument("--keep-data", action="store_true",
                    help="reuse the campaign, warehouse and export already in --out")
    ap.add_argument("--memory", default="8g", help="Spark driver memory (local mode)")
    ap.add_argument("--spark-workers", default="1,2",
                    help="the local[N] masters of the end-to-end Spark steps and the curves")
    ap.add_argument("--no-curves", action="store_true",
                    help="only steps 1-3 (the full-size run: the curves re-evaluate every "
                         "subset on every engine setting)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="duckdb", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=2, help=argparse.SUPPRESS)
    ap.add_argument("--warehouse", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args)
        return 0
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    subsets = [n for n in (int(x) for x in args.subsets.split(",")) if n <= args.runs]
    if args.runs not in subsets:
        subsets.append(args.runs)
    args.subsets = ",".join(map(str, subsets))
    wh, data = out / "bench.duckdb", out / "export"
    stamp = out / "data.stamp"
    stamp_text = f"seed={args.seed} runs={args.runs} topics={args.topics} depth={args.depth}\n"
    env = irw_env()
    rows: dict[str, tuple] = {}

    def step(key, label, cmd, **kw):
        print(f"  {label} ...", file=sys.stderr, flush=True)
        s, mb, cpu = run_cmd(cmd, **{"env": env, **kw})
        rows[key] = (label, s, cpu, mb)
        print(f"    {s:.1f}s wall  {cpu:.1f}s cpu  {mb:.0f} MB", file=sys.stderr, flush=True)

    fresh = not (args.keep_data and stamp.exists() and stamp.read_text() == stamp_text)
    if fresh:
        for p in (wh, Path(str(wh) + ".wal")):
            p.unlink(missing_ok=True)
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(out / "campaign", ignore_errors=True)
        t0 = time.perf_counter()
        gen_campaign(out / "campaign", np.random.default_rng(args.seed), args.runs,
                     args.topics, args.depth, judged=1500, pool=max(3000, args.depth * 3))
        print(f"generated in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
        step("ingest_qrels", "irw ingest qrels", irw("ingest", "qrels", out / "campaign" /
                                                     "qrels", "-C", "c", "-w", wh))
        step("ingest", f"irw ingest runs ({args.runs} runs)",
             irw("ingest", "runs", out / "campaign" / "runs", "-C", "c", "-w", wh))
        step("export", "irw export campaign --format parquet",
             irw("export", "campaign", "c", "--format", "parquet", data, "-w", wh))
        stamp.write_text(stamp_text)
    nrows = _count_rows(wh)
    step("duckdb_eval", "irw eval (DuckDB, 2 threads)",
         irw("eval", "-C", "c", "-w", wh, *mflags()), stdout_path=out / "duckdb.txt")
    spark_workers = [int(w) for w in args.spark_workers.split(",")]
    for workers in spark_workers:
        step(f"spark{workers}_eval", f"irw eval --engine spark local[{workers}]",
             irw("eval", "--engine", "spark", "--spark-master", f"local[{workers}]", "--data",
                 data, "-C", "c", *mflags()), stdout_path=out / f"spark{workers}.txt",
             env={**env, "IRW_SPARK_MEMORY": args.memory})
    curves = {}
    for engine in () if args.no_curves else ("duckdb", "spark"):
        for workers in (1, 2) if engine == "duckdb" else spark_workers:
            print(f"  scaling: {engine} x{workers} ...", file=sys.stderr, flush=True)
            path = out / f"curve_{engine}{workers}.json"
            cmd = [PY, str(Path(__file__).resolve()), "--child", "--engine", engine,
                   "--workers", str(workers), "--warehouse", str(wh), "--data", str(data),
                   "--subsets", args.subsets, "--memory", args.memory]
            s, mb, cpu = run_cmd(cmd, env=env, stdout_path=path)
            curves[(engine, workers)] = {**json.loads(path.read_text()), "peak_mb": mb,
                                        "wall": s, "cpu": cpu}
    problems = _check(out, curves, spark_workers)
    text = report(args, nrows, rows, curves, problems)
    print(text)
    (out / "report.md").write_text(text + "\n")
    return 1 if problems else 0


def _count_rows(wh: Path) -> int:
    import duckdb
    with duckdb.connect(str(wh), read_only=True) as con:
        return con.execute("SELECT count(*) FROM run_row").fetchall()[0][0]


def _check(out: Path, curves: dict, spark_workers: list[int]) -> list[str]:
    """Spark's run values against DuckDB's (printed outputs to 4 decimals, in-process values
    to 1e-9)."""
    problems = []
    want = (out / "duckdb.txt").read_text()
    for workers in spark_workers:
        if (out / f"spark{workers}.txt").read_text() != want:
            problems.append(f"irw eval --engine spark local[{workers}] prints other values")
    ref = curves[("duckdb", 2)]["values"] if curves else {}
    for key, curve in curves.items():
        got = curve["values"]
        if got.keys() != ref.keys() or any(abs(got[k] - ref[k]) > 1e-9 for k in ref):
            problems.append(f"{key}: run values differ from DuckDB's")
    return problems


def report(args, nrows, rows, curves, problems) -> str:
    load = os.getloadavg()
    lines = [(f"## bench_spark: {args.runs} runs x {args.topics} topics x {args.depth} "
              f"documents = {nrows:,} run rows"), "",
             (f"Machine: {os.cpu_count()} cores; load average at the end {load[0]:.1f}. "
              f"Measures: {', '.join(MEASURES)}. Spark driver memory {args.memory}."), "",
             "| step | wall s | CPU s | peak RSS MB | wall / DuckDB |", "|---|---:|---:|---:|---:|"]
    base = rows.get("duckdb_eval")
    for key, (label, s, cpu, mb) in rows.items():
        ratio = f"{s / base[1]:.1f}" if key.startswith("spark") and base else ""
        lines.append(f"| {label} | {s:.1f} | {cpu:.1f} | {mb:.0f} | {ratio} |")
    if not curves:
        lines += ["", "values: " + ("Spark = DuckDB (printed, 4 decimals) in every setting"
                                    if not problems else "; ".join(problems))]
        return "\n".join(lines)
    lines += ["", ("Evaluation of the first N runs inside one process (Spark: session warm, "
                   "time of evaluate_spark; DuckDB: evaluate):"), "",
              "| N runs | " + " | ".join(f"{e} x{w}" for e, w in curves) + " |",
              "|---:|" + "---:|" * len(curves)]
    points = {key: {p[0]: p[1] for p in c["points"]} for key, c in curves.items()}
    for n in sorted({n for p in points.values() for n in p}):
        lines.append(f"| {n} | " + " | ".join(f"{points[k].get(n, float('nan')):.1f}"
                                              for k in curves) + " |")
    lines += ["", ("| setting | process wall s | CPU s | peak RSS MB (Python) | JVM peak MB | "
                   "session start s | warm-up s |"), "|---|---:|---:|---:|---:|---:|---:|"]
    for (engine, workers), c in curves.items():
        jvm = c.get("jvm_peak_mb")
        lines.append(f"| {engine} x{workers} | {c['wall']:.1f} | {c['cpu']:.1f} | "
                     f"{c['peak_mb']:.0f} | {'' if jvm is None else f'{jvm:.0f}'} | "
                     f"{c.get('session_seconds', 0):.1f} | {c.get('warmup_seconds', 0):.1f} |")
    for (engine, workers), c in curves.items():
        if c.get("relations"):
            lines += ["", f"Context relations, Spark x{workers}, all runs (seconds): " +
                      ", ".join(f"{n} {s}" for n, s in c["relations"])]
    lines += ["", "values: " + ("Spark = DuckDB (1e-9) in every setting" if not problems
                                else "; ".join(problems))]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
