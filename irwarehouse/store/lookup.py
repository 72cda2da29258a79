"""Names a user gives, looked up in the warehouse: a campaign's qrels by name (one place for the
query and its errors, shared by the API, `--engine spark --store` and the online measures)."""

from __future__ import annotations

from ..errors import WarehouseError


def campaign_qrels(con, campaign: str, name: str | None) -> list[tuple[int, str]]:
    """(qrels_id, name) of the campaign's qrels called `name`, or of all of them (None)."""
    return con.execute("""
        SELECT q.qrels_id, q.name FROM qrels q JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND (? IS NULL OR q.name = ?) ORDER BY q.qrels_id""",
                       [campaign, name, name]).fetchall()


def several_qrels(campaign: str, rows: list[tuple[int, str]]) -> WarehouseError:
    return WarehouseError(f"campaign {campaign!r} has several qrels "
                          f"({', '.join(r[1] for r in rows)}); choose one with --qrels")


def qrels_id(con, campaign: str, name: str | None = None) -> int:
    """The qrels named, or the campaign's only one; an error naming the choices when it has
    several and none is named."""
    rows = campaign_qrels(con, campaign, name)
    if not rows:
        raise WarehouseError(f"no {'qrels ' + repr(name) if name else 'qrels'} in campaign "
                             f"{campaign!r}")
    if len(rows) > 1:
        raise several_qrels(campaign, rows)
    return rows[0][0]


def named_id(con, kind: str, cid: int, name: str, campaign: str) -> int:
    """The id of run or qrels `name` of campaign `cid` (`kind` is a validated table name:
    'run' or 'qrels', whose key is <kind>_id); an error naming it when there is none."""
    found = con.execute(f"SELECT {kind}_id FROM {kind} WHERE campaign_id = ? AND name = ?",
                        [cid, name]).fetchone()
    if found is None:
        raise WarehouseError(f"no {kind} {name!r} in campaign {campaign!r}")
    return found[0]
