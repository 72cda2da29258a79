"""The campaign profile (`irw campaign set`, table campaign_profile): the qrels and evaluation
options a campaign is evaluated with unless a request says otherwise. Its columns are those the
declaration of the options names (irwarehouse.options.OPTIONS, `profile`); the metric
macros read the same table for their defaults (irwarehouse.store.macros)."""

from __future__ import annotations

from ..errors import WarehouseError
from ..options import OPTIONS, EvalSettings
from ..store import digests
from ..store.ingest import campaign_id, transaction

PROFILE = "the campaign's profile"
_STORED = tuple(o for o in OPTIONS if o.field != "qrels")      # the qrels are kept by id
_COLUMNS = tuple(o.profile for o in _STORED)


def load_profile(con, campaign: str) -> EvalSettings:
    """The campaign's profile (empty settings when none is set, the campaign is unknown, or a
    warehouse older than profiles is read read-only), each field marked as coming from the
    profile."""
    # a table of a warehouse, or a view (an export's tables are views over its Parquet files:
    # spark.export.exported_profile); duckdb_tables() then duckdb_views(), not
    # information_schema.tables (a view over every catalog entry: 6 ms)
    if not (con.execute("SELECT count(*) FROM duckdb_tables() "
                        "WHERE table_name = 'campaign_profile'").fetchone()[0]
            or con.execute("SELECT count(*) FROM duckdb_views() "
                           "WHERE view_name = 'campaign_profile'").fetchone()[0]):
        return EvalSettings()
    row = con.execute(f"""
        SELECT q.name, {', '.join('p.' + c for c in _COLUMNS)}
        FROM campaign_profile p JOIN campaign c USING (campaign_id)
        LEFT JOIN qrels q ON q.qrels_id = p.qrels_id
        WHERE c.name = ?""", [campaign]).fetchall()
    if not row:
        return EvalSettings()
    values = dict(zip(["qrels", *(o.field for o in _STORED)], row[0]))
    return EvalSettings(**values).given(PROFILE)


def save_profile(con, campaign: str, settings: EvalSettings) -> EvalSettings:
    """Set the given fields of the campaign's profile (the others are kept); validated first
    (the qrels exist, the gains parse, the options make an EvalOptions). Returns the profile."""
    from ..measures import parse_cutoffs, parse_gains
    cid = campaign_id(con, campaign)
    merged = settings.over(load_profile(con, campaign))
    qrels_id = None
    if merged.qrels is not None:
        row = con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ? AND name = ?",
                          [cid, merged.qrels]).fetchall()
        if not row:
            names = [n for (n,) in con.execute(
                "SELECT name FROM qrels WHERE campaign_id = ? ORDER BY name", [cid]).fetchall()]
            raise WarehouseError(f"no qrels {merged.qrels!r} in campaign {campaign!r} "
                                 f"(it has: {', '.join(names) or 'none'})")
        qrels_id = row[0][0]
    merged.eval_options()                   # refuses bad gains, order, depth, version
    if merged.cutoffs is not None:
        parse_cutoffs(merged.cutoffs)
    gain_map = parse_gains(merged.gains, monotone=False) if merged.gains else None
    values = [getattr(merged, o.field) for o in _STORED]
    with transaction(con, f"the profile of campaign {campaign}"):
        digests.delete(con, "campaign_profile", "campaign_id = ?", [cid])
        con.execute(f"INSERT INTO campaign_profile (campaign_id, qrels_id, {', '.join(_COLUMNS)},"
                    f" gain_map) VALUES (?, ?, {', '.join('?' * len(_COLUMNS))}, "
                    "map(?::INTEGER[], ?::DOUBLE[]))",
                    [cid, qrels_id, *values, list(gain_map or {}) if gain_map is not None
                     else None, list((gain_map or {}).values()) if gain_map is not None
                     else None])
        digests.touch(con, "campaign_profile", "campaign_id = ?", [cid])
    return merged


def clear_profile(con, campaign: str) -> bool:
    """Remove the campaign's profile; whether there was one."""
    cid = campaign_id(con, campaign)
    had = con.execute("SELECT count(*) FROM campaign_profile WHERE campaign_id = ?",
                      [cid]).fetchall()[0][0]
    with transaction(con, f"the clearing of the profile of campaign {campaign}"):
        digests.delete(con, "campaign_profile", "campaign_id = ?", [cid])
    return bool(had)


def effective(con, campaign: str, given: EvalSettings | None) -> tuple[EvalSettings, bool]:
    """The settings a request uses on `campaign`: the given ones over the profile; and whether
    the profile contributed."""
    settings = (given or EvalSettings()).over(load_profile(con, campaign))
    return settings, bool(settings.from_source(PROFILE))
