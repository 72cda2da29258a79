#!/usr/bin/env python
"""Where `irw eval` overtakes trec_eval (issue 32, target 1): a benchmark, not a test.

    PYTHONPATH=. python bench/bench_crossover.py --trec-eval /path/to/trec_eval
        [--shape robust|sparse] [--rows 100000,250000,500000,1000000,2000000] [--repeat 5]
        [--out bench/out/crossover]

irw pays a fixed start-up (Python, DuckDB, the schema) that trec_eval, a C program, does not;
past some run size irw's two threads and DuckDB's columnar work win it back. This script finds
that size for the everyday command, `-m map -m P.10 QRELS RUN`, on two shapes of data:

* `--shape robust` (the default): real data, the TREC 2003 Robust runs (../shared/realdata,
  never copied into the repository) laid end to end, each copy under its own topic names
  (topic 601 of the k-th copy is `601x<k>`) with the qrels repeated for every copy, until the
  run has at least the asked number of rows (whole runs only). The lists, their scores and
  their judgments are real ones at every size; the qrels grow with the run (about 1.35 judged
  documents per run row: a densely judged pool).
* `--shape sparse`: bench_eval.py's large run cut to size (rows / 1,000 topics of 1,000
  documents, 1-4 relevant and 0-6 judged non-relevant documents a topic, seed 7): the shape of
  MS MARCO-style collections, where the qrels are small beside the run.

Each size is timed in
fresh processes taken in turn (irw, trec_eval, irw, ...), `--repeat` times; CPU is user + sys
of each process (os.wait4). The two tools' MAP and P@10 must agree to 4 decimals.

Beside them, DuckDB's floor (bench_folders.py's): Python, `import duckdb`, one typed read_csv
of each file, no check of any kind, and the join of the run with the judgments; no ranking, no
measure. No DuckDB pipeline evaluating the run does less, so where the floor itself does not
cross trec_eval, no irw built on DuckDB in a fresh Python process can.

Prints one row per size (medians and their ratios) and the crossovers: the first size at which
irw's CPU (and wall), and the floor's, are at most trec_eval's, interpolated linearly in rows
between the two measured sizes around it. Target: irw's crossover below 0.5M run rows.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
from itertools import pairwise
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_campaign import _uptime
from bench_eval import find_trec_eval, gen_big, irw, irw_env, run_cmd
from bench_everyday import ROBUST
from bench_folders import FLOOR

MEASURES = ["map", "P.10"]


def build_sparse(rows: int, out: Path) -> tuple[Path, Path, int]:
    """bench_eval.py's large run and its qrels with rows / 1,000 topics."""
    import numpy as np
    qrels, run = gen_big(out / f"sparse.{rows}", np.random.default_rng(7), rows // 1000, 1000)
    return qrels, run, rows // 1000 * 1000


def build(rows: int, out: Path) -> tuple[Path, Path, int]:
    """A qrels file and a run file of at least `rows` rows (see the module's docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = out / f"run.{rows}", out / f"qrels.{rows}"
    sources = sorted((ROBUST / "runs").glob("input.*.gz"))
    qrels = (ROBUST / "qrels" / "robust03_qrels.txt").read_text().split("\n")
    written, copies = 0, 0
    with open(run_path, "w") as run:
        while written < rows:
            with gzip.open(sources[copies % len(sources)], "rt") as src:
                for line in src:
                    topic, q0, doc, rank, score, _ = line.split()
                    run.write(f"{topic}x{copies} {q0} {doc} {rank} {score} crossover\n")
                    written += 1
            copies += 1
    with open(qrels_path, "w") as f:
        for k in range(copies):
            for line in qrels:
                if line.strip():
                    topic, rest = line.split(None, 1)
                    f.write(f"{topic}x{k} {rest}\n")
    return qrels_path, run_path, written


def means(path: Path) -> dict[str, str]:
    """'map' and 'P_10' of an `all` row of trec_eval's output format, to 4 decimals."""
    got = {}
    for line in path.read_text().splitlines():
        name, topic, value = line.split()
        if topic == "all" and name in ("map", "P_10"):
            got[name] = f"{float(value):.4f}"
    return got


def crossover(points: list[dict], key: str, who: str = "irw") -> str:
    """The interpolated number of rows where `who`'s `key` (cpu/wall) meets trec_eval's."""
    ratios = [(p["rows"], p[who][key] / p["te"][key]) for p in points]
    if ratios[0][1] <= 1:
        return f"at or below {ratios[0][0]:,} rows"
    for (r0, q0), (r1, q1) in pairwise(ratios):
        if q1 <= 1:
            return f"about {r0 + (r1 - r0) * (q0 - 1) / (q0 - q1):,.0f} rows"
    return f"above {ratios[-1][0]:,} rows"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trec-eval", default=find_trec_eval())
    ap.add_argument("--shape", choices=("robust", "sparse"), default="robust")
    ap.add_argument("--rows", default="100000,250000,500000,1000000,2000000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "out" / "crossover")
    args = ap.parse_args(argv)
    if not args.trec_eval:
        sys.exit("give --trec-eval BINARY (or set TREC_EVAL)")
    env = irw_env()
    flags = [x for m in MEASURES for x in ("-m", m)]
    print(f"shape: {args.shape}; load before: {_uptime()}")
    points = []
    for rows in [int(x) for x in args.rows.split(",")]:
        qrels, run, n = (build if args.shape == "robust" else build_sparse)(rows, args.out)
        cmds = {"irw": (irw("eval", *flags, qrels, run), env),
                "te": ([args.trec_eval, *flags, str(qrels), str(run)], None),
                "floor": ([sys.executable, "-c", FLOOR, str(qrels), str(run)], None)}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
        for i in range(args.repeat + 1):                 # the first round warms the caches
            for name, (cmd, cmd_env) in cmds.items():
                wall, _, cpu = run_cmd(cmd, env=cmd_env, stdout_path=args.out / f"{name}.txt")
                if i:
                    times[name].append((wall, cpu))
        got, want = means(args.out / "irw.txt"), means(args.out / "te.txt")
        if got != want or len(got) != 2:
            sys.exit(f"{n} rows: irw {got} but trec_eval {want}")
        point = {"rows": n}
        for name, pairs in times.items():
            point[name] = {"wall": statistics.median(w for w, _ in pairs),
                           "cpu": statistics.median(c for _, c in pairs)}
        points.append(point)
    print(f"load after: {_uptime()}")
    print("\n| run rows | irw wall s (CPU) | trec_eval wall s (CPU) | irw / trec_eval: wall (CPU) "
          "| DuckDB floor wall s (CPU) | floor / trec_eval: wall (CPU) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for p in points:
        i, t, f = p["irw"], p["te"], p["floor"]
        print(f"| {p['rows']:,} | {i['wall']:.3f} ({i['cpu']:.3f}) | {t['wall']:.3f} "
              f"({t['cpu']:.3f}) | {i['wall'] / t['wall']:.2f}x ({i['cpu'] / t['cpu']:.2f}x) "
              f"| {f['wall']:.3f} ({f['cpu']:.3f}) | {f['wall'] / t['wall']:.2f}x "
              f"({f['cpu'] / t['cpu']:.2f}x) |")
    for who in ("irw", "floor"):
        print(f"crossover of {who}: CPU {crossover(points, 'cpu', who)}; wall "
              f"{crossover(points, 'wall', who)}")
    print("(target: irw's below 500,000 rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
