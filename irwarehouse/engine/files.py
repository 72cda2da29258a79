"""Run files evaluated in one command (`irw eval QRELS RUN1 ... RUN400`, api.evaluate_files), a
batch of files at a time, so that memory holds one batch whatever the number of files.

Each batch is read with one CSV read when its files are clean (formats.trec.stage_runs_bulk),
otherwise file by file by the single-file reader, whose errors name the file and line; either
way into TEMP table stage_runs (fi, topic, doc, score, rank), each file's lines one after
another in file order. `run_row` is then a view over the batch's rows (nothing is copied), and
the batch is evaluated on its own (engine.evaluate, batches= and prepare=) before the next one
is read: its values (per topic and per run) are kept, its rows dropped. A run's values do not
depend on the runs evaluated beside it, so the batches give the values of one evaluation of
every file (tests/engine/test_files.py). Measures that are not evaluated in batches (diversity
measures, several groups of options: evaluate.batchable) read every file in one batch.

Errors are those of reading every file first: nothing is printed before the last batch is
evaluated, and the first bad file in file order is the one reported (a file of a later batch
is read only once the earlier ones are evaluated)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..formats.batches import GZIP_RATIO, size_batches  # noqa: F401 (GZIP_RATIO: tests)
from ..formats.trec import stage_run, stage_runs_bulk
from ..store.ingest import check_name, transaction

# Bytes of run text read in one batch. 100 files of the bench campaign (2.2 MB each, 50 topics x
# 1,000 lines) in batches of 48 MB: peak RSS 358 MB (1.3 GB when every file was evaluated at
# once), and about 0.3 s CPU less than batches of 24 MB (each batch costs a few dozen statements'
# start-up; bench/bench_folders.py, bench/README.md). Since the file plan ranks only the relevant
# documents where it can (engine.evaluate._rank_files), a batch holds less: 64 MB batches peak
# near 48 MB's earlier figure for 5% less CPU than 48 MB (96 MB: 2.5% less again, but 390-405
# MB). A larger file is a batch of its own. A gzipped file counts GZIP_RATIO times its size.
BATCH_BYTES = 64 << 20


def file_batches(paths: list[Path], limit: int | None = None) -> list[list[Path]]:
    """The files in order, in batches of about `limit` bytes of text (default BATCH_BYTES; at
    least one file a batch)."""
    return size_batches(paths, BATCH_BYTES if limit is None else limit)


_EMPTY_STAGE = ("CREATE OR REPLACE TEMP TABLE stage_runs (fi INTEGER, topic VARCHAR, doc VARCHAR, "
                "score DOUBLE, rank BIGINT)")


class FileRuns:
    """The run files of one evaluation on a fresh private warehouse (api.evaluate_files): file
    i (from 0) is run i + 1 of campaign `files-i` (one campaign per file, so that runs sharing
    a tag keep their trec_eval runid). `batches` are the run ids evaluated together;
    `prepare(i)` reads batch i's files and points run_row at them."""

    def __init__(self, con: duckdb.DuckDBPyConnection, paths, *, keep_first: bool = False,
                 in_batches: bool = True, limit: int | None = None):
        self.con, self.keep_first = con, keep_first
        self.paths = [Path(p) for p in paths]
        groups = file_batches(self.paths, limit) if in_batches else [self.paths]
        self.files: list[list[Path]] = groups
        self.batches: list[list[int]] = []
        first = 1
        for group in groups:
            self.batches.append(list(range(first, first + len(group))))
            first += len(group)
        self.run_ids = list(range(1, len(self.paths) + 1))
        if len(groups) > 1:
            # the duplicate check of each batch then sorts hashes in numpy, once imported
            # (formats.trec._has_duplicate_keys): 0.5 s CPU less over 100 files
            import numpy  # noqa: F401
        if con.execute("SELECT (SELECT count(*) FROM run) + (SELECT count(*) FROM run_row)"
                       ).fetchone()[0]:
            raise RuntimeError("FileRuns needs a fresh private warehouse")
        # DuckDB draws a progress bar on stdout for a statement of more than 2 s, into the
        # values printed in trec_eval's layout (a 3M-line file on a busy machine)
        con.execute("SET enable_progress_bar = false")
        # run_row becomes a view over each batch's staged rows (prepare); over no rows until
        # then (the macros that read it are created before the first batch is read)
        con.execute("DROP TABLE run_row")
        con.execute(_EMPTY_STAGE)
        self._view(0)

    def prepare(self, i: int) -> None:
        """Read batch i into stage_runs (the previous batch's rows dropped first), store its
        runs (names, sources, row counts) and make run_row the view of its rows."""
        con, files = self.con, self.files[i]
        offset = self.batches[i][0] - 1
        con.execute("DROP TABLE IF EXISTS stage_runs")
        found = stage_runs_bulk(con, files, digest=False)
        if found is None:
            found = self._stage_each(files)
        for f in found:
            check_name("run", f["tag"])
        names = [f"files-{offset + k}" for k in range(len(files))]
        with transaction(con):
            con.execute("INSERT INTO campaign (name) SELECT unnest($names)", {"names": names})
            con.execute("""
                INSERT INTO run (run_id, campaign_id, name, source_path, num_rows)
                SELECT f.run_id, c.campaign_id, f.tag, f.source, f.n
                FROM (SELECT unnest($names) AS campaign, unnest($tags) AS tag,
                             unnest($sources) AS source, unnest($counts) AS n,
                             unnest($ids) AS run_id) f
                JOIN campaign c ON c.name = f.campaign""",
                        {"names": names, "tags": [f["tag"] for f in found],
                         "sources": [str(p.resolve()) for p in files],
                         "counts": [f["n"] for f in found], "ids": self.batches[i]})
        self._view(offset)

    def _view(self, offset: int) -> None:
        # file_order: the row's position among the batch's rows, the files one after another
        # (each file's rows contiguous and in file order: formats.trec._stage_fast)
        self.con.execute(f"""
            CREATE OR REPLACE TEMP VIEW run_row AS
            SELECT CAST(fi + {int(offset)} AS INTEGER) AS run_id, topic, doc, score, rank,
                   rowid AS file_order, CAST(NULL AS BIGINT) AS score_rank
            FROM stage_runs""")

    def _stage_each(self, files: list[Path]) -> list[dict]:
        """Every file of a batch by the single-file reader (the one that names a bad file's
        first bad line), appended to stage_runs in file order."""
        con = self.con
        con.execute(_EMPTY_STAGE)
        found = []
        try:
            for fi, path in enumerate(files, start=1):
                tag = check_name("run", stage_run(con, path, keep_first=self.keep_first))
                n = con.execute("SELECT count(*) FROM stage_run").fetchone()[0]
                con.execute("INSERT INTO stage_runs SELECT ?, topic, doc, score, rank "
                            "FROM stage_run ORDER BY rowid", [fi])
                found.append({"tag": tag, "n": n})
        finally:
            con.execute("DROP TABLE IF EXISTS stage_run")
        return found

    def close(self) -> None:
        self.con.execute("DROP VIEW IF EXISTS run_row")
        self.con.execute("DROP TABLE IF EXISTS stage_runs")
