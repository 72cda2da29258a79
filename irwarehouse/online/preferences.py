"""Side-by-side preferences: per-pair counts with a binomial test (`irw online preferences`),
and predictive power (`irw meta predictive-power`): how often a metric's per-topic difference
agrees with people's preferences (Sanderson et al., SIGIR 2010; Sakai, PROMISE 2014, sec 5.3).

Ties: a people's tie states no preference and is left out of the agreement count (reported as
`people_ties`); a metric tie (equal values) on a stated preference is a failure to predict it,
counted in `metric_ties` and not as agreement. predictive_power = agree / (preferences that are
not ties and whose two runs both have a stored score for the topic); a binomial test asks
whether agreement differs from chance (1/2), metric ties dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import WarehouseError


@dataclass(frozen=True)
class PairCount:
    left_run: str
    right_run: str
    left: int
    right: int
    ties: int
    p: float | None

    def record(self) -> dict:
        return dict(self.__dict__)


def pair_counts(con, campaign: str) -> list[PairCount]:
    """Preferences per unordered pair of runs (oriented alphabetically: `left` counts wins of
    the first run, whichever side it was shown on)."""
    from ..stats.special import binomial_two_sided_half
    rows = con.execute("""
        SELECT least(p.left_run, p.right_run) AS x, greatest(p.left_run, p.right_run) AS y,
               count(*) FILTER (WHERE (p.preference = 'left') = (p.left_run < p.right_run)
                                AND p.preference <> 'tie') AS x_wins,
               count(*) FILTER (WHERE (p.preference = 'left') <> (p.left_run < p.right_run)
                                AND p.preference <> 'tie') AS y_wins,
               count(*) FILTER (WHERE p.preference = 'tie') AS ties
        FROM preference p JOIN campaign c USING (campaign_id)
        WHERE c.name = ? GROUP BY ALL ORDER BY x, y""", [campaign]).fetchall()
    if not rows:
        raise WarehouseError(f"campaign {campaign!r} has no preferences "
                             "(irw ingest preferences)")
    return [PairCount(x, y, xw, yw, t, binomial_two_sided_half(xw, xw + yw) if xw + yw else None)
            for x, y, xw, yw, t in rows]


@dataclass(frozen=True)
class PredictivePower:
    measure: str
    preferences: int
    agree: int
    disagree: int
    metric_ties: int
    people_ties: int
    unscored: int
    predictive_power: float | None
    p: float | None

    def record(self) -> dict:
        return dict(self.__dict__)


def predictive_power(con, campaign: str, measures: list[str] | None = None,
                     qrels: str | None = None) -> list[PredictivePower]:
    """From stored scores (topic_score) and the campaign's preferences; every stored measure
    when `measures` is None."""
    from ..stats.special import binomial_two_sided_half
    stored = [m for (m,) in con.execute("""
        SELECT DISTINCT measure FROM topic_score WHERE campaign = ? ORDER BY measure""",
                                        [campaign]).fetchall()]
    measures = measures or stored
    missing = [m for m in measures if m not in stored]
    if missing:
        raise WarehouseError(f"no stored scores of {missing[0]!r} in campaign {campaign!r} "
                             "(evaluate with --store first)")
    out = []
    for m in measures:
        qrels_used = con.execute("SELECT DISTINCT qrels FROM topic_score WHERE campaign = ? AND "
                                 "measure = ? AND (? IS NULL OR qrels = ?)",
                                 [campaign, m, qrels, qrels]).fetchall()
        if len(qrels_used) > 1:
            raise WarehouseError(f"scores of {m!r} are stored for several qrels; choose one "
                                 "with --qrels")
        row = con.execute("""
            WITH s AS (
                SELECT run, topic, value FROM topic_score
                WHERE campaign = $c AND measure = $m AND ($q IS NULL OR qrels = $q)
            ),
            d AS (
                SELECT p.preference, l.value - r.value AS diff
                FROM preference p JOIN campaign c USING (campaign_id)
                LEFT JOIN s l ON l.run = p.left_run AND l.topic = p.topic
                LEFT JOIN s r ON r.run = p.right_run AND r.topic = p.topic
                WHERE c.name = $c
            )
            SELECT count(*) FILTER (WHERE preference <> 'tie' AND diff IS NOT NULL),
                   count(*) FILTER (WHERE (preference = 'left' AND diff > 0)
                                       OR (preference = 'right' AND diff < 0)),
                   count(*) FILTER (WHERE (preference = 'left' AND diff < 0)
                                       OR (preference = 'right' AND diff > 0)),
                   count(*) FILTER (WHERE preference <> 'tie' AND diff = 0),
                   count(*) FILTER (WHERE preference = 'tie'),
                   count(*) FILTER (WHERE preference <> 'tie' AND diff IS NULL)
            FROM d""", {"c": campaign, "m": m, "q": qrels}).fetchone()
        n, agree, disagree, mties, pties, unscored = row
        if n == 0 and pties == 0 and unscored == 0:
            raise WarehouseError(f"campaign {campaign!r} has no preferences "
                                 "(irw ingest preferences)")
        out.append(PredictivePower(m, n, agree, disagree, mties, pties, unscored,
                                   agree / n if n else None,
                                   binomial_two_sided_half(agree, agree + disagree)
                                   if agree + disagree else None))
    return out
