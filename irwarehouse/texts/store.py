"""Text outputs and references in the warehouse: ingest (TSV files or a ROUGE configuration),
the SQL macros of sql/texts/, ROUGE from stored tokens, and scores into `score`.

TSV inputs (UTF-8, one sentence per line; several lines with the same keys are the sentences
of one text, in order):
    outputs     topic <TAB> run <TAB> text
    references  topic <TAB> ref_id <TAB> text
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import InputError, WarehouseError
from ..formats.trec import tsv_lines
from ..store import digests
from ..store.ingest import campaign_id, check_name, replace_named, transaction
from ..store.relevant import TABLES as RELEVANT_TABLES
from .porter import rouge_stem
from .rougetext import (
    TokenOptions,
    clean_tokens,
    keep_token,
    lower_ascii,
    perl_split,
    smart_stopwords,
)


def install_text_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Make sure the macros of sql/texts/ exist: a warehouse file has them (its upgrade creates
    them with the metric macros, irwarehouse.store.connection); an in-memory one gets them
    here."""
    from ..store.connection import install_domain_macros
    install_domain_macros(con, "texts")


# -- tokens ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenRow:
    sentence: int
    word_no: int
    pos: int
    token: str
    stem: str
    is_stop: bool


def tokenise(sentences: list[str], byte_limit: int = 0) -> list[TokenRow]:
    """ROUGE's tokens of a text given as sentences (str; ROUGE's byte semantics are kept by
    working on the UTF-8 bytes read as Latin-1). word_no numbers ROUGE's whitespace words
    across sentences (its -l counts them, the leading empty field of an indented line too)."""
    raw = [lower_ascii(s.encode("utf-8").decode("latin-1")) for s in sentences if s]
    if byte_limit:
        from .rougetext import truncate
        raw = truncate(raw, 0, byte_limit)
    rows: list[TokenRow] = []
    word_no = 0
    stop = smart_stopwords()
    everything = TokenOptions()
    for k, sentence in enumerate(raw):
        for word in perl_split(sentence):
            for token in clean_tokens(word):
                if keep_token(token, everything) is None:
                    continue
                stem = rouge_stem(token) if len(token) > 3 else token
                rows.append(TokenRow(k, word_no, len(rows), token, stem, token in stop))
            word_no += 1
    return rows


def non_white_chars(sentences: list[str]) -> int:
    return sum(1 for s in sentences for ch in s if not ch.isspace())


# -- reading TSV -------------------------------------------------------------------------------
def read_text_tsv(path: Path, key_name: str) -> dict[tuple[str, str], list[str]]:
    """`topic <TAB> key <TAB> text` lines -> {(topic, key): [sentences in order]}."""
    texts: dict[tuple[str, str], list[str]] = {}
    for number, fields in tsv_lines(path):
        if len(fields) != 3:
            raise InputError(path, number, f"expected 3 tab-separated fields (topic, "
                             f"{key_name}, text), found {len(fields)}")
        topic, key, body = fields[0].strip(), fields[1].strip(), fields[2]
        if not topic or not key:
            raise InputError(path, number, f"empty topic or {key_name}")
        texts.setdefault((topic, key), []).append(body)
    if not texts:
        raise InputError(path, None, "no text lines")
    return texts


# -- writing -----------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            digest.update(block)
    return digest.hexdigest()


