#!/usr/bin/env python
"""Benchmark irw against trec_eval and pytrec_eval (not a test).

    PYTHONPATH=. python bench/bench_eval.py [--scale 1.0] [--seed 7] [--out bench/out]

Generates, from the seed, into --out (gitignored):
  (a) big/run, big/qrels: a 7,000-topic x 1,000-doc TREC run (7M lines at scale 1, tied scores
      included, also ties that only appear at float32 precision) and graded qrels with 1-4
      relevant documents per topic (levels 1-3) plus some judged non-relevant ones;
  (b) campaign/qrels, campaign/runs/run.NNN: 100 runs x 50 topics x 1,000 documents drawn from a
      shared per-topic pool of which ~1,500 documents per topic are judged (graded).
Then times every tool in a subprocess (wall seconds, peak RSS from wait4's rusage) and prints a
table against the targets. --scale shrinks the number of topics (and the campaign's run count
and list depth) for a quick smoke run.
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
PYTREC_MEASURES = {"map", "P_10", "ndcg_cut_10", "recip_rank"}


# -- data generation ------------------------------------------------------------------------------

def _write_lines(path: Path, chunks) -> None:
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.writelines(chunks)


def _scores_with_ties(rng, n: int) -> list[str]:
    """Descending-ish score texts with exact ties (values rounded to 0.1) and ties that only
    exist at float32 precision (trec_eval 9 parses scores as float: "3.0999999046325684" and
    "3.1" are different doubles but the same float32)."""
    base = np.sort(rng.gamma(2.0, 4.0, size=n))[::-1]
    kind = rng.random(n)
    texts = []
    for x, k in zip(base.tolist(), kind.tolist()):
        if k < 0.25:
            texts.append(f"{round(x, 1):.1f}")                       # exact ties
        elif k < 0.30:
            texts.append(repr(float(np.float32(round(x, 1)))))       # float32-only ties
        else:
            texts.append(f"{x:.6f}")
    return texts


def gen_big(out: Path, rng, n_topics: int, depth: int) -> tuple[Path, Path]:
    """The 7,000-topic sparse run and its qrels."""
    out.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = out / "run", out / "qrels"
    qrels_lines = []

    def chunks():
        for t in range(n_topics):
            topic = str(401 + t)
            ids = rng.choice(50_000_000, size=depth + 20, replace=False)
            docs = [f"clueweb12-{d // 100000:04d}wb-{d % 100000:05d}" for d in ids]
            scores = _scores_with_ties(rng, depth)
            # qrels: 1-4 relevant (levels 1-3), mostly retrieved, 0-6 judged non-relevant
            nrel = int(rng.integers(1, 5))
            nnon = int(rng.integers(0, 7))
            picks = rng.choice(depth + 20, size=nrel + nnon, replace=False)
            for k, p in enumerate(picks):
                level = int(rng.integers(1, 4)) if k < nrel else 0
                qrels_lines.append(f"{topic} 0 {docs[p]} {level}\n")
            yield "".join(f"{topic} Q0 {docs[i]} {i + 1} {scores[i]} irwBench-bm25-rm3\n"
                          for i in range(depth))
    _write_lines(run_path, chunks())
    _write_lines(qrels_path, qrels_lines)
    return qrels_path, run_path


def gen_campaign(out: Path, rng, n_runs: int, n_topics: int, depth: int, judged: int,
                 pool: int) -> tuple[Path, list[Path]]:
    """100 runs over a shared per-topic pool; `judged` documents of each pool are judged."""
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    topics = [str(1001 + t) for t in range(n_topics)]
    pools = {t: [f"GX{int(t):04d}-{k:05d}-{int(x):06d}" for k, x in
                 enumerate(rng.integers(0, 10**6, size=pool))] for t in topics}
    # pool documents have a latent quality; good documents are more often judged relevant and
    # ranked higher by the runs
    quality = {t: rng.random(pool) for t in topics}
    qrels_lines = []
    for t in topics:
        judged_idx = np.sort(rng.choice(pool, size=judged, replace=False))
        q = quality[t][judged_idx]
        levels = np.where(q > 0.9, 3, np.where(q > 0.8, 2, np.where(q > 0.65, 1, 0)))
        noise = rng.random(judged) < 0.1
        levels[noise] = rng.integers(0, 4, size=int(noise.sum()))
        for i, lv in zip(judged_idx, levels):
            qrels_lines.append(f"{t} 0 {pools[t][i]} {lv}\n")
    qrels_path = out / "qrels"
    _write_lines(qrels_path, qrels_lines)
    run_paths = []
    for r in range(n_runs):
        skill = rng.random() * 3
        path = runs_dir / f"run.{r:03d}"
        parts = []
        for t in topics:
            idx = rng.choice(pool, size=depth, replace=False)
            key = quality[t][idx] * skill + rng.random(depth)
            order = np.argsort(-key, kind="stable")
            idx = idx[order]
            scores = np.round(np.sort(key)[::-1] * 10, 3)       # 3 decimals: some ties
            docs = pools[t]
            parts.append("".join(f"{t} Q0 {docs[i]} {k + 1} {s:.3f} run{r:03d}\n"
                                 for k, (i, s) in enumerate(zip(idx, scores))))
        _write_lines(path, parts)
        run_paths.append(path)
    return qrels_path, run_paths


# -- measurement ----------------------------------------------------------------------------------

class Measurement:
    def __init__(self, name: str, seconds: float, peak_mb: float, cpu: float):
        self.name, self.seconds, self.peak_mb, self.cpu = name, seconds, peak_mb, cpu


def run_cmd(cmd: list[str], *, env=None, stdout_path: Path | None = None
            ) -> tuple[float, float, float]:
    """Run one command; returns (wall seconds, peak RSS MB, CPU seconds user+sys) of that
    child, from its own rusage (os.wait4)."""
    with open(stdout_path or os.devnull, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.PIPE)
        stderr = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
                           f"{stderr.decode(errors='replace')[-2000:]}")
    return seconds, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def irw_env() -> dict:
    """The environment of the timed processes: this checkout first on the path, and its
    modules compiled once (an installed package has its .pyc files; with
    PYTHONDONTWRITEBYTECODE set, every process would compile the modules edited since their
    last .pyc, up to 0.01 s each)."""
    import compileall
    compileall.compile_dir(str(REPO / "irwarehouse"), quiet=1)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                     else "")
    return env


def irw(*args) -> list[str]:
    return [PY, "-m", "irwarehouse.cli", *map(str, args)]


def mflags() -> list[str]:
    # runid: irw, like trec_eval, prints the runid row only when it is asked for
    return ["-m", "runid"] + [x for m in MEASURES for x in ("-m", m)]


PYTREC_SCRIPT = r"""
import sys, pytrec_eval
qrels_path, run_paths = sys.argv[1], sys.argv[2:]
qrels = {}
with open(qrels_path) as f:
    for line in f:
        t, _, d, r = line.split()
        qrels.setdefault(t, {})[d] = int(r)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10", "recip_rank"})
