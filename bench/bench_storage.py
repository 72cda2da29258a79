#!/usr/bin/env python
"""What the storage format of DuckDB 1.x costs (issue 35): a benchmark, not a test.

    PYTHONPATH=. python bench/bench_storage.py --storage v1.5.0|v2.0.0 [--copies N] [--data DIR]
        [--keep FILE]
    PYTHONPATH=. python bench/bench_storage.py --read FILE

One fresh process does what a warehouse is for, on TREC 2003 Robust (../shared/realdata: 100
topics, 17 runs of 1,000 documents a topic; `--copies N` stores every run N times under other
names, N x 1.7M run rows): a new warehouse file made in the storage format asked for (DuckDB's
`storage_compatibility_version`, which the file keeps for good; irw's own new files are
v1.5.0, irwarehouse/store/storage.py), `irw ingest qrels`, `irw ingest runs DIR` (one
transaction), `irw eval --campaign -m map -m P.10 -m ndcg_cut.10 --store`, then a plain
DuckDB connection reading the file as an analyst's client would: irw_map, irw_ndcg_cut and the
run_score view. It prints each step's wall seconds, the file's size and its storage format.
`--keep FILE` keeps the warehouse; `--read FILE` then times the reads alone on it (the stored
campaign evaluated again, without --store, and the plain-DuckDB macro calls).

Time two formats side by side, interleaved, as whole processes, e.g. with /usr/bin/time or a
harness that alternates A and B runs and takes the ratio of each pair.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from irwarehouse.analyst.bulk import ingest_folder  # noqa: E402
from irwarehouse.api import Warehouse  # noqa: E402
from irwarehouse.store.storage import storage_version  # noqa: E402

ROBUST = REPO.parent / "shared" / "realdata" / "trec2003_robust"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", default="v1.5.0", help="v1.5.0 (DuckDB 1.5+) or v2.0.0")
    ap.add_argument("--data", type=Path, default=ROBUST)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="keep the warehouse made here")
    ap.add_argument("--read", type=Path, help="only read this warehouse (made with --keep)")
    args = ap.parse_args()
    if args.read:
        times = {}
        t = time.perf_counter()
        with Warehouse(args.read, read_only=True, create=False) as wh:
            wh.evaluate(["map", "P.10", "ndcg_cut.10"], campaign="robust03")
        times["eval"] = time.perf_counter() - t
        times["macros (plain DuckDB)"], fmt = macros(args.read)
        print(f"storage {fmt}: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))
        return
    tmp = Path(tempfile.mkdtemp(prefix="irw-storage-"))
    try:
        run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, tmp: Path) -> None:
    path = tmp / "irw.duckdb"
    runs = tmp / "runs"
    runs.mkdir()
    for copy in range(args.copies):
        for f in sorted((args.data / "runs").iterdir()):
            (runs / f"{copy}_{f.name}").symlink_to(f)
    times = {}
    t = time.perf_counter()
    # the format is fixed when the file is made; irw then keeps it at every open
    duckdb.connect(str(path), config={"storage_compatibility_version": args.storage}).close()
    with Warehouse(path) as wh:
        times["init"] = time.perf_counter() - t
        t = time.perf_counter()
        wh.ingest_qrels(next((args.data / "qrels").iterdir()), "robust03")
        times["ingest qrels"] = time.perf_counter() - t
        t = time.perf_counter()
        ingest_folder(wh.con, runs, "robust03", names="file")
        times["ingest runs"] = time.perf_counter() - t
        t = time.perf_counter()
        wh.evaluate(["map", "P.10", "ndcg_cut.10"], campaign="robust03", store=True)
        times["eval --store"] = time.perf_counter() - t
        t = time.perf_counter()
    times["close"] = time.perf_counter() - t
    times["macros (plain DuckDB)"], fmt = macros(path)
    assert fmt == args.storage, (fmt, args.storage)
    size = path.stat().st_size
    if args.keep:
        shutil.copy(path, args.keep)
    print(f"storage {fmt}, {args.copies * 17} runs, file {size / 2**20:.1f} MiB: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))


def macros(path: Path) -> tuple[float, str]:
    """An analyst's plain DuckDB session on the file: seconds, and the file's storage format."""
    t = time.perf_counter()
    con = duckdb.connect(str(path), read_only=True)
    fmt = storage_version(con)
    con.execute("SELECT run, avg(value) FROM irw_map('robust03') GROUP BY run").fetchall()
    con.execute("SELECT run, avg(value) FROM irw_ndcg_cut('robust03', cutoff := 10) "
                "GROUP BY run").fetchall()
    con.execute("SELECT * FROM run_score").fetchall()
    con.close()
    return time.perf_counter() - t, fmt


if __name__ == "__main__":
    main()