def store_outputs(con, campaign: str, outputs: dict[tuple[str, str], list[str]], source: str,
                  digest: str, *, replace: bool = False, byte_limit: int = 0) -> list[str]:
    """Write run outputs {(topic, run): sentences} (inside the caller's transaction);
    returns the run names."""
    cid = campaign_id(con, campaign, create=True)
    runs = sorted({run for _, run in outputs})
    ids = {}
    for run in runs:
        check_name("run", run)
        row = con.execute("SELECT run_id FROM run WHERE campaign_id = ? AND name = ?",
                          [cid, run]).fetchone()
        if row:
            has_text = con.execute("SELECT count(*) FROM text_output WHERE run_id = ?",
                                   [row[0]]).fetchone()[0]
            if has_text and not replace:
                raise WarehouseError(f"{source}: run {run!r} already has text outputs in "
                                     f"campaign {campaign!r} (use --replace to replace them)")
            for table in ("text_output", "text_length", "score"):
                digests.delete(con, table, "run_id = ?", [row[0]])
            digests.delete(con, "text_token", "source = 'run' AND owner_id = ?", [row[0]])
            ids[run] = row[0]
        else:
            n = sum(1 for _, r in outputs if r == run)
            ids[run] = con.execute(
                "INSERT INTO run (campaign_id, name, source_path, sha256, num_rows) "
                "VALUES (?, ?, ?, ?, ?) RETURNING run_id", [cid, run, source, digest, n]
            ).fetchone()[0]
    body_rows, token_rows, length_rows = [], [], []
    for (topic, run), sentences in outputs.items():
        rid = ids[run]
        body_rows += [(rid, topic, k, s) for k, s in enumerate(sentences)]
        length_rows.append((rid, topic, non_white_chars(sentences)))
        token_rows += [("run", rid, topic, "", t.sentence, t.word_no, t.pos, t.token, t.stem,
                        t.is_stop) for t in tokenise(sentences, byte_limit)]
    _insert(con, "text_output", body_rows)
    _insert(con, "text_length", length_rows)
    _insert(con, "text_token", token_rows)
    con.execute("INSERT OR IGNORE INTO topic (campaign_id, topic) SELECT DISTINCT ?, topic "
                "FROM text_output o JOIN run r USING (run_id) WHERE r.campaign_id = ?", [cid, cid])
    digests.touch_owner(con, "run_id", list(ids.values()))
    digests.touch(con, "text_token", "source = 'run' AND list_contains($ids, owner_id)",
                  {"ids": list(ids.values())})
    digests.touch(con, "topic", "campaign_id = ?", [cid])
    return runs


def store_references(con, campaign: str, name: str, refs: dict[tuple[str, str], list[str]],
                     source: str, digest: str, *, replace: bool = False,
                     byte_limit: int = 0) -> int:
    """Write a reference set {(topic, ref_id): sentences} as a qrels row (format
    'text_references'); returns its qrels_id."""
    cid = campaign_id(con, campaign, create=True)
    check_name("reference set", name)
    old = replace_named(con, "qrels", cid, name, kind="reference set", campaign=campaign,
                        source=source, replace=replace,
                        dependents=("text_reference", "score", "judgment", "judged_row",
                                    "judged_pair", *RELEVANT_TABLES, "qrels"))
    if old is not None:
        digests.delete(con, "text_token", "source = 'ref' AND owner_id = ?", [old])
    qid = con.execute(
        "INSERT INTO qrels (campaign_id, name, format, source_path, sha256, num_rows) "
        "VALUES (?, ?, 'text_references', ?, ?, ?) RETURNING qrels_id",
        [cid, name, source, digest, len(refs)]).fetchone()[0]
    order: dict[str, int] = {}
    body_rows, token_rows = [], []
    for (topic, ref_id), sentences in refs.items():
        ref_no = order.setdefault(f"{topic}\t{ref_id}", len(order))
        body_rows += [(qid, topic, ref_id, ref_no, k, s) for k, s in enumerate(sentences)]
        token_rows += [("ref", qid, topic, ref_id, t.sentence, t.word_no, t.pos, t.token,
                        t.stem, t.is_stop) for t in tokenise(sentences, byte_limit)]
    _insert(con, "text_reference", body_rows)
    _insert(con, "text_token", token_rows)
    digests.touch_owner(con, "qrels_id", [qid])
    digests.touch(con, "text_token", "source = 'ref' AND owner_id = ?", [qid])
    return qid


def _insert(con, table: str, rows: list[tuple]) -> None:
    """Insert rows through Arrow (one INSERT ... SELECT per table)."""
    if not rows:
        return
    import pyarrow as pa
    columns = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
    arrow = pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns[:len(rows[0])])})
    from ..store.connection import registered
    with registered(con, "irw_text_stage", arrow):
        names = ", ".join(arrow.column_names)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM irw_text_stage")