for path in run_paths:
    run = {}
    with open(path) as f:
        for line in f:
            t, _, d, _, s, _ = line.split(None, 5)
            run.setdefault(t, {})[d] = float(s)
    res = ev.evaluate(run)
    n = len(res)
    means = {m: sum(v[m] for v in res.values()) / n for m in ("map", "P_10", "ndcg_cut_10",
                                                                "recip_rank")}
    print(path, " ".join(f"{k}={v:.4f}" for k, v in sorted(means.items())))
"""

READ_CSV_SCRIPT = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, delim=' ', header=false)", [sys.argv[2]])
print(con.execute("SELECT count(*) FROM t").fetchone()[0])
con.close()
"""


# The metric macros an analyst calls, from a Python that only has duckdb: the four measures'
# per-topic values for every run of the stored campaign; the run means of each, to check them.
MACRO_SCRIPT = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
values = {}
for label, call in (("map", "irw_map('c')"), ("P_10", "irw_P('c', cutoff := 10)"),
                    ("ndcg_cut_10", "irw_ndcg_cut('c', cutoff := 10)"),
                    ("recip_rank", "irw_recip_rank('c')")):
    for run, topic, value in con.execute(f"SELECT run, topic, value FROM {call}").fetchall():
        values.setdefault(run, {}).setdefault(label, []).append(value)
