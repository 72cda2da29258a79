"""Stored scores of an older version, re-keyed: scores used to be filed under the spelling that
asked for them (AP and map apart, nDCG@10 and ndcg_cut_10 apart) with their options as one text
(`l=1;J=0;M=;c=0;order=score;v=9`). They are now keyed by the measure's canonical name and the
options as columns (sql/schema.sql, `score`). Done on the first read-write open by this version,
inside the upgrade's transaction (store.connection.upgrade): every row keeps its value; rows of
two spellings of one measure for the same run, topic, qrels and options (the same definition,
so the same value) become one, the newest."""

from __future__ import annotations

from ..errors import IrwError
from ..options import SQL_OPTIONS, parse_described

_COLUMNS = [o.sql for o in SQL_OPTIONS]


def rekey_scores(con) -> tuple[int, int]:
    """Re-key the ranked-list scores that have no option columns yet; (rows re-keyed, rows
    merged into a row of another spelling)."""
    from ..measures import NtcirSettings, parse_measures
    groups = con.execute("""
        SELECT measure, options, count(*) FROM score
        WHERE relevance_level IS NULL AND options LIKE 'l=%'
        GROUP BY measure, options ORDER BY measure, options""").fetchall()
    rekeyed = 0
    for spelling, text, count in groups:
        try:
            opts = parse_described(text)
            requests = parse_measures([spelling], version=opts.version,
                                      ntcir=NtcirSettings(gains=dict(opts.gains)))
        except IrwError:                # a name this version no longer reads: its options
            requests = []               # become columns, its name stays
        if len(requests) == 1:
            req = requests[0]
            own = req.eval_options(opts)
            name, cutoff = req.stored_name(dict(opts.gains)), req.cutoff_value
        else:
            own, name, cutoff = opts, spelling, None
        values = own.sql_values()
        gains = values.pop("gains")
        assignments = ", ".join(f"{c} = ${c}" for c in values)
        con.execute(f"""
            UPDATE score SET measure = $name, spelling = $spelling, options = $own_text,
                   cutoff = $cutoff, gains = map($gk::INTEGER[], $gv::DOUBLE[]), {assignments}
            WHERE measure = $spelling AND options = $text AND relevance_level IS NULL""",
                    {"name": name, "spelling": spelling, "own_text": own.describe(),
                     "cutoff": float(cutoff) if isinstance(cutoff, (int, float)) else None,
                     "gk": list(gains), "gv": list(gains.values()), "text": text, **values})
        rekeyed += count
    merged = _merge_spellings(con) if rekeyed else 0
    return rekeyed, merged


def _merge_spellings(con) -> int:
    """Keep one row per key (the newest) where two spellings stored the same measure."""
    key = ", ".join(["run_id", "qrels_id", "topic", "measure", *_COLUMNS])
    before = con.execute("SELECT count(*) FROM score").fetchone()[0]
    con.execute(f"""
        DELETE FROM score WHERE rowid IN (
            SELECT rid FROM (
                SELECT rowid AS rid,
                       row_number() OVER (PARTITION BY {key}
                                          ORDER BY computed_at DESC, rowid DESC) AS n
                FROM score WHERE relevance_level IS NOT NULL)
            WHERE n > 1)""")
    return before - con.execute("SELECT count(*) FROM score").fetchone()[0]


def backfill_gain_maps(con) -> int:
    """Profiles saved before campaign_profile had gain_map: their gains as a table; how many."""
    from ..measures import parse_gains
    stale = con.execute("SELECT campaign_id, gains FROM campaign_profile "
                        "WHERE gains IS NOT NULL AND gain_map IS NULL").fetchall()
    for cid, gains in stale:
        table = parse_gains(gains, monotone=False)
        con.execute("UPDATE campaign_profile SET gain_map = map(?::INTEGER[], ?::DOUBLE[]) "
                    "WHERE campaign_id = ?", [list(table), list(table.values()), cid])
    return len(stale)
