"""Reading and tokenising summaries exactly as ROUGE-1.5.5.pl does (Lin 2004).

ROUGE works on bytes: a file is read line by line, ASCII upper case is folded (`tr/A-Z/a-z/`),
the -l/-b length limit is applied to the raw sentences, then every character other than an
ASCII letter, digit or hyphen becomes a space and a hyphen becomes a token of its own. A token
counts only if it starts with a letter or digit (so hyphens drop out); with -s, tokens on the
SMART stopword list are dropped; with -m, tokens longer than 3 characters are stemmed
(WordNet exception, else Porter). Files are decoded as Latin-1 here so that one character is
one byte, as in Perl, and every regular expression is ASCII-only, as Perl's are on bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..errors import InputError
from ..formats.lines import read_whole
from .porter import rouge_stem

_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_PERL_SPACE = re.compile(r"[ \t\n\r\f\v]+")        # Perl's \s on a byte string
_NOT_WORD = re.compile(r"[^A-Za-z0-9\-]")
_SEE_LINE = re.compile(r'^<a (?:size="[0-9]+" )?name="[0-9]+">\[([0-9]+)\]</a>[ \t\n\r\f\v]+'
                       r'<a href="#[0-9]+" id=[0-9]+>([^<]+)')
_ISI_LINE = re.compile(r'^<S SNTNO="[0-9a-z,]+">([^<]+)</S>')
FORMATS = ("SPL", "SEE", "ISI")


@dataclass(frozen=True)
class TokenOptions:
    """What ROUGE does to each token: -m (stem) and -s (drop stopwords)."""
    stem: bool = False
    stopwords: bool = False


def perl_split(text: str) -> list[str]:
    """Perl's `split(/\\s+/, $text)`: a leading empty field is kept, trailing ones dropped."""
    fields = _PERL_SPACE.split(text)
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def lower_ascii(text: str) -> str:
    return text.translate(_LOWER)


def read_sentences(path: Path | str, fmt: str = "SPL", lower: bool = True) -> list[str]:
    """The sentences of a summary file, ASCII-lower-cased (unless not `lower`), as ROUGE's
    readText collects them."""
    data = read_whole(Path(path), "summary").decode("latin-1")
    fmt = fmt.upper()
    lines = data.split("\n")
    if fmt == "SPL":
        # chomp removes one trailing newline; empty lines are skipped (blank ones are not)
        body = lines[:-1] if data.endswith("\n") else lines
        return [lower_ascii(line) if lower else line for line in body if line]
    if fmt not in ("SEE", "ISI"):
        raise InputError(path, None, f"input format {fmt} is not readable as text "
                         "(SPL, SEE or ISI)")
    pattern, group = (_SEE_LINE, 2) if fmt == "SEE" else (_ISI_LINE, 1)
    out = []
    for i, line in enumerate(lines):
        full = line + "\n" if i < len(lines) - 1 else line    # SEE lines are not chomped
        m = pattern.match(full)
        if m:
            out.append(lower_ascii(m.group(group)) if lower else m.group(group))
    return out


def truncate(sentences: list[str], word_limit: int = 0, byte_limit: int = 0) -> list[str]:
    """ROUGE's -l (whitespace-separated words) and -b (bytes) limits, applied to the raw
    sentences before tokenisation (readText_LCS of ROUGE-1.5.5; punctuation counts as words,
    and the separating spaces between sentences do not count as bytes)."""
    if not word_limit and not byte_limit:
        return list(sentences)
    out: list[str] = []
    used = 0
    for sentence in sentences:
        if word_limit:
            words = perl_split(sentence)
            if used + len(words) < word_limit:
                used += len(words)
                out.append(sentence)
                continue
            out.append(" ".join(words[:word_limit - used]))
        else:
            if used + len(sentence) < byte_limit:
                used += len(sentence)
                out.append(sentence)
                continue
            out.append(sentence[:byte_limit - used])
        break
    return out


def clean_tokens(sentence: str) -> list[str]:
    """ROUGE's tokenisation of one (lower-cased) sentence: hyphens split off, every other
    non-alphanumeric character a separator."""
    text = _NOT_WORD.sub(" ", sentence.replace("-", " - "))
    return perl_split(text.strip(" \t\n\r\f\v"))


@lru_cache(maxsize=1)
def smart_stopwords() -> frozenset[str]:
    """ROUGE-1.5.5's data/smart_common_words.txt (the SMART system's stopword list plus a few
    newswire words); see data/NOTICE.md."""
    text = resources.files(__package__).joinpath("data/smart_common_words.txt").read_text(
        encoding="ascii")
    return frozenset(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"))


def keep_token(token: str, options: TokenOptions) -> str | None:
    """The token ROUGE counts for a cleaned token, or None when it is dropped."""
    if options.stopwords and token in smart_stopwords():
        return None
    if not token or token[0] == "-":    # ROUGE keeps /^[a-z0-9\$]/; cleaning left [a-z0-9-]
        return None
    if options.stem and len(token) > 3:
        return rouge_stem(token)
    return token


def sentence_tokens(sentences: list[str], options: TokenOptions) -> list[list[str]]:
    """The counted tokens of each sentence (ROUGE's tokenizeText_LCS)."""
    out = []
    for sentence in sentences:
        kept = (keep_token(t, options) for t in clean_tokens(sentence))
        out.append([t for t in kept if t is not None])
    return out
