"""Qrels of sampled judgments (issue 30), the two formats TREC's estimators read:

* `sampleval`: `topic iteration doc stratum rel`, the qrels of NIST's sample_eval.pl (xinfAP and
  infNDCG; Yilmaz, Kanoulas & Aslam, SIGIR 2008): every pooled document with the stratum it was
  sampled from; rel -1 for a pooled document that was not sampled (not judged);
* `prels`: `topic doc rel method probability`, the prels of the Million Query track's
  statAP_MQ_eval (statAP; Aslam, Pavlu & Yilmaz, SIGIR 2006): every sampled document with the
  probability it was sampled with (its inclusion probability, in (0, 1]). A line whose rel is
  -999 or whose probability is NA was not sampled and is skipped, as statAP_MQ_eval skips it;
  method 0 or 2 (judged by the MTC method of UMass, alone or too) is read with probability 1,
  statAP_MQ_eval's default for such a document.

Bad input is one error naming the file and line: a line without its stratum (4 fields), a level
or probability that is no number, a probability outside (0, 1], a document twice for a topic.
The judgments go to `judgment` like any qrels (levels as given: -1, not sampled, is trec_eval's
"in the pool, unjudged"), the strata and probabilities to `judgment_sample`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import InputError
from ..failures import shown
from .numbers import number_problem
from .trec import check_readable, field_lines

FORMATS = {"sampleval": ("topic", "iteration", "doc", "stratum", "rel"),
           "prels": ("topic", "doc", "rel", "method", "probability")}
NOT_SAMPLED_LEVEL = -999           # statAP_MQ_eval: a prels line of a document not sampled
MTC_METHODS = ("0", "2")           # statAP_MQ_eval reads these documents with probability 1


@dataclass(frozen=True)
class SampledJudgment:
    topic: str
    doc: str
    rel: int
    stratum: str | None
    probability: float | None


def read_sampled(path: Path, fmt: str) -> list[SampledJudgment]:
    """The judgments of a `sampleval` or `prels` file, checked line by line."""
    path = Path(path)
    check_readable(path)
    fields_of = FORMATS[fmt]
    rows: list[SampledJudgment] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in field_lines(path):
        if len(fields) != len(fields_of):
            missing = " (a line without its stratum)" if fmt == "sampleval" \
                and len(fields) == 4 else ""
            raise InputError(path, lineno, f"expected {len(fields_of)} fields "
                             f"({' '.join(fields_of)}), found {len(fields)}{missing}")
        row = _sampleval(path, lineno, fields) if fmt == "sampleval" \
            else prels_judgment(path, lineno, fields)
        if row is None:
            continue
        key = (row.topic, row.doc)
        if key in seen:
            raise InputError(path, lineno, f"document {shown(row.doc)} appears twice for topic "
                             f"{shown(row.topic)} (first at line {seen[key]})")
        seen[key] = lineno
        rows.append(row)
    if not rows:
        raise InputError(path, None, "no judgments (empty file)")
    return rows


def _level(path: Path, lineno: int, text: str) -> int:
    problem = number_problem(text, "relevance level", integer=True, bits=32)
    if problem:
        raise InputError(path, lineno, problem)
    return int(text)


def _sampleval(path: Path, lineno: int, fields: list[str]) -> SampledJudgment:
    topic, _, doc, stratum, rel = fields
    return SampledJudgment(topic, doc, _level(path, lineno, rel), stratum, None)


def prels_judgment(path, lineno: int, fields: list[str]) -> SampledJudgment | None:
    """One prels line's judgment (None: not sampled, skipped as statAP_MQ_eval skips it)."""
    topic, doc, rel, method, prob = fields
    level = _level(path, lineno, rel)
    if level <= NOT_SAMPLED_LEVEL or prob == "NA":
        return None
    problem = number_problem(prob, "probability")
    if problem:
        raise InputError(path, lineno, problem)
    probability = float(prob)
    if not 0.0 < probability <= 1.0:
        raise InputError(path, lineno, f"probability {shown(prob)} is not in (0, 1]")
    if method in MTC_METHODS:
        probability = 1.0
    return SampledJudgment(topic, doc, level, None, probability)


def stage_sampled(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> int:
    """TEMP tables stage_qrels(topic, intent, doc, rel) and stage_sample(topic, doc, stratum,
    probability) from a sampled qrels file; returns the number of judgments."""
    return stage_sampled_rows(con, read_sampled(path, fmt))


def stage_sampled_rows(con: duckdb.DuckDBPyConnection, rows: list[SampledJudgment]) -> int:
    """stage_sampled for judgments already read and checked (a file's, or ir_datasets'
    prels: formats.irds)."""
    import pyarrow as pa
    table = pa.table({
        "topic": [r.topic for r in rows], "doc": [r.doc for r in rows],
        "rel": pa.array([r.rel for r in rows], pa.int32()),
        "stratum": pa.array([r.stratum for r in rows], pa.string()),
        "probability": pa.array([r.probability for r in rows], pa.float64())})
    con.register("t_sampled", table)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE stage_qrels AS "
                    "SELECT topic, '' AS intent, doc, rel FROM t_sampled")
        con.execute("CREATE OR REPLACE TEMP TABLE stage_sample AS "
                    "SELECT topic, doc, stratum, probability FROM t_sampled")
    finally:
        con.unregister("t_sampled")
    return len(rows)
