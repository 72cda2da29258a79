"""Issue 29: one evaluation request, declared once, giving the same answer through every front
door. Each test first reproduces what the issue reports."""

from __future__ import annotations

import gzip
import inspect
import json
import re
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from tests.cli.test_daily_round import OFFICIAL_THUIR_Q10, WWW4, _thuir, www4, www4_built  # noqa: F401
from tests.engine.test_comparison import campaign  # noqa: F401  (its random campaign c)
from tests.helpers.paths import DATA, REALDATA, REPO, TEST_DATA
from tests.helpers.www4 import oracle_thuir_q10

ROBUST = REALDATA / "trec2003_robust"
WEB2012 = REALDATA / "trec2012_web_diversity"
# written by irwarehouse at commit e3bf477, before scores were keyed by the canonical measure:
# the sample campaign (data/) evaluated with -m AP -m nDCG@10 -m P@10 --store, then run
# STANDARD.results.test again with -m map -m ndcg_cut.10 -m 'AP(rel=2)' --store; campaign
# `other` with -m map -m P_10 -c -g 1:2 --store
SPELLINGS_WAREHOUSE = TEST_DATA / "warehouses" / "e3bf477_spellings.duckdb.gz"


def irw(*args, code=0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return result


def _evaluated_thuir(stdout: str) -> str:
    """THUIR's value in trec_eval's layout (its `runid` line, then its measure's)."""
    return re.search(r"runid\s+all\s+THUIR-CO-NEW-2\n\S+\s+all\s+(\d\.\d{4})", stdout).group(1)


def _profiled(path) -> None:
    irw("campaign", "set", "www4", "--gains", "1:2", "--order", "file", "-c", "-M", "1000",
        "-w", path)


# -- 1. the profile is the default of every front door -------------------------------------
def test_the_profile_gives_the_official_value_through_every_front_door(www4):
    """The issue: with WWW-4's profile set, irw eval -C gave THUIR's Q@10 as the official
    0.4491, Warehouse.evaluate and irw_ntcir_q gave 0.4492 with no note."""
    _profiled(www4)
    assert _evaluated_thuir(irw("eval", "-C", "www4", "-m", "Q@10", "-w", www4).stdout) == \
        OFFICIAL_THUIR_Q10
    with Warehouse(www4) as wh:
        result = wh.evaluate(["Q@10"], campaign="www4")
        assert "from the campaign's profile" in result.scope.describe()
        api = {s["run"]: s["value"] for s in result.summary.to_pylist()}
        matrix = wh.score_matrix("www4", "Q@10")
        compared = wh.compare("www4", ["Q@10"], test="t")[0][1]
        metrics = wh.metrics("www4", ["Q@10"])
    assert f"{api['THUIR-CO-NEW-2']:.4f}" == OFFICIAL_THUIR_Q10
    for m in (matrix, compared):
        assert f"{dict(zip(m.runs, m.run_values()))['THUIR-CO-NEW-2']:.4f}" == OFFICIAL_THUIR_Q10
    means = dict(zip(metrics.runs, metrics.run_means()["Q@10"]))
    assert f"{means['THUIR-CO-NEW-2']:.4f}" == OFFICIAL_THUIR_Q10
    con = duckdb.connect(str(www4), read_only=True)     # a plain DuckDB client
    # the run's value as every path forms it: the per-topic values added in topic order
    mean = "irw_summarise('mean', list(value ORDER BY topic), NULL)"
    macro = con.execute(f"SELECT {mean} FROM irw_ntcir_q(campaign := 'www4', cutoff := 10) "
                        "WHERE run = 'THUIR-CO-NEW-2'").fetchone()[0]
    explicit = con.execute(f"SELECT {mean} FROM irw_ntcir_q('www4', cutoff := 10, "
                           "sort_order := 'score') WHERE run = 'THUIR-CO-NEW-2'").fetchone()[0]
    con.close()
    assert macro == api["THUIR-CO-NEW-2"]               # the same bits as the engine
    assert f"{explicit:.4f}" == oracle_thuir_q10()        # an explicit argument wins
    cmp = irw("compare", "-C", "www4", "-m", "Q@10", "--seed", "1", "-w", www4)
    assert _thuir(cmp.stdout) == OFFICIAL_THUIR_Q10 and "profile" in cmp.stderr
    meta = irw("meta", "rankcorr", "-C", "www4", "-m", "Q@10", "-m", "nDCG@10", "-f", "json",
               "-w", www4)
    assert "profile" in meta.stderr


# -- 2. macros are right whatever the call shape ---------------------------------------------
@pytest.fixture(scope="module")
def three_campaigns(tmp_path_factory):
    """TREC 2003 Robust (5 runs), TREC 2012 Web (two qrels) and NTCIR-16 WWW-4 in one
    warehouse, as the issue's analyst has them."""
    if not (ROBUST.is_dir() and WEB2012.is_dir() and WWW4.is_dir()):
        pytest.skip("realdata not present")
    path = tmp_path_factory.mktemp("three") / "w.duckdb"
    irw("ingest", "qrels", ROBUST / "qrels" / "robust03_qrels.txt", "-C", "robust03", "-w", path)
    for run in sorted((ROBUST / "runs").iterdir())[:5]:
        irw("ingest", "run", run, "-C", "robust03", "-w", path)
    irw("ingest", "qrels", WEB2012 / "qrels" / "qrels.adhoc.txt", "-C", "web2012", "--name",
        "adhoc", "-w", path)
    irw("ingest", "qrels", WEB2012 / "qrels" / "qrels.diversity.txt", "-C", "web2012",
        "--name", "diversity", "--format", "diversity", "-w", path)
    irw("ingest", "runs", WEB2012 / "runs", "-C", "web2012", "--names", "file", "-w", path)
    irw("ingest", "qrels", WWW4 / "www4gold-corrected.qrels", "-C", "www4", "--format",
        "ntcir_qrels", "-w", path)
    irw("ingest", "runs", WWW4 / "runs", "-C", "www4", "-w", path)
    return path


def test_a_lateral_macro_answers_for_each_campaign(three_campaigns):
    """The issue: `FROM campaign c, irw_map(c.name)` returned Robust 2003's runs and map under
    every campaign's name. Each row now carries its own campaign's values, in a lateral join,
    a CTE, a subquery and a join, with campaign, qrels and run from columns."""
    con = duckdb.connect(str(three_campaigns), read_only=True)
    single = {}
    for campaign, qrels in (("robust03", None), ("web2012", "adhoc"), ("www4", None)):
        single[campaign] = con.execute(
            "SELECT count(DISTINCT run), count(*), sum(value) FROM irw_map(?, qrels := ?)",
            [campaign, qrels]).fetchone()
    assert len({v for v in single.values()}) == 3
    shapes = {
        "lateral": """SELECT c.name, count(DISTINCT m.run), count(*), sum(m.value)
                      FROM campaign c, irw_map(c.name, qrels := CASE WHEN c.name = 'web2012'
                                                          THEN 'adhoc' END) m
                      GROUP BY ALL""",
        "unqualified": """SELECT name, count(DISTINCT m.run), count(*), sum(m.value)
                          FROM (SELECT name, CASE WHEN name = 'web2012' THEN 'adhoc' END AS q
                                FROM campaign), irw_map(name, qrels := q) m GROUP BY ALL""",
        "cte": """WITH wanted AS (SELECT name AS c, CASE WHEN name = 'web2012' THEN 'adhoc'
                                  END AS q FROM campaign)
                  SELECT w.c, count(DISTINCT m.run), count(*), sum(m.value)
                  FROM wanted w, LATERAL (SELECT * FROM irw_map(w.c, qrels := w.q)) m
                  GROUP BY ALL""",
    }
    for shape, sql in shapes.items():
        got = {row[0]: row[1:] for row in con.execute(sql).fetchall()}
        assert got.keys() == single.keys(), shape
        for campaign, (runs, rows, total) in single.items():
            assert got[campaign][:2] == (runs, rows), (shape, campaign)
            assert got[campaign][2] == pytest.approx(total, abs=1e-9), (shape, campaign)
    # run from a column: each run's own values
    per_run = dict(con.execute("""
        SELECT r.name, avg(m.value) FROM run r JOIN campaign c USING (campaign_id),
             irw_map(c.name, run := r.name) m
        WHERE c.name = 'robust03' GROUP BY ALL""").fetchall())
    whole = dict(con.execute("SELECT run, avg(value) FROM irw_map('robust03') GROUP BY run")
                 .fetchall())
    assert per_run == pytest.approx(whole, abs=1e-12)
    # a campaign with two qrels and no choice is the macro's own error, never another's values
    with pytest.raises(duckdb.InvalidInputException, match="several qrels"):
        con.execute("SELECT c.name, count(*) FROM campaign c, irw_map(c.name) GROUP BY ALL"
                    ).fetchall()
    con.close()


# -- 3. one stored name per measure ------------------------------------------------------------
def test_every_spelling_is_stored_as_one_measure(tmp_path):
    """The issue: --store with -m AP and with -m map gave two sets of rows, and WHERE measure =
    'map' missed the campaigns evaluated as AP."""
    path = tmp_path / "w.duckdb"
    for campaign, names in (("a", ["AP", "nDCG@10", "P@10"]),
                            ("b", ["map", "ndcg_cut.10", "P_10"]),
                            ("c", ["MAP", "ndcg_cut_10", "P.10"])):
        irw("ingest", "qrels", DATA / "qrels.test", "-C", campaign, "-w", path)
        irw("ingest", "run", DATA / "runs" / "STANDARD.results.test", "-C", campaign, "-w", path)
        irw("eval", "-C", campaign, "--store", *[x for n in names for x in ("-m", n)],
            "-w", path)
    irw("eval", "-C", "a", "--store", "-m", "map", "-m", "ndcg_cut_10", "-w", path)  # again
    con = duckdb.connect(str(path), read_only=True)
    for measure in ("map", "ndcg_cut_10", "P_10"):
        rows = dict(con.execute("SELECT campaign, count(*) FROM topic_score WHERE measure = ? "
                                "GROUP BY ALL", [measure]).fetchall())
        assert rows == {"a": 3, "b": 3, "c": 3}, measure        # once per topic, every campaign
    by_parameter = con.execute("SELECT count(*) FROM topic_score WHERE family = 'ndcg_cut' "
                               "AND cutoff = 10").fetchone()[0]
    spellings = dict(con.execute("SELECT campaign, spelling FROM topic_score "
                                 "WHERE measure = 'map' GROUP BY ALL").fetchall())
    con.close()
    assert by_parameter == 9
    assert spellings == {"a": "map", "b": "map", "c": "MAP"}   # the last spelling, for display


def test_an_older_warehouse_is_rekeyed_on_its_first_read_write_open(tmp_path):
    path = tmp_path / "old.duckdb"
    with gzip.open(SPELLINGS_WAREHOUSE) as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    con = duckdb.connect(str(path), read_only=True)
    before = con.execute("SELECT count(*), sum(value) FROM score").fetchone()
    missed = con.execute("SELECT count(*) FROM score WHERE measure = 'map'").fetchone()[0]
    values = set(con.execute("SELECT r.name, s.topic, s.measure, s.value FROM score s "
                             "JOIN run r USING (run_id)").fetchall())
    con.close()
    assert missed == 6                   # only the rows stored as `map`: AP's are missed
    with Warehouse(path):                # the first read-write open re-keys
        pass
    con = duckdb.connect(str(path), read_only=True)
    rows = con.execute("""
        SELECT campaign, spelling, relevance_level, complete, count(*)
        FROM topic_score WHERE measure = 'map' GROUP BY ALL ORDER BY ALL""").fetchall()
    after = con.execute("SELECT count(*) FROM score").fetchone()[0]
    kept = set(con.execute("SELECT run, topic, spelling, value FROM topic_score").fetchall())
    con.close()
    # AP (5 topic rows) and map (3, the same run and options) are one measure: the newest
    # rows of each key kept; AP(rel=2) is map at -l 2; `other` keeps its -c option set
    assert rows == [("other", "map", 1, True, 3), ("sample", "AP", 1, False, 2),
                    ("sample", "AP(rel=2)", 2, False, 3), ("sample", "map", 1, False, 3)]
    assert after == before[0] - 3 - 3    # map and ndcg_cut_10 of one run were stored twice
    assert kept <= values                # every value kept is one that was stored


# -- 4. every catalog row is a name the CLI knows ---------------------------------------------
def test_every_catalog_row_is_a_name_irw_measures_explains(tmp_path):
    path = tmp_path / "w.duckdb"
    irw("init", "-w", path)
    con = duckdb.connect(str(path), read_only=True)
    rows = [r for (r,) in con.execute("SELECT measure FROM measure_catalog").fetchall()]
    con.close()
    listing = irw("measures").stdout
    for name in rows:
        explained = irw("measures", name).stdout
        assert "definition:" in explained and "source:" in explained, name
        assert re.search(rf"^{re.escape(name)}\s", listing, re.M), name
    assert len(rows) >= 162
    # the refusals
    assert "recip_rank_cut" in irw("measures", "recip_rank_cut.5").stdout
    assert "sDCG" in irw("measures", "sDCG@10").stdout


def test_irw_eval_reaches_session_measures_and_names_what_is_missing(tmp_path):
    from tests.online.test_online_cli import _log
    from tests.helpers.online_logs import write_qrels
    path = tmp_path / "w.duckdb"
    qrels = {("t1", "a"): 1, ("t1", "b"): 0, ("t1", "c"): 2, ("t1", "d"): 1, ("t2", "a"): 1,
             ("t2", "e"): 1}
    irw("ingest", "qrels", write_qrels(tmp_path / "q.txt", qrels), "-C", "c", "-w", path)
    run = tmp_path / "A.run"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} A\n"
                           for t, docs in (("t1", "acbd"), ("t2", "ae"))
                           for i, d in enumerate(docs)))
    irw("ingest", "run", run, "-C", "c", "-w", path)
    missing = irw("eval", "-C", "c", "-m", "sDCG@10", "-w", path, code=1)
    assert "irw ingest sessions" in missing.stderr and len(missing.stderr.splitlines()) == 1
    irw("ingest", "sessions", _log(tmp_path, "x", "ac"), "-C", "c", "--run", "X", "-w", path)
    via_eval = json.loads(irw("eval", "-C", "c", "-m", "sDCG@3", "-m", "CTR", "-f", "json",
                              "-w", path).stdout)
    via_online = json.loads(irw("online", "eval", "-C", "c", "-m", "sDCG@3", "-m", "CTR",
                                "-f", "json", "-w", path).stdout)
    assert {(r["measure"], r["value"]) for r in via_eval} == \
        {(r["measure"], r["value"]) for r in via_online}
    tsv = irw("online", "eval", "-C", "c", "-m", "CTR", "-f", "tsv", "-w", path).stdout
    assert tsv.splitlines()[0].split("\t")[:2] == ["measure", "run"]