for run in sorted(values):
    print("runid all", run)
    for label, v in values[run].items():
        print(label, "all", f"{sum(v) / len(v):.4f}")
"""


def find_trec_eval() -> str | None:
    cand = os.environ.get("TREC_EVAL")
    if cand and Path(cand).is_file():
        return cand
    return shutil.which("trec_eval")


def trec_eval_loop(binary: str, qrels: Path, runs: list[Path], outdir: Path
                   ) -> tuple[float, float, float]:
    total, peak, cpu = 0.0, 0.0, 0.0
    flags = [x for m in ("map", "P.10", "ndcg_cut.10", "recip_rank") for x in ("-m", m)]
    for i, run in enumerate(runs):
        s, mb, c = run_cmd([binary, *flags, str(qrels), str(run)],
                           stdout_path=outdir / f"trec_eval.{i:03d}.txt")
        total += s
        cpu += c
        peak = max(peak, mb)
    return total, peak, cpu


def parse_trec_eval_out(path: Path) -> dict[str, float]:
    vals = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] != "runid":
            vals[parts[0]] = float(parts[2])
    return vals


def parse_irw_out(path: Path) -> dict[str, dict[str, float]]:
    """run -> measure -> value from irw's trec_eval layout (several runs)."""
    out, run = {}, None
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            if parts[0] == "runid":
                run = parts[2]
                out[run] = {}
            else:
                out[run][parts[0]] = float(parts[2])
    return out


