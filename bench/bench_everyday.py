#!/usr/bin/env python
"""The everyday case (issue 15), a benchmark and not a test: one run of a TREC-size campaign,
end to end, next to pytrec_eval, the ir_measures CLI and trec_eval, in the same run.

    python bench/bench_everyday.py [--repeat 5] [--out bench/out/everyday]
        [--trec-eval BINARY | --trec-eval-src DIR] [--baseline CHECKOUT] [--large]

Data (read from ../shared/realdata, see tests/helpers/paths.py REALDATA):
  * TREC 2003 Robust: the qrels and the 17 runs (input.InexpC2 is the everyday run: 100 topics
    x 1,000 documents, tab-separated);
  * a copy of InexpC2 re-spaced from the seed with tabs, runs of spaces and spaces at the ends of
    lines (the same values, so the same scores);
  * NTCIR-16 WWW-4: the qrels and the KASYS-CO-REV-6 run, for `--format ntcireval`.

trec_eval: `--trec-eval BINARY` (or $TREC_EVAL), or `--trec-eval-src DIR`, a checkout of
usnistgov/trec_eval that is copied to --out and built there with -O2 (never into the repo).
Every command runs in a fresh process, --repeat times; the table gives the median wall seconds
and the median CPU seconds (user + sys of the child, from os.wait4), and each ratio is taken
between medians of the same run. The load average is printed before and after. `--large` runs
bench/bench_eval.py (the 7M-line run, the 100-run campaign, re-evaluation, ingestion) after it
and prints its table too.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from bench_eval import find_trec_eval, irw_env, run_cmd

PY = sys.executable
REALDATA = Path(os.environ.get("IRW_REALDATA", REPO.parent / "shared" / "realdata"))
if not REALDATA.exists():
    REALDATA = Path("/work/shared/realdata")
ROBUST = REALDATA / "trec2003_robust"
WWW4 = REALDATA / "ntcir16_www4_english"

# pytrec_eval as a user runs it: parse both files into dicts, evaluate, print the means.
PYTREC_SCRIPT = r"""
import sys, pytrec_eval
qrels = {}
with open(sys.argv[1]) as f:
    for line in f:
        t, _, d, r = line.split()
        qrels.setdefault(t, {})[d] = int(r)
measures = set(sys.argv[3].split(","))
for path in sys.argv[2:3]:
    run = {}
    with open(path) as f:
        for line in f:
            t, _, d, _, s, _ = line.split(None, 5)
            run.setdefault(t, {})[d] = float(s)
    res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for m in sorted(measures):
        print(m, "all", f"{sum(v[m] for v in res.values()) / len(res):.4f}")
"""


# Where the time of `irw eval -m map -m P.10 QRELS RUN` goes, step by step in one process, as
# the CLI runs it (irwarehouse.cli.fast -> eval_body -> api.evaluate_files, engine.files, without
# typer since issue 32's third stop): CPU and wall seconds.
STEPS_SCRIPT = r"""
import json, sys, time
marks = []
def mark(label):
    marks.append((label, time.process_time(), time.perf_counter()))
mark("start")
import duckdb; mark("import duckdb")
import irwarehouse.cli.fast, irwarehouse.cli.eval_body; mark("import irwarehouse.cli (eval's body)")
from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.writers import render; mark("import engine, writers")
from irwarehouse.measures import parse_measures
qrels, run = sys.argv[1], sys.argv[2]
requests = parse_measures(["map", "P.10"]); mark("parse measures (catalog)")
wh = Warehouse(None, macros=False, lean=True)
from irwarehouse.store.connection import fit_threads
fit_threads(wh.con, [qrels, run]); mark("private warehouse (schema)")
qid = wh.ingest_qrels(qrels, "files"); mark("read + check qrels")
from irwarehouse.engine.evaluate import batchable
from irwarehouse.engine.files import FileRuns
files = FileRuns(wh.con, [run], in_batches=batchable(requests, EvalOptions()))
files.prepare(0); mark("read + check run")
result = evaluate(wh.con, files.run_ids, qid, requests, EvalOptions(), batches=files.batches,
                  file_order=True); mark("evaluate (context, macros)")