def test_irw_eval_reaches_nugget_and_rouge_measures_over_stored_texts(tmp_path):
    """nuggetF and ROUGE-x-{R,P,F} through irw eval -C: the values irw nuggets and irw rouge
    --campaign give (their own code evaluates them)."""
    files = {"out.tsv": "t1\tA\tthe cat sat on the mat\nt2\tA\tdogs bark\n"
                        "t1\tB\ta dog sat\nt2\tB\tcats sleep\n",
             "refs.tsv": "t1\tr1\tthe cat sat on the mat\nt2\tr1\tdogs bark at night\n",
             "gold.tsv": "t1\tn1\t1\tcat\nt2\tn1\t1\tdogs\n",
             "match.tsv": "t1\tA\tn1\t6\nt2\tA\tn1\t4\nt1\tB\tn1\t3\n",
             "len.tsv": "t1\tA\t17\nt2\tA\t8\nt1\tB\t7\nt2\tB\t9\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    w = tmp_path / "w.duckdb"
    irw("init", "-w", w)
    missing = irw("eval", "-C", "c", "-m", "ROUGE-1-R", "-w", w, code=1)
    assert "no campaign 'c'" in missing.stderr
    irw("ingest", "texts", tmp_path / "out.tsv", "-C", "c", "-w", w)
    missing = irw("eval", "-C", "c", "-m", "ROUGE-1-R", "-w", w, code=1)
    assert "irw ingest texts" in missing.stderr
    irw("ingest", "texts", tmp_path / "refs.tsv", "-C", "c", "--kind", "references", "--name",
        "refs", "-w", w)
    irw("ingest", "nuggets", "-C", "c", "--name", "gold", "--gold", tmp_path / "gold.tsv",
        "--matches", tmp_path / "match.tsv", "--lengths", tmp_path / "len.tsv", "-w", w)
    rows = json.loads(irw("eval", "-C", "c", "-m", "nuggetF", "-m", "ROUGE-L-F", "-q", "-f",
                          "json", "-w", w).stdout)
    got = {(r["measure"], r["run"], r["topic"]): r["value"] for r in rows}
    nuggets = json.loads(irw("nuggets", "-C", "c", "--nuggets", "gold", "-m", "nuggetF", "-q",
                             "-f", "json", "-w", w).stdout)
    for r in nuggets:
        assert got[("nuggetF", r["run"], r["topic"])] == pytest.approx(r["value"], abs=1e-12)
    rouge = irw("rouge", "--campaign", "c", "--references", "refs", "--warehouse", w, "-a",
                "-d").stdout
    for run, topic, f in re.findall(r"^(\w) ROUGE-L Eval (\w+)\.\w R:\S+ P:\S+ F:(\S+)$",
                                    rouge, re.M):
        assert f"{got[('ROUGE-L-F', run, topic)]:.5f}" == f


# -- 5. irw compare takes several measures ----------------------------------------------------
def test_compare_takes_several_measures(campaign):
    path = campaign
    out = irw("compare", "-C", "c", "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "--test",
              "t", "--baseline", "r0", "-w", path)
    for measure in ("map", "P.10", "ndcg_cut.10"):
        assert f"{measure}: t test" in out.stdout
    summary = out.stdout.split("\n\n")[-1]
    assert re.search(r"^run\s+map\s+P\.10\s+ndcg_cut\.10$", summary, re.M)
    assert "significantly better/worse than r0" in summary
    assert "evaluated now" in out.stderr
    with Warehouse(path) as wh:          # nothing stored without --store
        assert wh.con.execute("SELECT count(*) FROM score").fetchone()[0] == 0
    rows = json.loads(irw("compare", "-C", "c", "-m", "map", "-m", "P.10", "-f", "json",
                          "--store", "-w", path).stdout)
    assert {r["measure"] for r in rows} == {"map", "P.10"} and len(rows) == 2 * 6
    with Warehouse(path) as wh:
        assert {m for (m,) in wh.con.execute("SELECT DISTINCT measure FROM score").fetchall()} \
            == {"map", "P_10"}


# -- 6. one flag, one meaning -------------------------------------------------------------------
def test_g_is_gains_and_the_earlier_gold_form_still_works(campaign):
    path = campaign
    old = irw("meta", "concordance", "-C", "c", "-m", "P@5", "-m", "map", "-g", "RR", "-f",
              "json", "-w", path)
    new = irw("meta", "concordance", "-C", "c", "-m", "P@5", "-m", "map", "--gold", "RR", "-f",
              "json", "-w", path)
    assert old.stdout == new.stdout and "--gold" in old.stderr
    gains = irw("meta", "rankcorr", "-C", "c", "-m", "P@5", "-m", "map", "-g", "1:2", "-f",
                "json", "-w", path)
    assert "--gold" not in gains.stderr
    for command in (["eval"], ["compare"], ["report"], ["meta", "discpower"],
                    ["meta", "report"], ["meta", "concordance"], ["campaign", "set"]):
        assert re.search(r"-g,\s+--gains|--gains,?\s+-g", irw(*command, "--help").stdout), command


# -- 7. the Python API is the same request ------------------------------------------------------
def test_the_api_never_leaves_a_result_open(tmp_path):
    """The issue: after wh.score_matrix(...), the next wh.scores() or wh.con.sql(...) raised
    ResourceInUseException."""
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.test", "s")
        for run in ("STANDARD.results.test", "STANDARD.results.trunc"):
            wh.ingest_run(DATA / "runs" / run, "s", name=run)
        wh.evaluate(["map"], campaign="s", store=True)
        wh.con.execute("SELECT * FROM score").fetchone()     # a result left open on wh.con
        matrix = wh.score_matrix("s", "map", missing="drop")
        assert wh.scores("s", "AP").num_rows == 5          # any spelling of the measure
        assert wh.con.sql("SELECT 42").fetchall() == [(42,)]
        assert len(wh.scores("s", frame="pandas")) == 5
        pairs = wh.compare("s", ["map", "P@10"], test="t", missing="drop")
        assert [m.measure for _, m in pairs] == ["map", "P@10"]
        assert wh.con.sql("SELECT 1").fetchall() == [(1,)]
        by_keyword = wh.evaluate(["map"], campaign="s", threshold=2)
        assert by_keyword.scope.options.threshold == 2
    assert matrix.dropped


# -- the shape --------------------------------------------------------------------------------
def test_each_option_is_declared_in_one_module():
    """The flags of every evaluation option are written in irwarehouse/options.py only
    (`irw rouge`'s -l, -M and -c are ROUGE-1.5.5's own options, parsed by its drop-in;
    `irw meta qrels-agreement` takes --qrels twice: the two qrels are what it compares, not an
    option of its request); no command keeps the options in a global."""
    from irwarehouse.options import OPTIONS
    unique = {f for o in OPTIONS for flag in o.flags for f in flag.split("/")
              if f not in ("-l", "-M", "-c", "-g")}
    for path in (REPO / "irwarehouse").rglob("*.py"):
        if path.name == "options.py" and path.parent.name == "irwarehouse":
            continue
        text = path.read_text()
        for flag in unique - ({"--qrels"} if path.name == "meta_agree.py" else set()):
            assert f'"{flag}"' not in text, (path, flag)
    import irwarehouse.cli.common as common
    assert not hasattr(common, "EVAL_GIVEN")


def test_eval_cmd_is_short_and_the_readme_a_front_door():
    from irwarehouse.cli import eval as eval_module
    source = inspect.getsource(eval_module.eval_cmd)
    assert len(source.splitlines()) <= 60
    readme = (REPO / "README.md").read_text().splitlines()
    assert len(readme) <= 540


# -- the first minutes of a newcomer -------------------------------------------------------------
def test_help_piped_is_plain_text():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "from irwarehouse.entry import main; main()",
                          "eval", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert "--measure" in out.stdout and not set("╭╮╰╯│─") & set(out.stdout)


def test_missing_zero_across_campaigns_without_shared_topics_warns(tmp_path):
    path = tmp_path / "w.duckdb"
    for campaign, topics in (("a", "1 2"), ("b", "3 4")):
        qrels = tmp_path / f"{campaign}.qrels"
        qrels.write_text("".join(f"{t} 0 d{d} {d % 2}\n" for t in topics.split()
                                 for d in range(6)))
        irw("ingest", "qrels", qrels, "-C", campaign, "-w", path)
        for run in ("x", "y"):
            path_run = tmp_path / f"{campaign}{run}.run"
            path_run.write_text("".join(f"{t} Q0 d{d} {d} {10 - d} {run}\n"
                                        for t in topics.split() for d in range(6)))
            irw("ingest", "run", path_run, "-C", campaign, "-w", path)
    out = irw("compare", "-C", "a", "-C", "b", "-m", "map", "--missing", "zero", "--test", "t",
              "-w", path)
    assert "share few or no topics" in out.stderr and "--missing zero" in out.stderr


def test_sql_accepts_with_pivot(tmp_path):
    path = tmp_path / "w.duckdb"
    irw("ingest", "qrels", DATA / "qrels.test", "-C", "s", "-w", path)
    irw("ingest", "run", DATA / "runs" / "STANDARD.results.test", "-C", "s", "-w", path)
    out = irw("sql", "-w", path, "WITH s AS (SELECT 'map' AS measure, run, value FROM "
              "irw_map('s')) PIVOT s ON measure USING avg(value) GROUP BY run ORDER BY run")
    assert "map" in out.stdout and "(1 row)" in out.stdout
    refused = irw("sql", "-w", path, "PIVOT (SELECT * FROM read_csv('x.csv')) ON a USING "
                  "sum(b) ORDER BY 1", code=1)
    assert "refused" in refused.stderr
