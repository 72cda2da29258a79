"""Bit-reproducible scores (issue 23): the same ranked lists and judgments give the same bits.

A campaign holds a run A, its renamed copy (TWIN: the same lines under another name) and a
shuffled copy (SHUF: the same lines in another order, so that its rows sit elsewhere in every
table and reach each aggregate in another order), beside other runs. For every measure of the
catalog (ad hoc, graded, diversity; default parameters):

* A, TWIN and SHUF get bitwise-equal values on every topic;
* every value is the same bits under each ranking plan of `irw eval` (stored, window,
  counting), with DuckDB's threads set to 1, 2 and 4, evaluated twice, through the metric
  macros irw_<name> (what an analyst calls) and through the Python API and the CLI (`--store`);
* run values (irw_summarise) are the same bits too.

tests/metrics/test_fixed_order.py checks the SQL statically (every floating-point aggregate has an
order); the slow test at the end repeats the twin check on lists long enough for DuckDB to
split every aggregate across threads."""

from __future__ import annotations

import math
import random
import struct
from pathlib import Path

import pytest

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from tests.helpers.macro_calls import macro_call
from irwarehouse.measures import registry
from tests.helpers.catalog import default_request
from tests.helpers.golden import ranking_plan

PLANS = ("stored", "window", "counting")
THREADS = (1, 2, 4)
COPIES = ("A", "TWIN", "SHUF")


def _bits(value):
    """A value's exact bits (NaNs are one value; text as it is)."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack(">d", value).hex()
    return value


def _score_text(rng: random.Random) -> str:
    # ties (one decimal) and long decimals, as real runs have
    x = rng.random() * 30
    return f"{x:.1f}" if rng.random() < 0.3 else f"{x:.7f}"


def add_lists(runs: dict[str, list[str]], topic: int, docs: list[str], depth: int,
              rng: random.Random) -> None:
    """Append a random list of `depth` of the topic's documents to every run."""
    for name, lines in runs.items():
        for rank, doc in enumerate(rng.sample(docs, depth), start=1):
            lines.append(f"{topic} Q0 {doc} {rank} {_score_text(rng)} {name}\n")


def write_adhoc(folder: Path, rng: random.Random, *, topics: int, pool: int, depth: int,
                judged: int) -> dict[str, Path]:
    """Graded qrels (levels -1..3, unjudged pool documents included), doc lengths, a run A with
    its copies TWIN and SHUF, and two other runs."""
    qrels, runs = [], {name: [] for name in ("A", "B", "C")}
    docs_of = {}
    for t in range(1, topics + 1):
        docs = [f"doc{t:03d}-{k:05d}" for k in range(pool)]
        docs_of[t] = docs
        for doc in rng.sample(docs, judged):
            qrels.append(f"{t} 0 {doc} {rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])}\n")
        add_lists(runs, t, docs, depth, rng)
    files = {"qrels": folder / "adhoc.qrels", "lengths": folder / "lengths.tsv"}
    files["qrels"].write_text("".join(qrels))
    files["lengths"].write_text("".join(f"{d}\t{rng.randint(20, 3000)}\t{rng.randint(100, 9000)}\n"
                                        for docs in docs_of.values() for d in docs))
    return files | write_runs(folder, "adhoc", runs, rng)


def write_runs(folder: Path, prefix: str, runs: dict[str, list[str]], rng: random.Random
               ) -> dict[str, Path]:
    """The run files, with A's renamed copy TWIN and its shuffled copy SHUF."""
    shuffled = list(runs["A"])
    rng.shuffle(shuffled)
    files = {}
    for name, lines in {**runs, "TWIN": [ln.replace(" A\n", " TWIN\n") for ln in runs["A"]],
                        "SHUF": [ln.replace(" A\n", " SHUF\n") for ln in shuffled]}.items():
        files[name] = folder / f"{prefix}.{name}"
        files[name].write_text("".join(lines))
    return files


