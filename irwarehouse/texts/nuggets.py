"""Nugget and iUnit sets in the warehouse (`irw ingest nuggets`) and their evaluation with the
macros of sql/texts/nuggets.sql and iunits.sql (`irw nuggets`), which also evaluates BLEU against
a reference set (sql/texts/bleu.sql) and the pyramid score against a pyramid of SCUs
(sql/texts/pyramid.sql, `irw ingest pyramid`).

Tab-separated inputs ('#' lines and blank lines are skipped):
  --gold         topic  unit  weight  text        weight: a number, or vital / okay (1 / 0)
  --matches      topic  run  unit  [end_offset|-  [support]]
                 end_offset: end of the match in the output, in characters without
                 whitespace (S, T, S#, U); support: support (default) | partial_support
  --lengths      topic  run  length               output length without whitespace
  --intents      topic  intent  probability       and  topic  intent  unit  importance
  --mobileclick  topic  run  layer  seq  kind  unit  length
                 layer '-' = the first layer, else the intent of a second layer;
                 kind iunit | link (a link's unit is the intent it opens)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, WarehouseError
from ..failures import shown
from ..formats.numbers import number_problem
from ..formats.trec import tsv_lines
from ..store import digests
from ..store.ingest import campaign_id, check_name, transaction
from .store import _insert, _sha256, tokenise

# name -> (macro, fixed arguments, parameters a user may set)
MEASURES = {
    "nuggetF": ("irw_nugget_f", {}, ("beta", "allowance")),
    "nuggetF_trec2003": ("irw_nugget_f", {"beta": 5.0}, ("allowance",)),
    "nuggetF_trec2004": ("irw_nugget_f", {"beta": 3.0}, ("allowance",)),
    "POURPRE": ("irw_pourpre", {}, ("beta", "allowance", "stem_tokens")),
    "S": ("irw_s_measure", {}, ("patience",)),
    "T": ("irw_t_measure", {}, ()),
    "S#": ("irw_s_sharp", {}, ("patience", "beta")),
    "U-iUnit": ("irw_u_iunit", {}, ("patience",)),
    "M": ("irw_m_measure", {}, ("patience",)),
    "strict_vital": ("irw_nuggetizer", {"variant": "strict_vital"}, ("partial",)),
    "strict_all": ("irw_nuggetizer", {"variant": "strict_all"}, ("partial",)),
    "vital": ("irw_nuggetizer", {"variant": "vital"}, ("partial",)),
    "all": ("irw_nuggetizer", {"variant": "all"}, ("partial",)),
    "BLEU": ("irw_bleu", {}, ("lowercase", "max_order", "smooth_method", "smooth_value",
                              "effective_order", "tokenize")),
    "BLEU_corpus": ("irw_bleu_corpus", {}, ("lowercase", "max_order", "smooth_method",
                                            "smooth_value", "effective_order", "tokenize")),
    "pyramid": ("irw_pyramid", {}, ("variant",)),
    "pyramid_modified": ("irw_pyramid", {"variant": "modified"}, ()),
}
# the macro parameter naming the set a measure reads (default: nuggets := ...)
SET_PARAMETER = {"irw_bleu": "refs", "irw_bleu_corpus": "refs", "irw_pyramid": "pyramid"}
# measures whose one row per run (topic 'all') is no per-topic value: never stored in `score`
CORPUS_LEVEL = ("BLEU_corpus",)
# parameters given as words, not numbers
_WORD_PARAMETERS = ("smooth_method", "tokenize", "variant")
_INTEGER_PARAMETERS = ("max_order",)


def _rows(path: Path, widths: tuple[int, ...]):
    """(line number, fields) of a TSV whose lines have one of the given field counts."""
    for number, fields in tsv_lines(Path(path)):
        if len(fields) not in widths:
            want = " or ".join(map(str, widths))
            raise InputError(path, number, f"expected {want} tab-separated fields, found "
                             f"{len(fields)}")
        yield number, [f.strip() for f in fields[:-1]] + [fields[-1]]


def _number(path, number: int, text: str, what: str, integer: bool = False) -> float:
    """A number >= 0 by the rule of every file kind (formats.numbers)."""
    if number_problem(text, what, integer=integer):
        raise InputError(path, number, f"{what} is not a number: {shown(text)}")
    value = int(text) if integer else float(text)
    if value < 0:
        raise InputError(path, number, f"{what} must be a finite number >= 0: {shown(text)}")
    return value


@dataclass
class NuggetFiles:
    gold: Path | None = None
    matches: Path | None = None
    lengths: Path | None = None
    intents: Path | None = None
    mobileclick: Path | None = None


def ingest_nuggets(con, campaign: str, name: str, files: NuggetFiles, *,
                   replace: bool = False) -> str:
    """Store a nugget set and/or runs' matches, lengths and MobileClick outputs against it,
    in one transaction. Returns a one-line summary."""
    check_name("nugget set", name)
    with transaction(con, f"nugget set {name} of campaign {campaign}"):
        cid = campaign_id(con, campaign, create=files.gold is not None)
        row = con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ? AND name = ? "
                          "AND format = 'nuggets'", [cid, name]).fetchone()
        parts = []
        if files.gold is not None:
            qid = _store_gold(con, cid, name, files.gold, row[0] if row else None, replace)
            parts.append("gold units")
        elif row:
            qid = row[0]
        else:
            raise WarehouseError(f"no nugget set {name!r} in campaign {campaign!r} "
                                 "(give its units with --gold)")
        gold = {(t, u) for t, u in con.execute(
            "SELECT topic, unit FROM nugget WHERE qrels_id = ?", [qid]).fetchall()}
        if files.intents is not None:
            _store_intents(con, qid, files.intents, gold)
            parts.append("intents")
        runs: dict[str, int] = {}
        if files.matches is not None:
            _store_matches(con, cid, qid, files.matches, gold, runs)
            parts.append("matches")
        if files.lengths is not None:
            _store_lengths(con, cid, files.lengths, runs)
            parts.append("lengths")
        if files.mobileclick is not None:
            _store_mobileclick(con, cid, qid, files.mobileclick, gold, runs)
            parts.append("MobileClick outputs")
        digests.touch_owner(con, "qrels_id", [qid])
        digests.touch_owner(con, "run_id", list(runs.values()))
        digests.touch(con, "text_token", "source = 'nugget' AND owner_id = ?", [qid])
    return f"ingested {', '.join(parts) or 'nothing'} of nugget set {name} into campaign " \
           f"{campaign}"


def _store_gold(con, cid: int, name: str, path: Path, old, replace: bool) -> int:
    if old and not replace:
        raise WarehouseError(f"{path}: nugget set {name!r} exists (use --replace)")
    if old:
        for table in ("nugget", "nugget_match", "nugget_intent", "mobileclick_element",
                      "score", "qrels"):
            digests.delete(con, table, "qrels_id = ?", [old])
        digests.delete(con, "text_token", "source = 'nugget' AND owner_id = ?", [old])
    units, seen = [], set()
    for number, (topic, unit, weight, body) in _rows(path, (4,)):
        if (topic, unit) in seen:
            raise InputError(path, number, f"unit {unit} of topic {topic} given twice")
        seen.add((topic, unit))
        label = weight.lower() if weight.lower() in ("vital", "okay") else None
        value = {"vital": 1.0, "okay": 0.0}[label] if label else \
            _number(path, number, weight, "weight")
        length = sum(1 for ch in body if not ch.isspace())
        units.append((topic, unit, value, label, body, length))
    if not units:
        raise InputError(path, None, "no units")
    qid = con.execute("INSERT INTO qrels (campaign_id, name, format, source_path, sha256, "
                      "num_rows) VALUES (?, ?, 'nuggets', ?, ?, ?) RETURNING qrels_id",
                      [cid, name, str(Path(path).resolve()), _sha256(Path(path)),
                       len(units)]).fetchone()[0]
    _insert(con, "nugget", [(qid,) + u for u in units])
    tokens = [("nugget", qid, topic, unit, t.sentence, t.word_no, t.pos, t.token, t.stem,
               t.is_stop) for topic, unit, _, _, body, _ in units for t in tokenise([body])]
    _insert(con, "text_token", tokens)
    return qid


def _run_id(con, cid: int, run: str, runs: dict[str, int], source: Path) -> int:
    if run not in runs:
        check_name("run", run)
        row = con.execute("SELECT run_id FROM run WHERE campaign_id = ? AND name = ?",
                          [cid, run]).fetchone()
        runs[run] = row[0] if row else con.execute(
            "INSERT INTO run (campaign_id, name, source_path, num_rows) VALUES (?, ?, ?, 0) "
            "RETURNING run_id", [cid, run, str(source.resolve())]).fetchone()[0]
    return runs[run]


def _check_unit(path, number, gold, topic, unit) -> None:
    if (topic, unit) not in gold:
        raise InputError(path, number, f"unit {unit} of topic {topic} is not in the gold set")


def _store_matches(con, cid, qid, path: Path, gold, runs) -> None:
    rows = []
    for number, fields in _rows(path, (3, 4, 5)):
        topic, run, unit = fields[0], fields[1], fields[2].strip()
        _check_unit(path, number, gold, topic, unit)
        offset = None
        if len(fields) > 3 and fields[3].strip() not in ("", "-"):
            offset = int(_number(path, number, fields[3].strip(), "end offset", integer=True))
        support = fields[4].strip() if len(fields) > 4 else "support"
        if support not in ("support", "partial_support", "not_support"):
            raise InputError(path, number, f"support must be support, partial_support or "
                             f"not_support: {support!r}")
        rows.append((_run_id(con, cid, run, runs, path), qid, topic, unit, offset, support))
    for run_id in {r[0] for r in rows}:
        digests.delete(con, "nugget_match", "run_id = ? AND qrels_id = ?", [run_id, qid])
    _insert(con, "nugget_match", rows)


def _store_lengths(con, cid, path: Path, runs) -> None:
    for number, (topic, run, length) in _rows(path, (3,)):
        n = int(_number(path, number, length.strip(), "length", integer=True))
        run_id = _run_id(con, cid, run, runs, path)
        con.execute("INSERT OR REPLACE INTO text_length VALUES (?, ?, ?)", [run_id, topic, n])


def _store_intents(con, qid, path: Path, gold) -> None:
    rows = []
    for number, fields in _rows(path, (3, 4)):
        if len(fields) == 3:
            p = _number(path, number, fields[2].strip(), "probability")
            rows.append((qid, fields[0], fields[1], "", None, p))
        else:
            _check_unit(path, number, gold, fields[0], fields[2])
            w = _number(path, number, fields[3].strip(), "importance")
            rows.append((qid, fields[0], fields[1], fields[2], w, None))
    digests.delete(con, "nugget_intent", "qrels_id = ?", [qid])
    _insert(con, "nugget_intent", rows)


def _store_mobileclick(con, cid, qid, path: Path, gold, runs) -> None:
    rows = []
    for number, (topic, run, layer, seq, kind, unit, length) in _rows(path, (7,)):
        kind = kind.strip()
        if kind not in ("iunit", "link"):
            raise InputError(path, number, f"kind must be iunit or link: {kind!r}")
        if kind == "iunit":
            _check_unit(path, number, gold, topic, unit)
        rows.append((_run_id(con, cid, run, runs, path), qid, topic,
                     "" if layer == "-" else layer,
                     int(_number(path, number, seq, "seq", integer=True)), kind, unit,
                     int(_number(path, number, length.strip(), "length", integer=True))))
    for run_id in {r[0] for r in rows}:
        digests.delete(con, "mobileclick_element", "run_id = ? AND qrels_id = ?",
                       [run_id, qid])
    _insert(con, "mobileclick_element", rows)


# -- evaluation --------------------------------------------------------------------------------
def parse_params(items: list[str]) -> dict[str, object]:
    """`name=value` pairs (numbers, or true/false)."""
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise WarehouseError(f"a parameter is name=value, got {item!r}")
        low = value.strip().lower()
        if low in ("true", "false"):
            out[key.strip()] = low == "true"
        elif key.strip() in _WORD_PARAMETERS:
            out[key.strip()] = value.strip()
        elif key.strip() in _INTEGER_PARAMETERS:
            try:
                out[key.strip()] = int(value)
            except ValueError:
                raise WarehouseError(f"parameter {key} needs an integer: {value!r}") from None
        else:
            try:
                out[key.strip()] = float(value)
            except ValueError:
                raise WarehouseError(f"parameter {key} needs a number: {value!r}") from None
    return out


def evaluate_nuggets(con, campaign: str, nuggets: str, measures: list[str],
                     params: dict[str, object]) -> list[tuple[str, str, str, float, str]]:
    """(measure, run, topic, value, params text) rows of the named measures."""
    from .store import install_text_macros
    install_text_macros(con)
    out = []
    for name in measures:
        if name not in MEASURES:
            raise WarehouseError(f"unknown nugget measure {name!r}; known: "
                                 f"{', '.join(MEASURES)}")
        macro, fixed, allowed = MEASURES[name]
        set_parameter = SET_PARAMETER.get(macro, "nuggets")
        args = {"campaign": campaign, set_parameter: nuggets} | fixed | {
            k: v for k, v in params.items() if k in allowed}
        names = ", ".join(f"{k} := ${k}" for k in args)
        shown = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in args.items() if k not in ("campaign", set_parameter))
        import duckdb
        try:
            rows = con.execute(f"SELECT run, topic, value FROM {macro}({names}) "
                               "ORDER BY run, topic", args).fetchall()
        except duckdb.InvalidInputException as exc:
            raise WarehouseError(str(exc).split("\n")[0].replace("Invalid Input Error: ", ""))
        out += [(name, run, topic, float(value), shown) for run, topic, value in rows]
    return out


def store_nugget_scores(con, campaign: str, nuggets: str, rows) -> int:
    """Write (measure, run, topic, value, params) rows into `score` (family 'nuggets')."""
    import hashlib

    corpus = sorted({r[0] for r in rows if r[0] in CORPUS_LEVEL})
    if corpus:
        raise WarehouseError(f"{', '.join(corpus)} is one value per run, not per topic: it is "
                             "not stored (store BLEU, the per-topic form)")

    from ..sqlfiles import sql_dir
    ids = dict(con.execute("SELECT r.name, r.run_id FROM run r JOIN campaign c "
                           "USING (campaign_id) WHERE c.name = ?", [campaign]).fetchall())
    qid = con.execute("SELECT q.qrels_id FROM qrels q JOIN campaign c USING (campaign_id) "
                      "WHERE c.name = ? AND q.name = ?", [campaign, nuggets]).fetchone()[0]
    sql = "".join((sql_dir() / "texts" / f).read_text()
                  for f in ("nuggets.sql", "iunits.sql", "bleu.sql", "pyramid.sql"))
    with transaction(con):
        for measure, params in {(r[0], r[4]) for r in rows}:
            digests.delete(con, "score", "qrels_id = ? AND measure = ? AND params = ?",
                           [qid, measure, params])
        con.executemany(
            "INSERT INTO score (run_id, qrels_id, topic, measure, family, params, options, "
            "value, definition_hash) VALUES (?, ?, ?, ?, 'nuggets', ?, '', ?, ?)",
            [(ids[run], qid, topic, measure, params, value,
              hashlib.sha256((sql + measure + params).encode()).hexdigest()[:16])
             for measure, run, topic, value, params in rows])
        digests.touch(con, "score", "qrels_id = ?", [qid])
    return len(rows)
