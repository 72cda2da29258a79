"""What each page of the workspace shows, read from one request's Warehouse (serve.access).

Every number goes through the one evaluation request (irwarehouse.request.evaluation: the
campaign's profile, stored scores or evaluated on demand, as `irw eval -C`); the comparisons
through request.comparison and irwarehouse.stats; the meta-evaluation through the API
(Warehouse.metrics) and irwarehouse.meta. A page function returns the template's context: its
tables (serve.tables.Table, each downloadable), figures and notes."""

from __future__ import annotations

import math

from ..errors import IrwError
from ..report.query import Query
from . import charts
from .tables import Table, url

DEFAULT_MEASURES = ("map", "P@10", "ndcg_cut_10")   # when a campaign has none stored
MAX_MEASURES = 8
TESTS = ("t", "wilcoxon", "sign")                   # paired tests against the baseline
DEFAULT_TEST, DEFAULT_CORRECTION, DEFAULT_ALPHA = "t", "holm", 0.05


class NotFound(IrwError):
    """A campaign, run or topic the warehouse does not have (404)."""


class ChooseQrels(IrwError):
    """The campaign has several qrels and neither the page nor its profile chose one."""

    def __init__(self, message: str, names: list[str]):
        super().__init__(message)
        self.names = names


# -- helpers ---------------------------------------------------------------------------------------
def _one(params, key: str, default=None):
    value = params.get(key)
    return default if value in (None, "") else value


def _campaign(con, params) -> str:
    name = _one(params, "c")
    if name is None or not con.execute("SELECT count(*) FROM campaign WHERE name = ?",
                                       [name]).fetchall()[0][0]:
        raise NotFound("no such campaign in the warehouse")
    return name


def _run(con, campaign: str, name: str | None, what: str = "run") -> str:
    if name is None or not con.execute(
            "SELECT count(*) FROM run r JOIN campaign c USING (campaign_id) "
            "WHERE c.name = ? AND r.name = ?", [campaign, name]).fetchall()[0][0]:
        raise NotFound(f"no such {what} in the campaign")
    return name


def stored_measures(con, campaign: str) -> list[str]:
    """The measures the campaign has scores stored for, most complete first."""
    rows = con.execute("""
        SELECT measure FROM topic_score WHERE campaign = ? AND value IS NOT NULL
        GROUP BY measure ORDER BY count(*) DESC, measure""", [campaign]).fetchall()
    return [m for (m,) in rows]


PREFERRED = ("map", "P_10", "ndcg_cut_10", "ndcg", "recip_rank", "Rprec", "bpref")


def _measures(con, campaign: str, params) -> list[str]:
    """The measures asked for (m=...), else up to four stored ones (the common ones first),
    else DEFAULT_MEASURES (evaluated on demand)."""
    chosen = [m.strip() for m in params.getlist("m") if m.strip()]
    if not chosen:
        stored = stored_measures(con, campaign)
        chosen = ([m for m in PREFERRED if m in stored]
                  + [m for m in stored if m not in PREFERRED])[:4] or list(DEFAULT_MEASURES)
    return list(dict.fromkeys(chosen))[:MAX_MEASURES]


def measure_doc(con, label: str) -> str:
    """The catalog's doc of a measure name (the hover of its column)."""
    from ..measures import parse_measures
    try:
        name = parse_measures([label])[0].mdef.name
    except (IrwError, IndexError):
        name = label
    row = con.execute("SELECT doc, source FROM measure_catalog WHERE measure = ?",
                      [name]).fetchall()
    return f"{label}: {row[0][0]} ({row[0][1]})" if row else label


def _given(params):
    """The request's settings the page chose: the qrels (else the profile's, or the only one)."""
    from ..options import EvalSettings
    return EvalSettings(qrels=_one(params, "qrels"))


def qrels_names(con, campaign: str) -> list[str]:
    return [q for (q,) in con.execute("SELECT q.name FROM qrels q JOIN campaign c "
                                      "USING (campaign_id) WHERE c.name = ? ORDER BY q.name",
                                      [campaign]).fetchall()]


def _request(con, campaign: str, labels: list[str], params):
    """The one request's per-topic scores of the measures (stored, or evaluated now)."""
    from ..request.evaluation import scope, scores
    try:
        where = scope(con, campaign, _given(params), measures=labels)
    except IrwError as exc:
        if "several qrels" in str(exc):
            raise ChooseQrels(f"Campaign {campaign!r} has several qrels and no profile "
                              "choosing one: choose the qrels.",
                              qrels_names(con, campaign)) from None
        raise
    return where, scores(con, where, labels)