# -- ingest entry points -----------------------------------------------------------------------
def ingest_text_file(con, path: Path, campaign: str, kind: str, *, name: str | None = None,
                     replace: bool = False, byte_limit: int = 0) -> str:
    """`irw ingest texts`: a TSV of outputs or references, or a ROUGE configuration (both).
    Returns a one-line summary."""
    path = Path(path)
    name = path.name if name is None else name
    if path.suffix.lower() == ".xml" or kind == "rouge-config":
        from .rouge_config import read_config
        config = read_config(path)
        outputs, refs = config_texts(config)
        with transaction(con, f"the texts of {path.name} in campaign {campaign}"):
            runs = store_outputs(con, campaign, outputs, str(path.resolve()), _sha256(path),
                                 replace=replace, byte_limit=byte_limit)
            store_references(con, campaign, name, refs, str(path.resolve()), _sha256(path),
                             replace=replace, byte_limit=byte_limit)
        return (f"ingested {len(outputs)} outputs of {len(runs)} runs and {len(refs)} "
                f"references ({name}) from {path} into campaign {campaign}")
    if kind == "outputs":
        outputs = read_text_tsv(path, "run")
        with transaction(con, f"the outputs of {path.name} in campaign {campaign}"):
            runs = store_outputs(con, campaign, outputs, str(path.resolve()), _sha256(path),
                                 replace=replace, byte_limit=byte_limit)
        return f"ingested {len(outputs)} outputs of {len(runs)} runs from {path} into " \
               f"campaign {campaign}"
    if kind == "references":
        refs = read_text_tsv(path, "ref_id")
        with transaction(con, f"the references of {path.name} in campaign {campaign}"):
            store_references(con, campaign, name, refs, str(path.resolve()), _sha256(path),
                             replace=replace, byte_limit=byte_limit)
        return f"ingested {len(refs)} references ({name}) from {path} into " \
               f"campaign {campaign}"
    raise WarehouseError(f"unknown kind of texts {kind!r} (outputs, references, rouge-config)")


def config_texts(config) -> tuple[dict, dict]:
    """The peers and models of a ROUGE configuration as outputs and references (SPL/SEE/ISI
    sentences; topic = the EVAL ID, run = the peer ID, ref_id = the model ID)."""
    outputs: dict = {}
    refs: dict = {}
    for ev in config.evaluations:
        fmt = (ev.input_format or "SPL").upper()
        for peer_id in ev.peers:
            outputs[(ev.eval_id, peer_id)] = _summary_text(config.peer_path(ev, peer_id), fmt)
        for model_id, path in zip(ev.models, config.model_paths(ev)):
            refs[(ev.eval_id, model_id)] = _summary_text(path, fmt)
    return outputs, refs


def _summary_text(path: Path, fmt: str) -> list[str]:
    """The sentences of a summary, as text to store: refused, with file and line, for the
    characters the TSV readers refuse (NUL, control characters; a summary that is not UTF-8
    is read as Latin-1, where the bytes 0x80-0x9f are C1 control characters)."""
    from ..formats.lines import BOM, character_problem, read_whole
    from .rougetext import read_sentences
    data = read_whole(path, "summary")
    text = _as_text([data.decode("latin-1")])[0]
    for lineno, line in enumerate(text.removeprefix(BOM).split("\n"), 1):
        problem = character_problem(line)
        if problem:
            latin1 = text.encode("utf-8") != data
            raise InputError(path, lineno, problem + (" (the file is not UTF-8, so it is read "
                                                      "as Latin-1; convert it to UTF-8)"
                                                      if latin1 else ""))
    return _as_text(read_sentences(path, fmt, lower=False))


def _as_text(sentences: list[str]) -> list[str]:
    """Sentences read as Latin-1 bytes back to text (UTF-8 when it decodes)."""
    out = []
    for s in sentences:
        raw = s.encode("latin-1")
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(s)
    return out