# -- main -----------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the full size")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--keep-data", action="store_true",
                    help="reuse data already generated in --out with the same seed and scale")
    ap.add_argument("--repeat", type=int, default=3,
                    help="run every step this many times and keep the fastest (default 3)")
    args = ap.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "data.stamp"
    stamp_text = f"seed={args.seed} scale={args.scale}\n"
    big_topics = max(10, round(7000 * args.scale))
    n_runs = max(5, round(100 * min(1.0, args.scale * 4)))
    camp_topics = 50
    camp_depth = max(100, round(1000 * min(1.0, args.scale * 4)))

    if not (args.keep_data and stamp.exists() and stamp.read_text() == stamp_text):
        t0 = time.perf_counter()
        rng = np.random.default_rng(args.seed)
        gen_big(out / "big", rng, big_topics, 1000)
        gen_campaign(out / "campaign", rng, n_runs, camp_topics, camp_depth,
                     judged=1500, pool=max(3000, camp_depth * 3))
        stamp.write_text(stamp_text)
        print(f"generated data in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    big_qrels, big_run = out / "big" / "qrels", out / "big" / "run"
    camp_qrels = out / "campaign" / "qrels"
    camp_runs = sorted((out / "campaign" / "runs").glob("run.*"))
    res_dir = out / "results"
    res_dir.mkdir(exist_ok=True)
    with open(big_run, "rb") as f:
        nlines = sum(1 for _ in f)
    print(f"big run: {nlines:,} lines, {big_run.stat().st_size / 1e6:.0f} MB; campaign: "
          f"{len(camp_runs)} runs x {camp_topics} topics x {camp_depth} docs", file=sys.stderr)

    env = irw_env()
    # Python's bytecode of the package, as any installed copy has it after its first run (an
    # environment with PYTHONDONTWRITEBYTECODE set would otherwise compile it on every start,
    # about 0.14 s).
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "irwarehouse")], check=True,
                   env={**env, "PYTHONDONTWRITEBYTECODE": ""}, stdout=subprocess.DEVNULL)
    trec_eval = find_trec_eval()
    load0 = os.getloadavg()
    rows: dict[str, Measurement] = {}

    def measure(key, label, fn):
        # The fastest of --repeat runs, for every tool alike: the machine is shared, and
        # contention only ever adds time.
        print(f"  {label} ...", file=sys.stderr, flush=True)
        s, mb, c = min(fn() for _ in range(max(1, args.repeat)))
        rows[key] = Measurement(label, s, mb, c)
        print(f"    {s:.2f}s wall  {c:.2f}s cpu  {mb:.0f} MB", file=sys.stderr, flush=True)

    # 1-3: the big run end to end
    measure("irw_big", "irw eval (7M-line run, end to end)",
            lambda: run_cmd(irw("eval", big_qrels, big_run, *mflags()), env=env,
                            stdout_path=res_dir / "irw_big.txt"))
    measure("pytrec_big", "pytrec_eval (parse + evaluate)",
            lambda: run_cmd([PY, "-c", PYTREC_SCRIPT, str(big_qrels), str(big_run)],
                            stdout_path=res_dir / "pytrec_big.txt"))
    if trec_eval:
        measure("te_big", "trec_eval",
                lambda: run_cmd([trec_eval, *mflags(), str(big_qrels), str(big_run)],
                                stdout_path=res_dir / "te_big.txt"))

    # 4: ingestion into a fresh warehouse vs DuckDB's read_csv into a fresh file
    wh = out / "bench.duckdb"
    raw = out / "read_csv.duckdb"

    def fresh(path: Path, cmd: list[str], **kw):
        for q in (path, Path(str(path) + ".wal")):
            q.unlink(missing_ok=True)
        return run_cmd(cmd, **kw)

    measure("ingest", "irw ingest run (fresh warehouse)",
            lambda: fresh(wh, irw("ingest", "run", big_run, "--campaign", "b", "-w", wh),
                          env=env))
    measure("read_csv", "duckdb read_csv (fresh file)",
            lambda: fresh(raw, [PY, "-c", READ_CSV_SCRIPT, str(raw), str(big_run)]))
    run_cmd(irw("ingest", "qrels", big_qrels, "--campaign", "b", "-w", wh), env=env)

    # 5: re-evaluation of the stored run
    measure("reeval", "irw eval --campaign (stored run)",
            lambda: run_cmd(irw("eval", "--campaign", "b", "-w", wh, *mflags()), env=env,
                            stdout_path=res_dir / "irw_reeval.txt"))

    # 6: the 100-run campaign
    measure("irw_camp", f"irw eval ({len(camp_runs)} runs, one command)",
            lambda: run_cmd(irw("eval", camp_qrels, *camp_runs, *mflags()), env=env,
                            stdout_path=res_dir / "irw_camp.txt"))
    measure("pytrec_camp", f"pytrec_eval ({len(camp_runs)} runs, one process)",
            lambda: run_cmd([PY, "-c", PYTREC_SCRIPT, str(camp_qrels), *map(str, camp_runs)],
                            stdout_path=res_dir / "pytrec_camp.txt"))
    if trec_eval:
        measure("te_camp", f"trec_eval (loop over {len(camp_runs)} files)",
                lambda: trec_eval_loop(trec_eval, camp_qrels, camp_runs, res_dir))

    # 7: the same campaign stored in a warehouse, its per-topic values from the metric macros
    camp_wh = out / "campaign.duckdb"
    for q in (camp_wh, Path(str(camp_wh) + ".wal")):
        q.unlink(missing_ok=True)
    run_cmd(irw("ingest", "runs", out / "campaign" / "runs", "-C", "c", "-w", camp_wh), env=env)
    run_cmd(irw("ingest", "qrels", camp_qrels, "-C", "c", "-w", camp_wh), env=env)
    measure("macros", "metric macros (plain duckdb, stored campaign)",
            lambda: run_cmd([PY, "-c", MACRO_SCRIPT, str(camp_wh)],
                            stdout_path=res_dir / "macros_camp.txt"))

    # agreement check (summary values, 4 decimals)
    problems = []
    if trec_eval:
        want = parse_trec_eval_out(res_dir / "te_big.txt")
        for f in ("irw_big.txt", "irw_reeval.txt"):
            got = next(iter(parse_irw_out(res_dir / f).values()))
            for m, v in want.items():
                if abs(got.get(m, float("nan")) - v) > 1e-4 or m not in got:
                    problems.append(f"{f}: {m} irw={got.get(m)} trec_eval={v}")
        for f in ("irw_camp.txt", "macros_camp.txt"):
            camp = parse_irw_out(res_dir / f)
            for i in range(len(camp_runs)):
                want = parse_trec_eval_out(res_dir / f"trec_eval.{i:03d}.txt")
                got = camp.get(f"run{i:03d}", {})
                for m, v in want.items():
                    if m not in got or abs(got[m] - v) > 1e-4:
                        problems.append(f"{f} run{i:03d}: {m} irw={got.get(m)} trec_eval={v}")

    text = report(rows, problems, nlines, big_run.stat().st_size, len(camp_runs))
    print(f"\nload average before/after: {load0} / {os.getloadavg()}")
    print(text)
    (out / "report.md").write_text(text + "\n")
    return 1 if problems else 0