def run_summaries(con, found) -> dict[str, dict]:
    """run -> value, topics and the 95% t interval of run_mean_ci (Sakai, PROMISE 2014), per measure.
    A run's value is irw_summarise's (the one definition, sql/schema.sql): for a mean or a
    sum, the values added one by one in topic order (as list_reduce adds them, the same
    bits), here in Python; for any other summary kind (gmean, ...), by the macro itself."""
    import functools
    import operator

    from ..stats.intervals import t_interval
    out: dict[str, dict] = {}
    for ms in found:
        by_run: dict[str, list] = {}
        for run, topic, value in sorted(ms.rows, key=lambda r: (r[0], r[1])):
            if value is not None:
                by_run.setdefault(run, []).append(value)
        for run, values in by_run.items():
            n = len(values)
            total = functools.reduce(operator.add, values)
            if ms.summary == "mean":
                value = total / n
            elif ms.summary == "sum":
                value = total
            else:
                value = con.execute("SELECT irw_summarise(?, ?, NULL)",
                                    [ms.summary, values]).fetchall()[0][0]
            ci = (t_interval(values) if ms.summary == "mean" else None) or (None, None)
            out.setdefault(run, {})[ms.label] = {"value": value, "n": n, "ci": ci}
    return out


def _scores_sql(where, ms, name: str, **filters) -> str:
    """The SQL of a table of stored per-topic values (topic_score), as the report shows it;
    for a measure evaluated on the page, what stores it first."""
    conditions = "".join(f" AND {k} = ${k}" for k in filters)
    query = Query(name, f"""
        SELECT run, topic, value
        FROM topic_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure = $measure{conditions}
        ORDER BY run, topic""", {"campaign": where.campaign, "qrels": where.qrels,
                                  "options": where.options.describe(), "measure": ms.name,
                                  **filters})
    shown = query.shown()
    if ms.source.startswith("evaluated"):
        shown = (f"-- {ms.label} was evaluated on the page, not stored: this query finds it "
                 f"once stored (irw eval -C {where.campaign} -m {ms.label} --store)\n" + shown)
    return shown


def _by_topic(ms) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for run, topic, value in ms.rows:
        out.setdefault(run, {})[topic] = value
    return out


def _paired(a: dict, b: dict) -> tuple[list[str], list[float], list[float]]:
    topics = sorted(t for t in a if t in b and a[t] is not None and b[t] is not None)
    return topics, [a[t] for t in topics], [b[t] for t in topics]


def paired_test(test: str, x, y):
    from ..stats.classical import paired_t, sign_test, wilcoxon_signed_rank
    return {"t": paired_t, "wilcoxon": wilcoxon_signed_rank, "sign": sign_test}[test](x, y)


def _choice(params, key, allowed, default):
    value = _one(params, key, default)
    if value not in allowed:
        raise IrwError(f"{key} must be one of {', '.join(str(a) for a in allowed)}")
    return value


def _int(params, key: str, default: int) -> int:
    value = _one(params, key, default)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise IrwError(f"{key} must be a whole number") from None


def _alpha(params) -> float:
    try:
        alpha = float(_one(params, "alpha", DEFAULT_ALPHA))
    except ValueError:
        raise IrwError("alpha must be a number between 0 and 1") from None
    if not 0 < alpha < 1:
        raise IrwError("alpha must be a number between 0 and 1")
    return alpha


# -- campaigns -------------------------------------------------------------------------------------
CAMPAIGNS_SQL = """
        SELECT c.name AS campaign, c.venue, c.year,
               (SELECT count(*) FROM run r WHERE r.campaign_id = c.campaign_id) AS runs,
               (SELECT count(DISTINCT j.topic) FROM judgment j JOIN qrels q USING (qrels_id)
                 WHERE q.campaign_id = c.campaign_id) AS topics,
               (SELECT string_agg(q.name, ', ' ORDER BY q.name) FROM qrels q
                 WHERE q.campaign_id = c.campaign_id) AS qrels,
               (SELECT string_agg(DISTINCT r.team, ', ') FROM run r
                 WHERE r.campaign_id = c.campaign_id) AS teams,
               (SELECT min(r.ingested_at) FROM run r WHERE r.campaign_id = c.campaign_id)
                   AS first_ingest,
               (SELECT max(r.ingested_at) FROM run r WHERE r.campaign_id = c.campaign_id)
                   AS last_ingest
        FROM campaign c
        WHERE $q IS NULL OR contains(lower(c.name), lower($q))
           OR contains(lower(coalesce(c.venue, '')), lower($q))
           OR CAST(c.year AS VARCHAR) = $q
           OR EXISTS (SELECT 1 FROM run r WHERE r.campaign_id = c.campaign_id
                        AND (contains(lower(coalesce(r.team, '')), lower($q))
                             OR contains(lower(r.name), lower($q))))
        ORDER BY c.name"""


