"""SCU annotations for the pyramid method (Nenkova & Passonneau, NAACL 2004) in the warehouse:
`irw ingest pyramid -C C --name P --scus FILE [--peers FILE]`, evaluated by the macro
irw_pyramid (sql/texts/pyramid.sql) through `irw nuggets --nuggets P -m pyramid`.

Tab-separated inputs ('#' lines and blank lines are skipped):
  --scus   topic  scu  model  [label]   model summary `model` expresses SCU `scu` (one line per
                                        pair); an SCU's weight = its number of models
  --peers  topic  run  scu              run's summary of the topic has a content unit that
                                        expresses SCU `scu`, or `-` for a unit that matches no
                                        SCU (weight 0, it counts in the peer's SCU total X)

Every error names the file and the line; nothing is stored unless everything is valid (one
transaction).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, WarehouseError
from ..store import digests
from ..store.ingest import campaign_id, check_name, transaction
from .nuggets import _rows, _run_id
from .store import _insert, _sha256

NO_SCU = "-"


def ingest_pyramid(con, campaign: str, name: str, scus: Path | None = None,
                   peers: Path | None = None, *, replace: bool = False) -> str:
    """Store a pyramid (its SCUs and their models) and/or runs' peer annotations against it, in
    one transaction. Returns a one-line summary."""
    check_name("pyramid", name)
    if scus is None and peers is None:
        raise WarehouseError("give the pyramid's SCUs (--scus) and/or peer annotations "
                             "(--peers)")
    parts = []
    with transaction(con, f"pyramid {name} of campaign {campaign}"):
        cid = campaign_id(con, campaign, create=scus is not None)
        row = con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ? AND name = ? "
                          "AND format = 'pyramid'", [cid, name]).fetchone()
        if scus is not None:
            qid = _store_scus(con, cid, name, Path(scus), row[0] if row else None, replace)
            parts.append("SCUs")
        elif row:
            qid = row[0]
        else:
            raise WarehouseError(f"no pyramid {name!r} in campaign {campaign!r} (give its "
                                 "SCUs with --scus)")
        if peers is not None:
            n = _store_peers(con, cid, qid, Path(peers))
            parts.append(f"peer annotations of {n} runs")
    return f"ingested {' and '.join(parts)} of pyramid {name} into campaign {campaign}"


def _store_scus(con, cid: int, name: str, path: Path, old, replace: bool) -> int:
    if old and not replace:
        raise WarehouseError(f"{path}: pyramid {name!r} exists (use --replace)")
    if old:
        for table in ("pyramid_scu", "pyramid_peer", "score", "qrels"):
            digests.delete(con, table, "qrels_id = ?", [old])
    rows, seen = [], set()
    for number, fields in _rows(path, (3, 4)):
        topic, scu, model = (f.strip() for f in fields[:3])
        label = fields[3].strip() if len(fields) == 4 else ""
        if not topic or not scu or not model:
            raise InputError(path, number, "empty topic, SCU or model")
        if scu == NO_SCU:
            raise InputError(path, number, f"{NO_SCU!r} is no SCU id (it marks a peer unit "
                             "that matches no SCU)")
        if (topic, scu, model) in seen:
            raise InputError(path, number, f"SCU {scu} of topic {topic} is given twice for "
                             f"model {model}")
        seen.add((topic, scu, model))
        rows.append((topic, scu, model, label))
    if not rows:
        raise InputError(path, None, "no SCU lines")
    qid = con.execute("INSERT INTO qrels (campaign_id, name, format, source_path, sha256, "
                      "num_rows) VALUES (?, ?, 'pyramid', ?, ?, ?) RETURNING qrels_id",
                      [cid, name, str(path.resolve()), _sha256(path), len(rows)]).fetchone()[0]
    _insert(con, "pyramid_scu", [(qid,) + r for r in rows])
    for table in ("qrels", "pyramid_scu"):
        digests.touch(con, table, "qrels_id = ?", [qid])
    return qid


def _store_peers(con, cid: int, qid: int, path: Path) -> int:
    known = {(t, s) for t, s in con.execute(
        "SELECT DISTINCT topic, scu FROM pyramid_scu WHERE qrels_id = ?", [qid]).fetchall()}
    topics = {t for t, _ in known}
    runs: dict[str, int] = {}
    rows, seen, order = [], set(), 0
    for number, fields in _rows(path, (3,)):
        topic, run, scu = (f.strip() for f in fields)
        if not topic or not run or not scu:
            raise InputError(path, number, "empty topic, run or SCU")
        if topic not in topics:
            raise InputError(path, number, f"topic {topic} has no SCUs in the pyramid")
        if scu != NO_SCU and (topic, scu) not in known:
            raise InputError(path, number, f"SCU {scu} is not in the pyramid of topic {topic} "
                             f"(write {NO_SCU} for a unit that matches no SCU)")
        if scu != NO_SCU and (topic, run, scu) in seen:
            raise InputError(path, number, f"SCU {scu} is given twice for run {run} topic "
                             f"{topic} (an SCU counts once per summary)")
        seen.add((topic, run, scu))
        rid = _run_id(con, cid, run, runs, path)
        order += 1
        rows.append((rid, qid, topic, order, None if scu == NO_SCU else scu))
    if not rows:
        raise InputError(path, None, "no peer annotation lines")
    for rid in runs.values():   # a run's new annotation replaces its old one
        digests.delete(con, "pyramid_peer", "run_id = ? AND qrels_id = ?", [rid, qid])
    _insert(con, "pyramid_peer", rows)
    digests.touch(con, "pyramid_peer", "qrels_id = ?", [qid])
    digests.touch(con, "run", "list_contains($ids, run_id)", {"ids": list(runs.values())})
    return len(runs)
