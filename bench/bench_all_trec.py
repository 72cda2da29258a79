#!/usr/bin/env python
"""Issue 32 target 2, a benchmark and not a test: `irw eval -m all_trec` against `irw eval -m map
-m P.10` on the same run, fresh processes, CPU seconds; with --baseline, the same two commands of
another checkout interleaved with them.

    python bench/bench_all_trec.py [--rounds 11] [--baseline CHECKOUT] [--qrels Q --run R]

Default data: TREC 2003 Robust's qrels and its InexpC2 run (../shared/realdata). Each round runs,
in turn, all_trec and map + P.10 (and the baseline's two), so that a drift of the shared
machine's speed hits all of them; CPU = user + sys of the child (os.wait4). Prints the medians,
the difference of the medians and the median of the paired differences (all_trec minus map +
P.10 of the same round), with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
REALDATA = Path(os.environ.get("IRW_REALDATA", REPO.parent / "shared" / "realdata"))
if not REALDATA.exists():
    REALDATA = Path("/work/shared/realdata")
ROBUST = REALDATA / "trec2003_robust"
SETS = {"all_trec": ["-m", "all_trec"], "map + P.10": ["-m", "map", "-m", "P.10"]}


def command(checkout: Path | None, measures: list[str], qrels: Path, run: Path) -> list[str]:
    """`irw eval` of this checkout (the irw script next to this Python), or of `checkout` (first
    on sys.path, as bench_everyday.py runs its baseline)."""
    if checkout is None:
        script = Path(PY).with_name("irw")
        start = [str(script)] if script.exists() else [PY, "-m", "irwarehouse.cli"]
    else:
        start = [PY, "-c", (f"import sys; sys.path.insert(0, {str(checkout)!r}); "
                            "sys.argv[0] = 'irw'; from irwarehouse.cli import main; main()")]
    return [*start, "eval", *measures, str(qrels), str(run)]


def cpu_seconds(cmd: list[str]) -> float:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--baseline", type=Path, default=None)
    ap.add_argument("--qrels", type=Path, default=ROBUST / "qrels" / "robust03_qrels.txt")
    ap.add_argument("--run", type=Path, default=ROBUST / "runs" / "input.InexpC2.gz")
    args = ap.parse_args(argv)
    trees = {"this checkout": None}
    if args.baseline:
        trees[f"{args.baseline.name} (baseline)"] = args.baseline
    steps = [(tree, name, command(path, measures, args.qrels, args.run))
             for tree, path in trees.items() for name, measures in SETS.items()]
    for _, _, cmd in steps:                               # warm the page cache
        cpu_seconds(cmd)
    cpu: dict[tuple[str, str], list[float]] = {(t, n): [] for t, n, _ in steps}
    before = os.getloadavg()
    for _ in range(args.rounds):
        for tree, name, cmd in steps:
            cpu[(tree, name)].append(cpu_seconds(cmd))
    after = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average before "
          f"{before[0]:.2f} {before[1]:.2f}, after {after[0]:.2f} {after[1]:.2f}; "
          f"{os.cpu_count()} CPUs; {args.rounds} rounds; CPU seconds\n")
    print("| | all_trec | map + P.10 | difference of medians | median of paired differences "
          "(min, max) |\n|---|---:|---:|---:|---:|")
    for tree in trees:
        a, m = cpu[(tree, "all_trec")], cpu[(tree, "map + P.10")]
        paired = [x - y for x, y in zip(a, m)]
        print(f"| {tree} | {statistics.median(a):.3f} | {statistics.median(m):.3f} | "
              f"{statistics.median(a) - statistics.median(m):+.3f} | "
              f"{statistics.median(paired):+.3f} ({min(paired):+.3f}, {max(paired):+.3f}) |")
    mine = statistics.median(x - y for x, y in zip(cpu[("this checkout", "all_trec")],
                                                   cpu[("this checkout", "map + P.10")]))
    print(f"\ntarget 2 (all_trec at most +0.15 s CPU over map + P.10): "
          f"{'met' if mine <= 0.15 else 'missed'} ({mine:+.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