def campaigns(wh, params) -> dict:
    from ..engine.settings import load_profile
    q = _one(params, "q")
    query = Query("campaigns", CAMPAIGNS_SQL, {"q": q})
    rows = query.rows(wh.con)
    for row in rows:
        row["profile"] = load_profile(wh.con, row["campaign"]).flags() or "–"
        for key in ("first_ingest", "last_ingest"):
            row[key] = str(row[key])[:19] if row[key] is not None else None
    columns = ["campaign", "venue", "year", "runs", "topics", "qrels", "teams", "profile",
               "first_ingest", "last_ingest"]
    table = Table("campaigns", columns, rows, sql=query.shown(),
                  links={"campaign": lambda r: url("/leaderboard", c=r["campaign"])})
    return {"title": "Campaigns", "q": q or "", "tables": {"campaigns": table}}


# -- leaderboard -----------------------------------------------------------------------------------
def leaderboard(wh, params) -> dict:
    from ..stats.correction import CORRECTIONS, adjust
    con = wh.con
    campaign = _campaign(con, params)
    labels = _measures(con, campaign, params)
    where, found = _request(con, campaign, labels, params)
    summaries = run_summaries(con, found)
    runs = sorted(summaries)
    baseline = _one(params, "baseline")
    if baseline is not None:
        _run(con, campaign, baseline, "baseline run")
    test = _choice(params, "test", TESTS, DEFAULT_TEST)
    correction = _choice(params, "correction", (*CORRECTIONS, "none"), DEFAULT_CORRECTION)
    alpha = _alpha(params)
    rows, marks = [], {}
    for run in runs:
        row = {"run": run}
        for ms in found:
            got = summaries[run].get(ms.label)
            row[ms.label] = got["value"] if got else None
            row[f"{ms.label} ci_low"], row[f"{ms.label} ci_high"] = got["ci"] if got else (None,
                                                                                      None)
        rows.append(row)
    columns = ["run"]
    heads = {}
    for ms in found:
        columns += [ms.label, f"{ms.label} ci_low", f"{ms.label} ci_high"]
        heads[ms.label] = measure_doc(con, ms.label)
    if baseline is not None:
        for ms in found:
            topic_values = _by_topic(ms)
            tested = [(i, r) for i, r in enumerate(runs) if r != baseline]
            pvalues = []
            for _, run in tested:
                _, x, y = _paired(topic_values.get(run, {}), topic_values.get(baseline, {}))
                pvalues.append(paired_test(test, x, y).pvalue if len(x) > 1 else math.nan)
            adjusted = adjust(pvalues, None if correction == "none" else correction) \
                if pvalues else []
            for (i, run), p in zip(tested, adjusted):
                rows[i][f"{ms.label} p"] = float(p)
                if p < alpha:
                    marks[(i, ms.label)] = "▲" if rows[i][ms.label] > summaries[baseline][
                        ms.label]["value"] else "▼"
            columns.insert(columns.index(f"{ms.label} ci_high") + 1, f"{ms.label} p")
    best = set()
    for ms in found:
        values = [(r[ms.label], i) for i, r in enumerate(rows) if r[ms.label] is not None]
        if values:
            top = max(values)[0]
            best |= {(i, ms.label) for v, i in values if v == top}
    query = Query("leaderboard", """
        SELECT run, measure, num_topics, mean, ci_low, ci_high
        FROM run_mean_ci
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND list_contains($measures, measure)
        ORDER BY measure, mean DESC""", {"campaign": campaign, "qrels": where.qrels,
                                          "options": where.options.describe(),
                                          "measures": [ms.name for ms in found]})
    evaluated = [ms.label for ms in found if ms.source.startswith("evaluated")]
    shown = query.shown()
    if evaluated:
        shown = (f"-- evaluated on the page, not stored: {', '.join(evaluated)}; this query "
                 f"finds them once stored\n-- (the page's button, or irw eval -C "
                 f"{campaign} -m ... --store)\n" + shown)
    table = Table("leaderboard", columns, rows, heads=heads, best=best, marks=marks,
                  sql=shown,
                  links={"run": lambda r: url("/run", c=campaign, run=r["run"], m=labels[0],
                                              baseline=baseline, qrels=where.qrels)},
                  row_class={i: "baseline" for i, r in enumerate(rows) if r["run"] == baseline})
    return {"title": f"Leaderboard: {campaign}", "campaign": campaign, "measures": labels,
            "runs": runs, "baseline": baseline or "", "test": test, "tests": TESTS,
            "correction": correction, "corrections": (*CORRECTIONS, "none"), "alpha": alpha,
            "scope": where.describe(), "evaluated": evaluated,
            "stored": [m for m in stored_measures(con, campaign)][:40],
            "tables": {"leaderboard": table}}