def write_diversity(folder: Path, rng: random.Random, *, topics: int, pool: int,
                    depth: int) -> dict[str, Path]:
    """Diversity qrels (2-5 intents, levels -1..3), DINprob intents (some navigational), a run
    A with TWIN and SHUF, and another run."""
    qrels, intents, runs = [], [], {"A": [], "B": []}
    for t in range(1, topics + 1):
        docs = [f"d{t:03d}-{k:04d}" for k in range(pool)]
        n = rng.randint(2, 5)
        weights = [rng.random() + 0.1 for _ in range(n)]
        for i in range(1, n + 1):
            kind = "nav" if rng.random() < 0.3 else "inf"
            intents.append(f"{t} {i} {weights[i - 1] / sum(weights):.6f} {kind}\n")
            for doc in rng.sample(docs, pool // 2):
                qrels.append(f"{t} {i} {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}\n")
        add_lists(runs, t, docs, depth, rng)
    files = {"qrels": folder / "div.qrels", "intents": folder / "div.DINprob"}
    files["qrels"].write_text("".join(qrels))
    files["intents"].write_text("".join(intents))
    return files | write_runs(folder, "div", runs, rng)


def build_warehouse(path: Path, folder: Path, *, seed: int, topics: int, pool: int, depth: int,
                    judged: int, div_topics: int) -> Path:
    rng = random.Random(seed)
    adhoc = write_adhoc(folder, rng, topics=topics, pool=pool, depth=depth, judged=judged)
    div = write_diversity(folder, rng, topics=div_topics, pool=pool // 4, depth=depth // 4)
    with Warehouse(path) as wh:
        wh.ingest_qrels(adhoc["qrels"], "adhoc")
        wh.ingest_doclengths(adhoc["lengths"], "adhoc")
        wh.ingest_qrels(div["qrels"], "div", fmt="diversity")
        wh.ingest_intents(div["intents"], "div")
        # A's copies are ingested apart from A, other runs in between
        for files, campaign, order in ((adhoc, "adhoc", ("A", "B", "TWIN", "C", "SHUF")),
                                       (div, "div", ("A", "B", "TWIN", "SHUF"))):
            for name in order:
                wh.ingest_run(files[name], campaign, name=name)
    return path


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bitrepro")
    return build_warehouse(folder / "w.duckdb", folder, seed=23, topics=10, pool=400, depth=250,
                           judged=200, div_topics=6)


def _campaign(mdef) -> str:
    return "div" if mdef.family.startswith("diversity") else "adhoc"


def _requests():
    """Every measure of the catalog with its default parameters, by campaign."""
    out: dict[str, list] = {"adhoc": [], "div": []}
    for mdef in registry().values():
        out[_campaign(mdef)].append(default_request(mdef))
    return out


def _ids(con, campaign: str) -> tuple[int, list[int]]:
    qrels_id = con.execute("SELECT qrels_id FROM ev_make_scope(?, NULL)", [campaign]).fetchone()[0]
    runs = [r for (r,) in con.execute(
        "SELECT run_id FROM run WHERE campaign_id = (SELECT campaign_id FROM campaign "
        "WHERE name = ?) ORDER BY name", [campaign]).fetchall()]
    return qrels_id, runs


def engine_values(con, plan: str | None, threads: int, opts: EvalOptions | None = None
                  ) -> tuple[dict, dict]:
    """`irw eval`'s path: (measure, run, topic) -> bits and (measure, run) -> run value bits."""
    opts = opts or EvalOptions()
    con.execute(f"SET threads = {int(threads)}")
    per_topic, per_run = {}, {}
    try:
        for campaign, requests in _requests().items():
            qrels_id, runs = _ids(con, campaign)
            with ranking_plan(plan):
                result = evaluate(con, runs, qrels_id, requests, opts)
            for row in result.per_topic.rows:
                _, run, topic, measure, value, text, _ = row
                per_topic[(measure, run, topic)] = _bits(value if text is None else text)
            for _, run, measure, value in result.summary.rows:
                per_run[(measure, run)] = _bits(value)
    finally:
        con.execute("RESET threads")
    return per_topic, per_run


def macro_values(con, threads: int, opts: EvalOptions | None = None) -> dict:
    """The metric macros irw_<name>(campaign, ...): (measure, run, topic) -> bits."""
    opts = opts or EvalOptions()
    con.execute(f"SET threads = {int(threads)}")
    out = {}
    try:
        for campaign, requests in _requests().items():
            for req in requests:
                sql, values = macro_call(req, opts)
                values.update(campaign=campaign, qrels=None, run=None)
                for run, topic, value, text in con.execute(sql, values).fetchall():
                    out[(req.name, run, topic)] = _bits(value if text is None else text)
    finally:
        con.execute("RESET threads")
    return out


def differing_copies(values: dict) -> list:
    """The (measure, run, topic) of A whose TWIN or SHUF value has other bits."""
    bad = []
    for (measure, run, topic), bits in values.items():
        if run == "A":
            for copy in COPIES[1:]:
                if values.get((measure, copy, topic)) != bits:
                    bad.append((measure, copy, topic))
    return bad


@pytest.fixture(scope="module")
def reference(warehouse):
    with Warehouse(warehouse, read_only=True) as wh:
        return engine_values(wh.con, None, 2)


def test_every_measure_is_evaluated(reference):
    per_topic, _ = reference
    measures = {m for m, _, _ in per_topic}
    assert measures == {r.name for reqs in _requests().values() for r in reqs}
    assert {run for _, run, _ in per_topic} >= set(COPIES) | {"B", "C"}


def test_a_run_and_its_copies_get_the_same_bits(reference):
    per_topic, per_run = reference
    assert differing_copies(per_topic) == []
    assert [k for k in per_run if k[1] == "A" and
            any(per_run[(k[0], c)] != per_run[k] for c in COPIES[1:])] == []


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("plan", PLANS)
def test_every_plan_and_thread_count_gives_the_same_bits(warehouse, reference, plan, threads):
    with Warehouse(warehouse, read_only=True) as wh:
        per_topic, per_run = engine_values(wh.con, plan, threads)
    assert differing_copies(per_topic) == []
    changed = sorted({k[0] for k in per_topic if per_topic[k] != reference[0].get(k)})
    assert changed == []
    assert per_topic.keys() == reference[0].keys()
    assert per_run == reference[1]


def test_evaluating_twice_gives_the_same_bits(warehouse, reference):
    with Warehouse(warehouse, read_only=True) as wh:
        assert engine_values(wh.con, None, 2) == engine_values(wh.con, None, 2) == reference


@pytest.mark.parametrize("threads", THREADS)
def test_the_metric_macros_give_the_same_bits(warehouse, reference, threads):
    with Warehouse(warehouse, read_only=True) as wh:
        values = macro_values(wh.con, threads)
    assert differing_copies(values) == []
    assert sorted({k[0] for k in values if values[k] != reference[0].get(k)}) == []
    assert values.keys() == reference[0].keys()


@pytest.mark.parametrize("opts", [
    EvalOptions(judged_only=True), EvalOptions(version=10, complete=True),
    EvalOptions(order="rank", depth=100, threshold=2)], ids=lambda o: o.describe())
def test_other_options_keep_the_copies_equal(warehouse, opts):
    with Warehouse(warehouse, read_only=True) as wh:
        per_topic, _ = engine_values(wh.con, None, 4, opts)
        assert differing_copies(per_topic) == []
        assert per_topic == engine_values(wh.con, "window", 1, opts)[0]


def test_the_python_api_and_the_cli_store_the_same_bits(warehouse, reference, tmp_path):
    """Warehouse.evaluate(store=True) and `irw eval --store` store the engine's bits."""
    import shutil

    from typer.testing import CliRunner

    from irwarehouse.cli import app
    copy = tmp_path / "w.duckdb"
    shutil.copy(warehouse, copy)
    measures = ["map", "ndcg_cut.10", "bpref", "infAP", "P.10", "Q-measure", "nERR@0010",
                "rbp_resid"]
    with Warehouse(copy) as wh:
        api = wh.evaluate(measures, campaign="adhoc", store=True)
        api_bits = {(r["measure"], r["run"], r["topic"]): _bits(r["value"])
                    for r in api.per_topic.to_pylist()}
    result = CliRunner().invoke(app, ["eval", "-w", str(copy), "-C", "adhoc", "--store",
                                      *[x for m in measures for x in ("-m", m)]])
    assert result.exit_code == 0, result.output
    with Warehouse(copy, read_only=True) as wh:
        # stored under the canonical name (Q-measure: Q), the spelling kept beside it
        stored = {(m, r, t): _bits(v) for m, r, t, v in wh.con.execute(
            "SELECT spelling, run, topic, value FROM topic_score WHERE campaign = 'adhoc'"
        ).fetchall()}
    assert stored == api_bits and len(stored) > 100
    assert differing_copies(stored) == []
    engine = {k: v for k, v in reference[0].items() if k[0] == "map"}
    assert engine == {k: v for k, v in stored.items() if k[0] == "map"}


@pytest.mark.slow
def test_long_lists_split_across_threads_keep_the_copies_equal(tmp_path):
    """Lists long enough (half a million judged rows per evaluation) that DuckDB aggregates
    every relation in parallel: the copies stay bitwise equal under 4 threads, every plan."""
    path = build_warehouse(tmp_path / "big.duckdb", tmp_path, seed=5, topics=40, pool=6000,
                           depth=4000, judged=4000, div_topics=30)
    with Warehouse(path, read_only=True) as wh:
        reference = engine_values(wh.con, None, 4)[0]
        assert differing_copies(reference) == []
        for plan in PLANS:
            assert engine_values(wh.con, plan, 4)[0] == reference
        assert macro_values(wh.con, 4) == reference


# Spellings of one measure in several tools' vocabularies (docs/measure_names.md): each pair
# resolves to one kernel with the same arguments, so its values must be the same bits however
# each is evaluated (CI once saw ir_measures' nDCG@10 and trec_eval's ndcg_cut_10 differ in the
# last bit: a parallel floating-point sum).
SPELLINGS = [("nDCG@10", "ndcg_cut_10"), ("ndcg@10", "ndcg_cut.10"), ("AP", "map"),
             ("P@10", "P.10"), ("RR", "recip_rank"), ("R@100", "recall.100"),
             ("Rprec", "r-precision"), ("nDCG", "ndcg"), ("mrr@10", "RR@10"),
             ("map@100", "AP@100"), ("Bpref", "bpref"), ("hit_rate@3", "success.3"),
             ("ERR@20", "gdeval_ERR"), ("nDCG(dcg=exp-log2)@10", "ndcg_burges@10"),
             ("Q", "Q-measure"), ("Judged@10", "judged@10"), ("SetF(beta=1)", "set_F"),
             ("RBP", "trectools_RBP(graded=1)@1000000000")]
DIV_SPELLINGS = [("alpha_nDCG@20", "alpha-nDCG@20")]


def _spelled(wh, name: str, campaign: str, threads: int, runs=None, others=()) -> tuple:
    """(run, topic) -> bits and run -> bits of one measure, evaluated with `others`."""
    from irwarehouse.measures import parse_measures
    printed = parse_measures([name])[0].name
    wh.con.execute(f"SET threads = {int(threads)}")
    try:
        result = wh.evaluate([name, *others], campaign=campaign, runs=runs, arrow=False)
    finally:
        wh.con.execute("RESET threads")
    topic = {(run, t): _bits(v) for _, run, t, m, v, _, _ in result.per_topic.rows
             if m == printed}
    mean = {run: _bits(v) for _, run, m, v in result.summary.rows if m == printed}
    return topic, mean


@pytest.mark.parametrize("campaign, pair", [("adhoc", p) for p in SPELLINGS]
                         + [("div", p) for p in DIV_SPELLINGS], ids=lambda x: " = ".join(x)
                         if isinstance(x, tuple) else x)
def test_two_spellings_of_one_measure_give_the_same_bits(warehouse, campaign, pair):
    from irwarehouse.measures import parse_measures
    first, second = (parse_measures([name]) for name in pair)
    assert [(r.mdef.kernel, r.args) for r in first] == [(r.mdef.kernel, r.args) for r in second]
    with Warehouse(warehouse, read_only=True) as wh:
        alone = _spelled(wh, pair[0], campaign, 1)
        mixed = _spelled(wh, pair[1], campaign, 4, runs=["SHUF", "B"], others=["P.5", "map_cut"])
    assert len(alone[0]) > 10 and mixed[0]
    assert {k: v for k, v in alone[0].items() if k[0] in ("SHUF", "B")} == mixed[0]
    assert {k: v for k, v in alone[1].items() if k in ("SHUF", "B")} == mixed[1]
    assert {t: v for (run, t), v in alone[0].items() if run == "A"} == \
           {t: v for (run, t), v in mixed[0].items() if run == "SHUF"}