files.close()
text = render(result, "trec_eval", per_topic=False); mark("render")
wh.close(); mark("close")
print(json.dumps([(b[0], b[1] - a[1], b[2] - a[2]) for a, b in zip(marks, marks[1:])]))
"""


def step_breakdown(qrels: Path, run: Path, repeat: int, env) -> str:
    """STEPS_SCRIPT in `repeat` fresh processes: the median CPU and wall seconds of each step,
    after `python -c pass` (the interpreter's own start)."""
    import json
    rows: dict[str, list[tuple[float, float]]] = {}
    bare = Step("python start", [PY, "-c", "pass"])
    for _ in range(repeat):
        bare.run()
        out = subprocess.run([PY, "-c", STEPS_SCRIPT, str(qrels), str(run)], env=env,
                             check=True, capture_output=True, text=True).stdout
        for label, cpu, wall in json.loads(out):
            rows.setdefault(label, []).append((cpu, wall))
    lines = ["| step | CPU s | wall s |", "|---|---:|---:|",
             f"| python start (`python -c pass`) | {bare.c:.3f} | {bare.w:.3f} |"]
    total_c, total_w = bare.c, bare.w
    for label, values in rows.items():
        c = statistics.median(v[0] for v in values)
        w = statistics.median(v[1] for v in values)
        total_c += c
        total_w += w
        lines.append(f"| {label} | {c:.3f} | {w:.3f} |")
    lines.append(f"| sum | {total_c:.3f} | {total_w:.3f} |")
    return "\n".join(lines)


def irw_cmd() -> list[str]:
    """The `irw` script next to this Python (what a user types), else `python -m`."""
    script = Path(PY).with_name("irw")
    return [str(script)] if script.exists() else [PY, "-m", "irwarehouse.cli"]


def tool(name: str) -> str | None:
    script = Path(PY).with_name(name)
    return str(script) if script.exists() else shutil.which(name)


def build_trec_eval(src: Path, out: Path) -> str:
    """Copy a usnistgov/trec_eval checkout to `out` and build it there with -O2."""
    build = out / "trec_eval_build"
    if not (build / "trec_eval").exists():
        shutil.rmtree(build, ignore_errors=True)
        shutil.copytree(src, build, ignore=shutil.ignore_patterns(".git", "*.o", "trec_eval"))
        # the Makefile's own flags with -O2 instead of -g (its VERSIONID kept)
        subprocess.run(["make", "-s", 'CFLAGS=-O2 -I. -DVERSIONID=\\"$(VERSIONID)\\"'],
                       cwd=build, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return str(build / "trec_eval")


def respaced(src: Path, dst: Path, seed: int) -> None:
    """`src` with each field separator replaced by a tab, 2-4 spaces or a space and a tab, and
    some lines starting or ending with spaces: the values (and so the scores) are unchanged."""
    rng = random.Random(seed)
    seps = ["\t", "  ", "   ", " \t", "\t\t", "    "]
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            fields = line.split()
            text = "".join(f + rng.choice(seps) for f in fields[:-1]) + fields[-1]
            lead = " " * rng.choice((0, 0, 0, 1, 2))
            tail = rng.choice(("", "", "", " ", "\t"))
            out.write(f"{lead}{text}{tail}\n")


def gunzip(src: Path, dst: Path) -> Path:
    if not dst.exists():
        with gzip.open(src, "rb") as f, open(dst, "wb") as out:
            shutil.copyfileobj(f, out)
    return dst


class Step:
    def __init__(self, label: str, cmd: list[str], env=None, group: str = ""):
        self.label, self.cmd, self.env, self.group = label, cmd, env, group
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def run(self, out_path: Path | None = None) -> None:
        wall, _, cpu = run_cmd(self.cmd, env=self.env, stdout_path=out_path)
        self.wall.append(wall)
        self.cpu.append(cpu)

    @property
    def w(self) -> float:
        return statistics.median(self.wall)

    @property
    def c(self) -> float:
        return statistics.median(self.cpu)


def loop_step(label: str, binary: str, flags: list[str], qrels: Path, runs: list[Path]):
    """trec_eval over each file in turn, as one step (a shell loop)."""
    script = ("import subprocess, sys\n"
              "for r in sys.argv[3:]:\n"
              "    subprocess.run([sys.argv[1], *sys.argv[2].split(), r], check=True,\n"
              "                   stdout=subprocess.DEVNULL)\n")
    return Step(label, [PY, "-c", script, binary, " ".join([*flags, str(qrels)]), *map(str, runs)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "out" / "everyday")
    ap.add_argument("--trec-eval", default=None)
    ap.add_argument("--trec-eval-src", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--large", action="store_true", help="also run bench/bench_eval.py")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="a checkout of another irw version (e.g. main before this work): its "
                    "`irw eval` is timed in the same run")
    args = ap.parse_args(argv)
    if not ROBUST.exists():
        print(f"no real data at {REALDATA}", file=sys.stderr)
        return 2
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    te = args.trec_eval or os.environ.get("TREC_EVAL")
    if te is None and args.trec_eval_src:
        te = build_trec_eval(args.trec_eval_src, out)
    te = te or find_trec_eval()

    qrels = ROBUST / "qrels" / "robust03_qrels.txt"
    runs = sorted(gunzip(p, out / p.name.removesuffix(".gz"))
                  for p in (ROBUST / "runs").glob("input.*.gz"))
    inexp = out / "input.InexpC2"
    mixed = out / "input.InexpC2.respaced"
    if not mixed.exists():
        respaced(inexp, mixed, args.seed)
    www_qrels = WWW4 / "www4gold-corrected.qrels"
    www_run = WWW4 / "runs" / "KASYS-CO-REV-6.gz"

    env = irw_env()
    irw = irw_cmd()
    wh = out / "robust03.duckdb"
    if not wh.exists():                                   # the stored campaign (not timed)
        subprocess.run([*irw, "init", "-w", str(wh)], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        subprocess.run([*irw, "ingest", "qrels", str(qrels), "-C", "robust03", "-w", str(wh)],
                       check=True, env=env, stdout=subprocess.DEVNULL)
        for run in runs:
            subprocess.run([*irw, "ingest", "run", str(run), "-C", "robust03", "-w", str(wh)],
                           check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "irwarehouse")], check=True)

    mp = ["-m", "map", "-m", "P.10"]
    steps = [
        Step("irw eval -m map -m P.10 (InexpC2)", [*irw, "eval", *mp, str(qrels), str(inexp)],
             env, "everyday"),
        Step("pytrec_eval, parse + evaluate (one process)",
             [PY, "-c", PYTREC_SCRIPT, str(qrels), str(inexp), "map,P_10"], None, "everyday"),
        Step("DuckDB floor (bench/everyday_floor.py)",
             [PY, str(HERE / "everyday_floor.py"), str(qrels), str(inexp)], None, "everyday"),
        Step("ir_measures CLI (AP P@10)",
             [tool("ir_measures") or "ir_measures", str(qrels), str(inexp), "AP", "P@10"],
             None, "everyday"),
    ]
    if te:
        steps.append(Step("trec_eval -O2", [te, *mp, str(qrels), str(inexp)], None, "everyday"))
    if args.baseline:
        subprocess.run([PY, "-m", "compileall", "-q", str(args.baseline / "irwarehouse")],
                       check=True)
        # first on sys.path (`python -m` would put the current directory, maybe this
        # checkout, before PYTHONPATH)
        start = (f"import sys; sys.path.insert(0, {str(args.baseline)!r}); sys.argv[0] = 'irw'; "
                 "from irwarehouse.cli import main; main()")
        steps.append(Step(f"irw eval at {args.baseline.name} (before)",
                          [PY, "-c", start, "eval", *mp, str(qrels), str(inexp)], None,
                          "everyday"))
        # issue 32 target 2 before: all_trec over map + P.10 at the baseline
        steps.append(Step(f"irw eval -m all_trec at {args.baseline.name} (before)",
                          [PY, "-c", start, "eval", "-m", "all_trec", str(qrels), str(inexp)],
                          None, "sets"))
    steps += [
        Step("irw eval, re-spaced copy (tabs, runs of spaces)",
             [*irw, "eval", *mp, str(qrels), str(mixed)], env, "spacing"),
        Step("irw eval -m all_trec", [*irw, "eval", "-m", "all_trec", str(qrels), str(inexp)],
             env, "sets"),
        Step("irw eval --format ntcireval (WWW-4 KASYS)",
             [*irw, "eval", "--format", "ntcireval", "--order", "file", "-g", "1:2",
              "--cutoffs", "1,10", "--qrels-format", "ntcir_qrels", str(www_qrels),
              str(www_run)], env, "sets"),
        Step("irw eval --campaign robust03 (17 stored runs)",
             [*irw, "eval", "-C", "robust03", "-w", str(wh), *mp], env, "campaign"),
    ]
    if te:
        steps.append(loop_step("trec_eval -O2, loop over the 17 files", te, mp, qrels, runs))
        steps[-1].group = "campaign"
    steps += [
        Step("irw --help", [*irw, "--help"], env, "start"),
        Step("irw eval --help", [*irw, "eval", "--help"], env, "start"),
        Step('irw sql "SELECT 1"', [*irw, "sql", "-w", str(wh), "SELECT 1"], env, "start"),
    ]
    load_before = os.getloadavg()
    for step in steps:                                   # warm the page cache, check outputs
        step.run(out / f"{step.group}.{steps.index(step)}.txt")
        step.wall.clear()
        step.cpu.clear()
    for _ in range(args.repeat):                         # interleaved: load hits every tool
        for step in steps:
            step.run()
    load_after = os.getloadavg()
    print(report(steps, load_before, load_after, args.repeat, te))
    check_values(out, steps)
    print("\nWhere irw's time goes (InexpC2, map and P.10; median of "
          f"{args.repeat} fresh processes):\n")
    print(step_breakdown(qrels, inexp, args.repeat, env))
    if args.large:
        cmd = [PY, str(HERE / "bench_eval.py"), "--out", str(out.parent / "large"),
               "--keep-data", "--repeat", "3"]
        subprocess.run(cmd, check=True, env={**env, **({"TREC_EVAL": te} if te else {})})
    return 0


def report(steps: list[Step], before, after, repeat: int, te: str | None) -> str:
    by = {s.label: s for s in steps}
    irw, pytrec = by["irw eval -m map -m P.10 (InexpC2)"], by[
        "pytrec_eval, parse + evaluate (one process)"]
    trec = by.get("trec_eval -O2")
    lines = [(f"load average before {before[0]:.2f} {before[1]:.2f}, after {after[0]:.2f} "
              f"{after[1]:.2f}; {os.cpu_count()} CPUs; median of {repeat}"),
             "", ("| step | wall s | CPU s | wall / pytrec_eval | wall / trec_eval | "
                  "CPU / pytrec_eval | CPU / trec_eval |"), "|---|---:|---:|---:|---:|---:|---:|"]
    for s in steps:
        rp = f"{s.w / pytrec.w:.2f}" if s.group in ("everyday", "spacing") else ""
        rt = f"{s.w / trec.w:.2f}" if trec and s.group in ("everyday", "spacing") else ""
        cp = f"{s.c / pytrec.c:.2f}" if s.group in ("everyday", "spacing") else ""
        ct = f"{s.c / trec.c:.2f}" if trec and s.group in ("everyday", "spacing") else ""
        lines.append(f"| {s.label} | {s.w:.3f} | {s.c:.3f} | {rp} | {rt} | {cp} | {ct} |")
    lines += ["", "Targets (wall, medians of this run; CPU in brackets):"]

    def check(text: str, value: float, cpu: float, limit: float, unit: str = "") -> None:
        mark = "met" if value <= limit else "MISSED"
        lines.append(f"- [{mark}] {text}: {value:.2f}{unit} [{cpu:.2f}{unit}] (<= {limit:g}{unit})")

    check("irw <= pytrec_eval (x pytrec_eval)", irw.w / pytrec.w, irw.c / pytrec.c, 1.0)
    # issue 32 target 1 is stated in CPU: at most pytrec_eval's and the ir_measures CLI's
    ir_measures = by.get("ir_measures CLI (AP P@10)")
    for peer, label in ((pytrec, "pytrec_eval"), (ir_measures, "ir_measures CLI")):
        if peer is not None:
            mark = "met" if irw.c <= peer.c else "MISSED"
            lines.append(f"- [{mark}] issue 32 target 1, CPU irw <= {label}: "
                         f"{irw.c / peer.c:.2f} (<= 1)")
    mixed = by["irw eval, re-spaced copy (tabs, runs of spaces)"]
    check("re-spaced copy <= pytrec_eval", mixed.w / pytrec.w, mixed.c / pytrec.c, 1.0)
    if trec:
        check("irw <= 3x trec_eval (moonshot 2x)", irw.w / trec.w, irw.c / trec.c, 3.0)
    for label in ("irw eval -m all_trec", "irw eval --format ntcireval (WWW-4 KASYS)"):
        s = by[label]
        check(f"{label} <= 1.5x the map/P.10 time", s.w / irw.w, s.c / irw.c, 1.5)
    s = by["irw eval -m all_trec"]
    check("all_trec - map/P.10 <= 0.15 s (issue 32 target 2)", s.w - irw.w, s.c - irw.c, 0.15,
          " s")
    before = [b for b in steps if b.label.startswith("irw eval at ")]
    before_all = [b for b in steps if b.label.startswith("irw eval -m all_trec at ")]
    if before and before_all:
        lines.append(f"- (before: all_trec - map/P.10 {before_all[0].w - before[0].w:.3f} s "
                     f"[{before_all[0].c - before[0].c:.3f} s])")
    if trec:
        s, loop = by["irw eval --campaign robust03 (17 stored runs)"], by[
            "trec_eval -O2, loop over the 17 files"]
        check("--campaign (17 runs) <= 1/3 of trec_eval's loop", s.w / loop.w, s.c / loop.c,
              1 / 3)
    for label, limit in (("irw --help", 0.3), ("irw eval --help", 0.3),
                         ('irw sql "SELECT 1"', 0.4)):
        s = by[label]
        check(f"{label} < {limit} s", s.w, s.c, limit, " s")
    return "\n".join(lines)


def check_values(out: Path, steps: list[Step]) -> None:
    """irw's map and P_10 of the everyday run against trec_eval's (and pytrec_eval's) printed
    values, from the warm-up run's outputs."""
    def values(path: Path) -> dict[str, str]:
        got = {}
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "all" and parts[0] != "runid":
                got[parts[0]] = f"{float(parts[2]):.4f}"
        return got
    files = {s.label: out / f"{s.group}.{i}.txt" for i, s in enumerate(steps)}
    irw = values(files["irw eval -m map -m P.10 (InexpC2)"])
    others = {k: values(v) for k, v in files.items()
              if k.endswith("(before)") or k in ("pytrec_eval, parse + evaluate (one process)", "trec_eval -O2",
                       "DuckDB floor (bench/everyday_floor.py)",
                       "irw eval, re-spaced copy (tabs, runs of spaces)")}
    bad = [f"{k}: {m} {v.get(m)} != {irw.get(m)}" for k, v in others.items()
           for m in ("map", "P_10") if v.get(m) != irw.get(m)]
    before_all = [k for k in files if k.startswith("irw eval -m all_trec at ")]
    if before_all and files[before_all[0]].read_bytes() != \
            files["irw eval -m all_trec"].read_bytes():
        bad.append("all_trec's output differs from the baseline's")
    print("\nvalues: " + ("; ".join(bad) if bad else
                          f"irw map {irw.get('map')} P_10 {irw.get('P_10')} = "
                          + ", ".join(others)))


if __name__ == "__main__":
    t0 = time.perf_counter()
    code = main()
    print(f"\n({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    sys.exit(code)