# -- run -------------------------------------------------------------------------------------------
def run_page(wh, params) -> dict:
    con = wh.con
    campaign = _campaign(con, params)
    run = _run(con, campaign, _one(params, "run"))
    label = _measures(con, campaign, params)[0]
    baseline = _one(params, "baseline")
    if baseline is not None:
        _run(con, campaign, baseline, "baseline run")
    query = Query("provenance", """
        SELECT run, team, source_path AS file, sha256, num_rows, ingested_at
        FROM run_info WHERE campaign = $campaign AND run = $run""",
                  {"campaign": campaign, "run": run})
    facts = query.rows(con)[0]
    facts["file"] = facts["file"].rsplit("/", 1)[-1] if facts["file"] else None
    facts["ingested_at"] = str(facts["ingested_at"])[:19]
    where, found = _request(con, campaign, [label], params)
    values = _by_topic(found[0])
    mine = values.get(run, {})
    rows = [{"topic": t, label: v} for t, v in sorted(mine.items())]
    link = {"topic": lambda r: url("/topic", c=campaign, topic=r["topic"], m=label,
                                            qrels=where.qrels)}
    tables = {"topics": Table("topics", ["topic", label], rows, links=link,
                              heads={label: measure_doc(con, label)},
                              sql=_scores_sql(where, found[0], "run_topics", run=run))}
    figures = {"distribution": charts.histogram([v for v in mine.values() if v is not None],
                                                label)}
    if baseline is not None and baseline != run:
        topics, x, y = _paired(mine, values.get(baseline, {}))
        deltas = sorted(((a - b, t, a, b) for t, a, b in zip(topics, x, y)), reverse=True)
        drows = [{"topic": t, "run": a, "baseline": b, "delta": d} for d, t, a, b in deltas]
        gains, losses = drows[:10], [r for r in reversed(drows[-10:]) if r["delta"] < 0]
        tables["gains"] = Table("gains", ["topic", "run", "baseline", "delta"],
                                [r for r in gains if r["delta"] > 0], links=link)
        tables["losses"] = Table("losses", ["topic", "run", "baseline", "delta"], losses,
                                 links=link)
        figures["deltas"] = charts.deltas([(r["topic"], r["delta"]) for r in drows], label)
    return {"title": f"Run {run}", "campaign": campaign, "run": run, "measure": label,
            "baseline": baseline or "", "facts": facts, "scope": where.describe(),
            "runs": sorted(values), "tables": tables, "figures": figures,
            "provenance_sql": query.shown()}


