#!/usr/bin/env python
"""How fast could any fresh-process DuckDB pipeline ingest and re-evaluate a campaign? (not a test)

    PYTHONPATH=. python bench/campaign_floor.py --trec-eval /path/to/trec_eval \
        [--data DIR] [--runs 10,100] [--repeat 3] [--out bench/out/campaign_floor]

Issue 22's targets: `irw ingest runs DIR` of 100 runs at most 1.5x DuckDB's own read_csv into a
fresh file, and `irw eval --campaign` of the stored campaign (map, P.10, ndcg_cut.10,
recip_rank) at most 0.1x trec_eval's loop over the 100 files (0.3x for 10 runs). This script
times, for the N-run points of bench_campaign.py's campaign (50 topics x 1,000 documents, the
first N of --data's runs; generated there with bench_campaign's generator and seed when absent),
the least work any fresh process does for each, next to irw and the references in the same run:

  start-up: `python -c pass`; `python -c "import duckdb"`; the same plus opening the stored
      warehouse read-only (its catalog: tables, views, ~400 macros) and `SELECT 1`; `irw --help`.
  stored evaluation: a fresh Python process opens the warehouse `irw ingest runs` made
      (read-only) and runs one statement written for these four measures only: the join of
      run_row (with the trec_eval rank stored at ingestion) and the campaign's relevant
      judgments, one running count (row_number over the relevant documents of a list: at a
      relevant document it is the number of relevant documents up to it, all that AP needs),
      the ideal DCG@10 and R per topic from the judgments, and the four per-topic aggregates;
      it fetches the per-topic values and prints nothing. A second variant reads judged_row
      (the join irw already stores at ingestion) instead of joining run_row. No measure
      catalog, no options (-c, -l, -J, -M), no summaries, no output, no check for lists
      without a relevant document (they are absent from its result; trec_eval gives 0).
  the same without Python: a C program (built here with cc) opens the warehouse read-only
      through the DuckDB C API of the same duckdb package (same engine, same version), once
      with `SELECT 1`, once with each of the two statements; for a pipeline that is not a
      Python process (irw is one, so the Python rows are irw's floors).
  ingestion: DuckDB's `CREATE TABLE AS SELECT * FROM read_csv([files])` + CHECKPOINT into a
      fresh file (bench_campaign.py's reference, 1.0x); the same with each row's position in
      its list in file order (no sort: what a stored rank costs when the files are already in
      trec_eval's order and untied); the same with the rank trec_eval's order needs (score as
      float32 desc, docno desc, per file and topic: a sorting window, what irw computes for
      run_row.score_rank); and `irw ingest runs DIR` into a copy of a fresh `irw init`
      warehouse.
  references: `irw eval --campaign` itself and trec_eval run once per file.

Why these are floors: irw re-evaluating a stored campaign in a fresh process pays the start-up
rows and at least the stored-evaluation statement (the same join, count and aggregates, plus
what the floor leaves out); irw ingesting pays the read_csv CTAS and, as long as trec_eval's rank
is stored for the re-evaluations, the sorting window (or, without a sort, at least the
numbering: the position row, a floor only for files already in trec_eval's order). A target whose ratio is below its floor's ratio
cannot be met by a fresh process with DuckDB reading and joining; one above it leaves the
difference as room. The floor's per-topic values are checked against `irw eval --campaign -q`
(4 decimals, every run), and irw's run values against trec_eval's (bench_campaign.check).

Every command is a fresh process; wall and CPU seconds (user + sys of the child, os.wait4) come
from bench_campaign.run; each step keeps its fastest of --repeat runs, and the repeats are
interleaved so that a change of load hits every step alike. Ratios are of the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_campaign import (  # noqa: E402  (this folder's modules, not a package)
    FLAGS,
    READ_CSV,
    Step,
    _uptime,
    check,
    fresh,
    run,
    trec_eval_loop,
)
from bench_eval import PY, REPO, find_trec_eval, gen_campaign, irw, irw_env  # noqa: E402

# bench_campaign.py's campaign: its seed and shape (50 topics x 1,000 documents, 1,500 of a
# pool of 3,000 documents per topic judged)
SEED, TOPICS, DEPTH, JUDGED, POOL = 7, 50, 1000, 1500, 3000

# read_csv as in READ_CSV, plus trec_eval's order (score read as float32 desc, docno desc) per
# file and topic as a stored rank: what irw computes at ingestion for run_row.score_rank
READ_CSV_RANKED = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute('''CREATE TABLE t AS
    SELECT *, row_number() OVER (PARTITION BY filename, column0
                                 ORDER BY CAST(column4 AS FLOAT) DESC, column2 DESC) AS score_rank
    FROM read_csv(?, delim=' ', header=false, filename=true)''', [sys.argv[2:]])
con.execute("CHECKPOINT")
con.close()
"""

