"""Sections that `irw report` adds for online evaluation (irwarehouse/report/campaign.py calls
online_sections): the precision histogram of Baeza-Yates & Ribeiro-Neto (2011) ch. 4 --
RP_A/B(i) = R-precision of A minus that of the baseline B for each query i, in query order --
and, when the campaign has session logs, a summary of each log's clicks."""

from __future__ import annotations

from pathlib import Path

from ..writers.figures import save_pair
from . import sections as parts
from .query import Query
from .plots import delta_bars
from .scores import ensure_scores, measure_names

HISTOGRAM_SQL = """SELECT run, baseline, topic, delta
FROM run_delta($baseline, $measure)
WHERE campaign = $campaign AND qrels = $qrels AND options = $options
ORDER BY run, topic"""

CLICKS_SQL = """SELECT q.run, count(DISTINCT q.session) AS sessions, count(*) AS queries,
       sum(q.clicks) / sum(q.shown) AS ctr,
       avg(CASE WHEN q.abandoned THEN 1.0 ELSE 0.0 END) AS abandonment,
       avg(q.clicks) AS clicks_per_query,
       sum(q.mean_click_rank * q.clicks) / nullif(sum(q.clicks), 0) AS mean_click_rank,
       avg(q.first_click_time) AS time_to_first_click
FROM irw_click_queries(campaign := $campaign) q
GROUP BY q.run ORDER BY q.run"""


def _histogram(rows: list[dict], baseline: str, folder: Path) -> str:
    fig, axes = delta_bars(rows, "RP_A/B(i): R-precision minus the baseline's, per query",
                           sort=False)
    for run, ax in axes.items():
        ax.set_title(f"{run} / {baseline}", fontsize=8)
        ax.set_xlabel("query (topic order)", fontsize=7)
    return save_pair(fig, folder, "precision_histogram")


def online_sections(wh, campaign: str, qrels: str, baseline: str, folder: Path,
                    warehouse_label: str, options: str | None = None,
                    store: bool = True) -> list[parts.Section]:
    out = []
    _, options = ensure_scores(wh, campaign, qrels, ["Rprec"], options_text=options,
                                store=store)
    (rprec,) = measure_names(["Rprec"])
    hist = Query("precision_histogram", HISTOGRAM_SQL,
                 {"baseline": baseline, "measure": rprec, "campaign": campaign,
                  "qrels": qrels, "options": options})
    rows = hist.rows(wh.con)
    hist.save(folder.parent / "queries")
    wins = {}
    for r in rows:
        w = wins.setdefault(r["run"], {"run": r["run"], "better": 0, "worse": 0, "same": 0})
        w["better" if r["delta"] > 0 else "worse" if r["delta"] < 0 else "same"] += 1
    out.append(parts.Section(
        f"Precision histogram against {baseline}",
        "RP_A/B(i) = RP_A(i) − RP_B(i), the R-precision of each run minus the baseline's for "
        "each query, in query order (Baeza-Yates & Ribeiro-Neto, Modern Information "
        "Retrieval, 2011, ch. 4): bars above 0 are queries where the run is better.",
        [parts.figure(_histogram(rows, baseline, folder), "precision histogram",
                      "precision_histogram") if rows else parts.note("(no other run)"),
         parts.table("precision_histogram", list(wins.values()),
                     ["run", "better", "worse", "same"]),
         parts.sql(hist, warehouse_label)]))
    has_clicks = wh.con.execute("""
        SELECT count(*) FROM session_log l JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND l.has_clicked""", [campaign]).fetchone()[0]
    if has_clicks:
        from ..online.store import install_macros
        install_macros(wh.con)
        clicks = Query("click_summary", CLICKS_SQL, {"campaign": campaign})
        clicks.save(folder.parent / "queries")
        out.append(parts.Section(
            "Click logs",
            "Per session log (system): sessions, query impressions, clickthrough rate "
            "(clicked / shown results), abandonment (queries without a click), clicks per "
            "query, mean clickthrough rank and mean time to first click (seconds from the "
            "session start) over the impressions with a click.",
            [parts.table("click_summary", clicks.rows(wh.con),
                         ["run", "sessions", "queries", "ctr", "abandonment",
                          "clicks_per_query", "mean_click_rank", "time_to_first_click"]),
             parts.sql(clicks, warehouse_label)]))
    return out