# -- topic and ranked list -------------------------------------------------------------------------
def topic_page(wh, params) -> dict:
    con = wh.con
    campaign = _campaign(con, params)
    topic = _one(params, "topic")
    label = _measures(con, campaign, params)[0]
    where, found = _request(con, campaign, [label], params)
    values = _by_topic(found[0])
    if topic is None or not any(topic in v for v in values.values()):
        raise NotFound("no such topic among the campaign's scores")
    rows = sorted(({"run": r, label: v[topic]} for r, v in values.items() if topic in v),
                  key=lambda r: (-(r[label] if r[label] is not None else -math.inf), r["run"]))
    means = {}
    for v in values.values():
        for t, x in v.items():
            if x is not None:
                means.setdefault(t, []).append(x)
    order = sorted(means, key=lambda t: (sum(means[t]) / len(means[t]), t))
    mean = sum(means.get(topic, [math.nan])) / max(len(means.get(topic, [])), 1)
    difficulty = {"mean over runs": mean, "rank (1 = hardest)": order.index(topic) + 1
                  if topic in order else None, "topics": len(order)}
    judged = Query("judgments", """
        SELECT rel AS level, count(*) AS documents
        FROM judgment WHERE qrels_id = $qrels_id AND topic = $topic
        GROUP BY rel ORDER BY rel DESC""", {"qrels_id": where.qrels_id, "topic": topic})
    tables = {
        "runs": Table("runs", ["run", label], rows, heads={label: measure_doc(con, label)},
                      sql=_scores_sql(where, found[0], "topic_runs", topic=topic),
                      links={"run": lambda r: url("/ranked", c=campaign, topic=topic,
                                                  run=r["run"], m=label, qrels=where.qrels)}),
        "judgments": Table("judgments", ["level", "documents"], judged.rows(con),
                           sql=judged.shown()),
    }
    return {"title": f"Topic {topic}", "campaign": campaign, "topic": topic, "measure": label,
            "difficulty": difficulty, "scope": where.describe(), "tables": tables}


RANKED_SQL = """
        SELECT row_number() OVER (ORDER BY
                   ev_sort_num($order, $float32, r.score, r.rank, r.file_order) DESC,
                   ev_sort_doc($order, r.doc) DESC, ev_sort_tie($order, r.file_order) DESC)
                   AS position,
               r.doc, r.score, r.rank AS given_rank, j.rel AS relevance
        FROM run_row r
        JOIN run x ON x.run_id = r.run_id
        JOIN campaign c ON c.campaign_id = x.campaign_id
        LEFT JOIN (SELECT doc, max(rel) AS rel FROM judgment
                   WHERE qrels_id = $qrels_id AND topic = $topic GROUP BY doc) j
               ON j.doc = r.doc
        WHERE c.name = $campaign AND x.name = $run AND r.topic = $topic
        ORDER BY position
        LIMIT $limit"""


def ranked(wh, params) -> dict:
    """The ranked list of a run for a topic in the order the measure reads it (the request's
    order: trec_eval's score order, the rank column or the file's), each document's
    relevance level (unjudged marked), cut at the measure's cutoff."""
    from ..measures import parse_measures
    con = wh.con
    campaign = _campaign(con, params)
    run = _run(con, campaign, _one(params, "run"))
    topic = _one(params, "topic")
    label = _measures(con, campaign, params)[0]
    where, found = _request(con, campaign, [label], params)
    value = _by_topic(found[0]).get(run, {}).get(topic)
    request = parse_measures([label], version=where.options.version)[0]
    cutoff = None
    for p, a in zip(request.mdef.params, request.args):
        if p.name in ("k", "cutoff", "n") and isinstance(a, (int, float)):
            cutoff = int(a)
    depth = where.options.depth
    limit = min(x for x in (cutoff, depth, 1000) if x)
    query = Query("ranked_list", RANKED_SQL, {
        "order": where.options.order, "float32": where.options.version < 10,
        "qrels_id": where.qrels_id, "topic": topic, "campaign": campaign, "run": run,
        "limit": limit})
    rows = query.rows(con)
    if not rows:
        raise NotFound("the run has no ranked list for this topic")
    threshold = where.options.threshold
    row_class = {}
    for i, row in enumerate(rows):
        row["judged"] = row["relevance"] is not None
        row_class[i] = ("unjudged" if row["relevance"] is None else
                        "relevant" if row["relevance"] >= threshold else "nonrelevant")
    table = Table("ranked", ["position", "doc", "score", "given_rank", "relevance", "judged"],
                  rows, sql=query.shown(), row_class=row_class)
    return {"title": f"{run} on topic {topic}", "campaign": campaign, "run": run,
            "topic": topic, "measure": label, "value": value, "cutoff": cutoff or limit,
            "cut_by": "the measure's cutoff" if cutoff else "the list's depth",
            "threshold": threshold, "scope": where.describe(), "tables": {"ranked": table}}