# read_csv as in READ_CSV, plus each row's position in its list in file order, numbered without a
# sort (row_number() OVER () keeps the reader's order; minus the list's first row): the stored
# rank costs this much when the files are already in trec_eval's order (ties apart)
READ_CSV_POSITION = r"""
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute('''CREATE TABLE t AS
    WITH r AS MATERIALIZED (
        SELECT *, row_number() OVER () AS pos
        FROM read_csv(?, delim=' ', header=false, filename=true)),
    first AS (SELECT filename, column0, min(pos) AS first FROM r GROUP BY ALL)
    SELECT r.*, pos - first + 1 AS file_rank FROM r JOIN first USING (filename, column0)''',
    [sys.argv[2:]])
con.execute("CHECKPOINT")
con.close()
"""

# The relevant rows of every stored run of the campaign with their stored trec_eval rank.
_FROM_RUN_ROW = """
    SELECT r.run_id, r.topic, r.score_rank AS rank, j.rel
    FROM run_row r JOIN judgment j ON j.topic = r.topic AND j.doc = r.doc
    WHERE j.qrels_id = $qrels AND j.rel >= 1
      AND r.run_id IN (SELECT run_id FROM run WHERE campaign_id = $campaign)"""
# The same from the join irw stores at ingestion (judged_row: qrels, run, topic, rank, level).
_FROM_JUDGED_ROW = """
    SELECT run_id, topic, score_rank AS rank, rel FROM judged_row
    WHERE qrels_id = $qrels AND rel >= 1
      AND run_id IN (SELECT run_id FROM run WHERE campaign_id = $campaign)"""
# map, P.10, ndcg_cut.10 (gain = level) and recip_rank per run and topic, trec_eval's
# definitions at relevance level 1; all four need only the relevant documents' ranks.
_MEASURES = """
WITH relevant AS ({rows}
), counted AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, topic ORDER BY rank) AS rel_so_far
    FROM relevant
), ideal AS (
    SELECT topic, count(*) AS num_rel, sum(rel / log2(i + 1)) FILTER (WHERE i <= 10) AS idcg10
    FROM (SELECT topic, rel, row_number() OVER (PARTITION BY topic ORDER BY rel DESC) AS i
          FROM judgment WHERE qrels_id = $qrels AND rel >= 1)
    GROUP BY topic
)
SELECT c.run_id, c.topic,
       sum(rel_so_far / rank) / i.num_rel AS map,
       count(*) FILTER (WHERE rank <= 10) / 10 AS P_10,
       coalesce(sum(rel / log2(rank + 1)) FILTER (WHERE rank <= 10), 0) / i.idcg10 AS ndcg_cut_10,
       1 / min(rank) AS recip_rank
FROM counted c JOIN ideal i USING (topic)
GROUP BY c.run_id, c.topic, i.num_rel, i.idcg10
"""
MEASURE_NAMES = ("map", "P_10", "ndcg_cut_10", "recip_rank")