def report(rows, problems, nlines, size, nruns) -> str:
    def ratio(a, b, attr="seconds"):
        if a in rows and b in rows and getattr(rows[b], attr) > 0:
            return getattr(rows[a], attr) / getattr(rows[b], attr)
        return None

    def fmt(x, digits=2):
        return "" if x is None else f"{x:.{digits}f}"

    te_of = {"irw_big": "te_big", "pytrec_big": "te_big", "te_big": "te_big",
             "reeval": "te_big", "irw_camp": "te_camp", "pytrec_camp": "te_camp",
             "te_camp": "te_camp", "macros": "te_camp"}
    py_of = {"irw_big": "pytrec_big", "reeval": "pytrec_big", "irw_camp": "pytrec_camp",
             "te_big": "pytrec_big", "te_camp": "pytrec_camp"}
    out = [f"big run {nlines:,} lines ({size / 1e6:.0f} MB); campaign {nruns} runs", "",
           ("| step | wall s | CPU s | wall / trec_eval | CPU / trec_eval | wall / pytrec_eval "
            "| peak RSS MB |"),
           "|---|---:|---:|---:|---:|---:|---:|"]
    for key, m in rows.items():
        te, py = te_of.get(key), py_of.get(key)
        if key == "ingest":
            w1 = f"{fmt(ratio('ingest', 'read_csv'))} x read_csv"
            c1 = f"{fmt(ratio('ingest', 'read_csv', 'cpu'))} x read_csv"
            w2 = ""
        else:
            w1 = fmt(ratio(key, te)) if te else ""
            c1 = fmt(ratio(key, te, "cpu")) if te else ""
            w2 = fmt(ratio(key, py)) if py else ""
        out.append(f"| {m.name} | {m.seconds:.2f} | {m.cpu:.2f} | {w1} | {c1} | {w2} "
                   f"| {m.peak_mb:.0f} |")
    out += ["", "targets (wall-clock ratios; CPU ratios in brackets):"]
    checks = []
    if "te_big" in rows:
        r, rc = ratio("irw_big", "te_big"), ratio("irw_big", "te_big", "cpu")
        checks.append(("7M-line run end to end <= 1/4 of trec_eval, peak < 1.5 GB",
                       r <= 0.25 and rows["irw_big"].peak_mb < 1536,
                       f"{r:.2f} [{rc:.2f}], {rows['irw_big'].peak_mb:.0f} MB"))
        r, rc = ratio("reeval", "te_big"), ratio("reeval", "te_big", "cpu")
        checks.append(("re-evaluation <= 1/10 of trec_eval", r <= 0.10, f"{r:.3f} [{rc:.3f}]"))
    if "te_camp" in rows:
        r, rc = ratio("irw_camp", "te_camp"), ratio("irw_camp", "te_camp", "cpu")
        checks.append(("100-run campaign <= 1/3 of trec_eval", r <= 1 / 3, f"{r:.2f} [{rc:.2f}]"))
        r, rc = ratio("macros", "te_camp"), ratio("macros", "te_camp", "cpu")
        checks.append(("metric macros on the stored campaign <= 1/10 of trec_eval's loop",
                       r <= 0.10, f"{r:.3f} [{rc:.3f}]"))
    r, rc = ratio("ingest", "read_csv"), ratio("ingest", "read_csv", "cpu")
    checks.append(("ingestion within 2x of DuckDB read_csv", r <= 2.0, f"{r:.2f}x [{rc:.2f}x]"))
    for text, ok, detail in checks:
        out.append(f"- [{'met' if ok else 'MISSED'}] {text}: {detail}")
    if problems:
        out.append(f"\nDISAGREEMENTS with trec_eval ({len(problems)}):")
        out += ["  " + p for p in problems[:20]]
    else:
        out.append("\nirw's summary values agree with trec_eval's (4 decimals).")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