# -- report --------------------------------------------------------------------------------------
def report_page(wh, params) -> dict:
    """The campaign's report (what `irw report` writes as report.html): its sections computed
    by irwarehouse.report.campaign as data, its figures drawn into a folder that is dropped
    once the page is rendered (they are inline). Reads stored scores; a measure not stored
    needs writes (irw report evaluates and stores it)."""
    import tempfile

    from ..report.campaign import report_context
    from ..report.query import PLACEHOLDER
    campaign = _campaign(wh.con, params)
    measures = [m for m in params.getlist("m") if m] or None
    with tempfile.TemporaryDirectory() as folder:
        return report_view(report_context(
            wh, campaign, folder, measures=measures, baseline=_one(params, "baseline"),
            qrels=_one(params, "qrels"), warehouse_label=PLACEHOLDER,
            seed=_int(params, "seed", 1), store=False))


def report_view(context: dict) -> dict:
    """The report's data as the workspace shows it: each table a Table (run and topic names
    linking to their pages), listed under "tables" for the downloads."""
    from dataclasses import replace
    campaign = context["campaign"]
    linkers = {"run": lambda r: url("/run", c=campaign, run=r["run"]),
               "topic": lambda r: url("/topic", c=campaign, topic=r["topic"])}
    tables, sections = {}, []
    for section in context["sections"]:
        blocks = []
        for block in section.blocks:
            spec = block.get("table")
            if spec is not None:
                table = Table(spec["name"], spec["columns"], spec["rows"],
                              links={c: linkers[c] for c in spec["links"]},
                              row_class={i: "sig" for i in spec["marked"]})
                tables[table.name] = table
                block = {"table": table}
            blocks.append(block)
        sections.append(replace(section, blocks=blocks))
    return {**context, "sections": sections, "tables": tables}


# -- compare ---------------------------------------------------------------------------------------
def compare(wh, params) -> dict:
    from ..request.comparison import matrix_for, run_tests
    from ..stats.compare import TESTS as ALL_TESTS
    from ..stats.compare import paired_effect
    from ..stats.correction import CORRECTIONS
    con = wh.con
    campaign = _campaign(con, params)
    label = _measures(con, campaign, params)[0]
    chosen = [r for r in params.getlist("run") if r]
    for r in chosen:
        _run(con, campaign, r)
    all_runs = sorted(r for (r,) in con.execute(
        "SELECT r.name FROM run r JOIN campaign c USING (campaign_id) WHERE c.name = ?",
        [campaign]).fetchall())
    out = {"title": f"Compare: {campaign}", "campaign": campaign, "measure": label,
           "chosen": chosen, "all_runs": all_runs, "tables": {}, "figures": {}}
    alpha = _alpha(params)
    out["alpha"] = alpha
    if len(chosen) == 2:
        where, found = _request(con, campaign, [label], params)
        values = _by_topic(found[0])
        a, b = chosen
        topics, x, y = _paired(values.get(a, {}), values.get(b, {}))
        if len(topics) < 2:
            raise IrwError("the two runs share fewer than two topics")
        test = _choice(params, "test", TESTS, DEFAULT_TEST)
        result = paired_test(test, x, y)
        d, low, high = paired_effect(x, y, alpha)
        rows = sorted(({"topic": t, a: u, b: v, "difference": u - v}
                       for t, u, v in zip(topics, x, y)), key=lambda r: -r["difference"])
        out["tables"]["differences"] = Table(
            "differences", ["topic", a, b, "difference"], rows,
            links={"topic": lambda r: url("/topic", c=campaign, topic=r["topic"], m=label,
                                          qrels=where.qrels)})
        out["tables"]["test"] = Table("test", ["test", "topics", "mean_difference",
                                               "statistic", "p", "effect_size_dz",
                                               "ci_low", "ci_high"], [{
            "test": test, "topics": len(topics), "mean_difference": sum(x) / len(x) - sum(y)
            / len(y), "statistic": float(result.statistic), "p": float(result.pvalue),
            "effect_size_dz": d, "ci_low": low, "ci_high": high}])
        out["figures"]["differences"] = charts.deltas([(r["topic"], r["difference"])
                                                       for r in rows], f"{label}: {a} − {b}")
        out.update(scope=where.describe(), test=test, tests=TESTS)
    elif len(chosen) > 2 or _one(params, "all"):
        test = _choice(params, "test", ALL_TESTS, "tukey")
        correction = _choice(params, "correction", (*CORRECTIONS, "none"), "none")
        seed = _int(params, "seed", 0)
        matrix = matrix_for(wh, [campaign], label, chosen if len(chosen) > 2 else None, "drop",
                            _given(params))
        result = run_tests(matrix, test=test, correction=None if correction == "none"
                           else correction, alpha=alpha, B=None, seed=seed)
        records = [{k: v for k, v in r.items() if k in (
            "run_a", "run_b", "mean_a", "mean_b", "delta", "statistic", "p", "p_adjusted",
            "significant")} for r in result.records()]
        out["tables"]["pairs"] = Table("pairs", ["run_a", "run_b", "mean_a", "mean_b", "delta",
                                                 "statistic", "p", "p_adjusted", "significant"],
                                       records,
                                       row_class={i: "sig" for i, r in enumerate(records)
                                                  if r["significant"]})
        out.update(test=test, tests=ALL_TESTS, correction=correction,
                   corrections=(*CORRECTIONS, "none"), seed=seed, B=result.B,
                   method=result.method, familywise=result.familywise_error,
                   dropped=list(matrix.dropped),
                   scope=f"{matrix.qrels}, options {matrix.options}")
    return out