# argv: warehouse, campaign name, run_row|judged_row, [check]. With "check" the per-topic
# values are printed as irw's tsv (run, topic, measure, value); otherwise nothing is printed.
STORED_EVAL = f"""
import sys, duckdb
SQL = {({"run_row": _MEASURES.format(rows=_FROM_RUN_ROW),
          "judged_row": _MEASURES.format(rows=_FROM_JUDGED_ROW)})!r}
con = duckdb.connect(sys.argv[1], read_only=True)
campaign, qrels = con.execute('''SELECT c.campaign_id, min(q.qrels_id) FROM campaign c
    JOIN qrels q USING (campaign_id) WHERE c.name = ? GROUP BY ALL''', [sys.argv[2]]).fetchone()
rows = con.execute(SQL[sys.argv[3]], {{"qrels": qrels, "campaign": campaign}}).fetchall()
if sys.argv[4:] == ["check"]:
    names = dict(con.execute("SELECT run_id, name FROM run").fetchall())
    for run_id, topic, *values in rows:
        for m, v in zip({MEASURE_NAMES!r}, values):
            print(names[run_id], topic, m, repr(v), sep="\\t")
"""


# The same statements without Python: a C program that opens the warehouse read-only through the
# DuckDB C API that the duckdb package's extension module exports (the same engine and version
# as irw: the duckdb-cli package lags behind and cannot read its files), runs one SQL text and
# keeps the result (duckdb_query materialises it). libpython is loaded only because the module
# references its symbols; Python is never started. argv: libpython, module, warehouse, SQL,
# [count] (print the number of rows, for the check).
C_FLOOR = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
typedef void *h;
typedef struct { uint64_t cols, rows, changed; void *columns; char *err; void *internal; } res_t;
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    void *lib;
    if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) || !(lib = dlopen(argv[2], RTLD_NOW))) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int (*create_config)(h *) = dlsym(lib, "duckdb_create_config");
    int (*set_config)(h, const char *, const char *) = dlsym(lib, "duckdb_set_config");
    int (*open_ext)(const char *, h *, h, char **) = dlsym(lib, "duckdb_open_ext");
    int (*connect)(h, h *) = dlsym(lib, "duckdb_connect");
    int (*query)(h, const char *, res_t *) = dlsym(lib, "duckdb_query");
    uint64_t (*row_count)(res_t *) = dlsym(lib, "duckdb_row_count");
    const char *(*result_error)(res_t *) = dlsym(lib, "duckdb_result_error");
    h config, db, con;
    char *err = NULL;
    res_t res;
    create_config(&config);
    set_config(config, "access_mode", "READ_ONLY");
    if (open_ext(argv[3], &db, config, &err)) { fprintf(stderr, "%s\n", err); return 1; }
    connect(db, &con);
    if (query(con, argv[4], &res)) { fprintf(stderr, "%s\n", result_error(&res)); return 1; }
    if (argc > 5) printf("%llu\n", (unsigned long long)row_count(&res));
    return 0;
}
"""


def build_c_floor(out: Path) -> list[str] | None:
    """The C floor's command prefix (binary, libpython, duckdb's module), or None (and why on
    stderr) where there is no C compiler or no shared libpython."""
    import sysconfig

    import _duckdb  # the extension module inside the duckdb package: DuckDB's C API

    libpython = Path(sysconfig.get_config_var("LIBDIR") or "") / (
        sysconfig.get_config_var("LDLIBRARY") or "")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not libpython.is_file() or libpython.suffix != ".so":
        print(f"no C floor: compiler {cc}, shared libpython {libpython}", file=sys.stderr)
        return None
    out.mkdir(parents=True, exist_ok=True)
    (out / "c_floor.c").write_text(C_FLOOR)
    subprocess.run([cc, "-O2", "-o", out / "c_floor", out / "c_floor.c", "-ldl"], check=True)
    return [str(out / "c_floor"), str(libpython), _duckdb.__file__]


def c_floor_sql(wh: Path, variant: str) -> str:
    """STORED_EVAL's statement with the campaign's and qrels' ids written in (integers read from
    the warehouse: the C floor binds no parameters)."""
    import duckdb

    with duckdb.connect(str(wh), read_only=True) as con:
        campaign, qrels = con.execute("SELECT campaign_id, min(qrels_id) FROM qrels "
                                      "GROUP BY ALL").fetchone()
    rows = {"run_row": _FROM_RUN_ROW, "judged_row": _FROM_JUDGED_ROW}[variant]
    return (_MEASURES.format(rows=rows).replace("$qrels", str(int(qrels)))
            .replace("$campaign", str(int(campaign))))


def per_topic(path: Path) -> dict[tuple[str, str, str], float]:
    """(run, topic, measure) -> value from tsv lines `run topic measure value` (irw's -q -f tsv
    or STORED_EVAL's check output); header and `all` rows skipped."""
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[1] not in ("all", "topic"):
            out[(parts[0], parts[1], parts[2])] = float(parts[3])
    return out


def compare_per_topic(floor: dict, irw_values: dict, places: int = 4) -> list[str]:
    """Where the floor's per-topic values differ from irw's at `places` decimals. A list absent
    from the floor's result (no relevant document retrieved) counts as 0, as in trec_eval."""
    problems = [f"{key}: floor has it, irw does not" for key in floor.keys() - irw_values.keys()]
    for key, want in irw_values.items():
        if key[2] not in MEASURE_NAMES:
            continue
        got = floor.get(key, 0.0)
        if abs(got - want) >= 0.5 * 10 ** -places:
            problems.append(f"{key}: floor={got} irw={want}")
    return problems


def ensure_data(data: Path, n_runs: int) -> tuple[Path, list[Path]]:
    """qrels and the first n_runs runs of --data, generated (bench_campaign's seed and shape)
    when there are fewer runs than that."""
    runs = sorted((data / "runs").glob("run.*"))
    if not (data / "qrels").is_file() or len(runs) < n_runs:
        print(f"generating {n_runs} runs into {data}", file=sys.stderr, flush=True)
        gen_campaign(data, np.random.default_rng(SEED), n_runs, TOPICS, DEPTH, judged=JUDGED,
                     pool=POOL)
        runs = sorted((data / "runs").glob("run.*"))
    return data / "qrels", runs[:n_runs]


def point(n: int, qrels: Path, all_runs: list[Path], work: Path, trec_eval: str, repeat: int,
          env: dict, c_floor: list[str] | None) -> tuple[dict[str, Step], list[str]]:
    """Every step for the first n runs, fastest of `repeat` interleaved rounds."""
    folder = work / "runs"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for p in all_runs[:n]:
        (folder / p.name).symlink_to(p.resolve())
    runs = sorted(folder.iterdir())
    wh, template = work / "wh.duckdb", work / "init.duckdb"
    raw, ranked = work / "read_csv.duckdb", work / "read_csv_ranked.duckdb"
    position = work / "read_csv_position.duckdb"
    run(irw("init", "-w", fresh(template)), env=env)

    def ingest() -> Step:
        shutil.copyfile(template, fresh(wh))
        return run(irw("ingest", "runs", folder, "-C", "c", "-w", wh), env=env)

    def stored(variant: str):
        return lambda: run([PY, "-c", STORED_EVAL, wh, "c", variant])

    irw_out = work / "irw_campaign.txt"
    # ingestion first: the evaluation steps read the warehouse the last ingest made
    ingestion = {
        "read_csv": lambda: run([PY, "-c", READ_CSV, fresh(raw), *runs]),
        "read_csv_position": lambda: run([PY, "-c", READ_CSV_POSITION, fresh(position), *runs]),
        "read_csv_ranked": lambda: run([PY, "-c", READ_CSV_RANKED, fresh(ranked), *runs]),
        "ingest": ingest,
    }
    evaluation = {
        "python": lambda: run([PY, "-c", "pass"]),
        "import": lambda: run([PY, "-c", "import duckdb"]),
        "connect": lambda: run([PY, "-c", "import sys, duckdb; duckdb.connect(sys.argv[1], "
                                "read_only=True).execute('SELECT 1').fetchall()", wh]),
        "help": lambda: run(irw("--help"), env=env),
        "floor_run_row": stored("run_row"),
        "floor_judged_row": stored("judged_row"),
        "irw_eval": lambda: run(irw("eval", "--campaign", "c", "-w", wh, "-m", "runid", *FLAGS),
                                env=env, out=irw_out),
        "trec_eval": lambda: trec_eval_loop(trec_eval, qrels, runs, work),
    }
    print(f"  {n} runs", file=sys.stderr, flush=True)
    steps: dict[str, Step] = {}
    for group in (ingestion, evaluation):
        for i in range(max(1, repeat)):
            for key, fn in group.items():
                step = fn()
                steps[key] = min(steps[key], step) if key in steps else step
                print(f"    {i + 1}/{repeat} {key:16s} {step.wall:7.3f}s wall {step.cpu:7.3f}s "
                      f"cpu", file=sys.stderr, flush=True)
        if group is ingestion:
            run(irw("ingest", "qrels", qrels, "-C", "c", "-w", wh), env=env)
            if c_floor:
                c_sql = {v: c_floor_sql(wh, v) for v in ("run_row", "judged_row")}
                evaluation |= {
                    "c_connect": lambda: run([*c_floor, wh, "SELECT 1"]),
                    "c_floor_run_row": lambda: run([*c_floor, wh, c_sql["run_row"]]),
                    "c_floor_judged_row": lambda: run([*c_floor, wh, c_sql["judged_row"]]),
                }

    # the floor computes what irw computes; irw's run values are trec_eval's
    floor_out, irw_q = work / "floor_check.tsv", work / "irw_per_topic.tsv"
    run(irw("eval", "--campaign", "c", "-w", wh, "-q", "-f", "tsv", *FLAGS), env=env, out=irw_q)
    problems = check(work, irw_out, runs, lambda p: f"run{p.name.split('.')[1]}")
    for variant in ("run_row", "judged_row"):
        run([PY, "-c", STORED_EVAL, wh, "c", variant, "check"], out=floor_out)
        floor_values = per_topic(floor_out)
        problems += [f"floor ({variant}) {p}" for p in
                     compare_per_topic(floor_values, per_topic(irw_q))]
        if c_floor:  # the same statement: the same number of per-topic rows
            count_out = work / "c_floor_count.txt"
            run([*c_floor, wh, c_sql[variant], "count"], out=count_out)
            if int(count_out.read_text()) * len(MEASURE_NAMES) != len(floor_values):
                problems.append(f"C floor ({variant}): {count_out.read_text().strip()} rows, "
                                f"Python floor {len(floor_values) // len(MEASURE_NAMES)}")
    return steps, problems


# (key, label, reference key, target ratio or None)
ROWS = [
    ("python", "start-up: python -c pass", "trec_eval", None),
    ("import", "start-up: python -c 'import duckdb'", "trec_eval", None),
    ("connect", "start-up floor: import duckdb, open the warehouse read-only, SELECT 1",
     "trec_eval", "eval"),
    ("help", "start-up: irw --help", "trec_eval", None),
    ("floor_run_row", "stored-evaluation floor: run_row JOIN judgment, running count, 4 measures",
     "trec_eval", "eval"),
    ("floor_judged_row", "stored-evaluation floor from judged_row (irw's stored join)",
     "trec_eval", "eval"),
    ("c_connect", "start-up floor without Python: C, DuckDB's C API, open read-only, SELECT 1",
     "trec_eval", "eval"),
    ("c_floor_run_row", "stored-evaluation floor without Python (C): run_row JOIN judgment",
     "trec_eval", "eval"),
    ("c_floor_judged_row", "stored-evaluation floor without Python (C) from judged_row",
     "trec_eval", "eval"),
    ("irw_eval", "**irw eval --campaign** (4 measures, summaries printed)", "trec_eval", "eval"),
    ("trec_eval", "trec_eval 10.0 -O2, loop over the files", "trec_eval", "eval"),
    ("read_csv", "DuckDB read_csv CTAS + CHECKPOINT into a fresh file", "read_csv", "ingest"),
    ("read_csv_position", "ingestion floor, files in order: the same + position in list (no sort)",
     "read_csv", "ingest"),
    ("read_csv_ranked", "ingestion floor, ranked: the same + trec_eval's rank (window)",
     "read_csv", "ingest"),
    ("ingest", "**irw ingest runs DIR** (into a fresh `irw init` copy)", "read_csv", "ingest"),
]
TARGETS = {(10, "eval"): 0.3, (100, "eval"): 0.1, (100, "ingest"): 1.5}


def table(n: int, s: dict[str, Step]) -> list[str]:
    lines = [f"### {n} runs x {TOPICS} topics x {DEPTH:,} documents "
             f"({n * TOPICS * DEPTH / 1e6:.1f}M run rows)", "",
             "| step | wall s | CPU s | wall / ref | CPU / ref | target |",
             "|---|---:|---:|---:|---:|---:|"]
    for key, label, ref, kind in ROWS:
        if key not in s:
            continue
        target = TARGETS.get((n, kind))
        r = s[ref]
        lines.append(f"| {label} | {s[key].wall:.3f} | {s[key].cpu:.3f} | "
                     f"{s[key].wall / r.wall:.3f} | {s[key].cpu / r.cpu:.3f} | "
                     f"{'' if target is None else target} |")
    return lines


def verdicts(n: int, s: dict[str, Step]) -> list[str]:
    """Each target against its floors (ratios of the same run). A floor above the target in
    both wall and CPU ratio says that the target cannot be met on that floor's path."""
    labels = {key: label.replace("**", "") for key, label, *_ in ROWS}
    out = []
    for kind, ref, name, tool, floors in (
            ("eval", "trec_eval", "trec_eval loop", "irw_eval",
             ("connect", "floor_judged_row", "floor_run_row", "c_connect",
              "c_floor_judged_row", "c_floor_run_row")),
            ("ingest", "read_csv", "read_csv", "ingest", ("read_csv_position", "read_csv_ranked"))):
        target = TARGETS.get((n, kind))
        if target is None:
            continue
        above, under = [], []
        for key in (k for k in floors + (tool,) if k in s):
            wall, cpu = s[key].wall / s[ref].wall, s[key].cpu / s[ref].cpu
            out.append(f"* {n} runs: {labels[key]} / {name} = {wall:.3f} (CPU {cpu:.3f}); "
                       f"target {target}")
            if key != tool:
                (above if min(wall, cpu) > target else under).append(key)
        got = s[tool].wall / s[ref].wall
        out.append(f"  -> irw {'met' if got <= target else 'missed'} ({got:.3f} of {name}, "
                   f"target {target}); floors above the target: {', '.join(above) or 'none'}; "
                   f"under it: {', '.join(under) or 'none'}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=None,
                    help="a built trec_eval (else $TREC_EVAL or PATH)")
    ap.add_argument("--data", type=Path, default=REPO / "bench" / "out" / "campaign_floor" / "data",
                    help="a folder with qrels and runs/run.NNN (bench_campaign's campaign); "
                    "generated there when it has fewer runs than the largest point")
    ap.add_argument("--runs", default="10,100", help="the points: first N runs of --data")
    ap.add_argument("--repeat", type=int, default=3, help="keep each step's fastest of this many")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "campaign_floor")
    args = ap.parse_args(argv)
    trec_eval = args.trec_eval or find_trec_eval()
    if not trec_eval:
        sys.exit("campaign_floor.py needs trec_eval (--trec-eval, $TREC_EVAL or PATH)")
    counts = [int(x) for x in args.runs.split(",") if x]
    qrels, all_runs = ensure_data(args.data, max(counts))
    env = irw_env()
    c_floor = build_c_floor(args.out)
    load0, up0 = os.getloadavg(), _uptime()
    text, problems = [], []
    for n in counts:
        steps, bad = point(n, qrels, all_runs, args.out / f"runs{n}", trec_eval, args.repeat,
                           env, c_floor)
        problems += bad
        text += table(n, steps) + [""] + verdicts(n, steps) + [""]
    head = [f"load average before: {' '.join(f'{x:.2f}' for x in load0)} ({up0}); after: "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; "
            f"fastest of {args.repeat}", ""]
    text = head + text + [
        "The floors' per-topic values equal irw eval --campaign's and irw's run values equal "
        "trec_eval's (4 decimals)." if not problems else
        f"DISAGREEMENTS ({len(problems)}): " + "; ".join(problems[:10])]
    report = "\n".join(text)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(report + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