# -- meta-evaluation -------------------------------------------------------------------------------
def meta(wh, params) -> dict:
    from ..meta import discpower as dp
    from ..meta import rankcorr as rc
    from ..meta import swap as sw
    con = wh.con
    campaign = _campaign(con, params)
    labels = _measures(con, campaign, params)
    if len(labels) < 2:
        labels = list(dict.fromkeys(labels + list(DEFAULT_MEASURES)))[:3]
    test = _choice(params, "test", ("bootstrap", "randomisation", "tukey", "t"), "bootstrap")
    B = int(_choice(params, "B", ("200", "1000", "5000"), "1000"))
    seed = _int(params, "seed", 0)
    metrics = wh.metrics(campaign, labels, missing="drop", qrels=_one(params, "qrels"))
    power = dp.table_records(dp.discpower_table(metrics, test=test, B=B, rng=seed))
    corr = rc.correlation_matrix(metrics.run_means()).records()
    swaps = [r.record() for r in sw.swap_table(metrics, B=B, rng=seed)]
    tables = {
        "discpower": Table("discpower", list(power[0]) if power else [], power),
        "rankcorr": Table("rankcorr", list(corr[0]) if corr else [], corr),
        "swap": Table("swap", list(swaps[0]) if swaps else [], swaps),
    }
    return {"title": f"Meta-evaluation: {campaign}", "campaign": campaign, "measures": labels,
            "test": test, "B": B, "seed": seed, "n_runs": len(metrics.runs),
            "n_topics": len(metrics.topics), "dropped": list(getattr(metrics, "dropped", ())),
            "tables": tables}


# -- across campaigns ------------------------------------------------------------------------------
ACROSS_SQL = """
        SELECT x.campaign, x.venue, x.year, x.family, x.team, x.run, x.qrels, x.options,
               x.num_topics, x.mean, x.rank_in_campaign, x.runs_in_campaign,
               x.relative_to_best
        FROM cross_campaign x
        WHERE x.measure = $measure AND ($family IS NULL OR x.family = $family)
        ORDER BY x.year NULLS LAST, x.campaign, x.rank_in_campaign"""


def across(wh, params) -> dict:
    from ..request.evaluation import score_name
    con = wh.con
    label = _one(params, "m", "map")
    name = score_name(con, "", label)[0]
    family = _one(params, "family")
    query = Query("across", ACROSS_SQL, {"measure": name, "family": family})
    rows = query.rows(con)
    families = [f for (f,) in con.execute(
        "SELECT DISTINCT family FROM run_family ORDER BY family").fetchall()]
    table = Table("across", ["campaign", "venue", "year", "family", "team", "run", "qrels",
                             "options", "num_topics", "mean", "rank_in_campaign",
                             "runs_in_campaign", "relative_to_best"], rows, sql=query.shown(),
                  links={"campaign": lambda r: url("/leaderboard", c=r["campaign"], m=label),
                         "run": lambda r: url("/run", c=r["campaign"], run=r["run"],
                                              m=label)})
    return {"title": "Across campaigns", "measure": label, "family": family or "",
            "families": families, "tables": {"across": table}}


# -- catalog (beside the console) ------------------------------------------------------------------
def catalog(con) -> list[dict]:
    return [{"measure": m, "parameters": ", ".join(f"{p['name']}={p['default']}"
                                                   for p in (params or [])
                                                   if p["name"] not in ("campaign", "run",
                                                                        "qrels")),
             "doc": d, "macro": macro}
            for m, macro, params, d in con.execute(
                "SELECT measure, macro, parameters, doc FROM measure_catalog "
                "ORDER BY domain, measure").fetchall()]
