"""Run files in batches of about a given number of bytes of text, in order: what one read
holds, so that memory holds one batch whatever the number of files (engine.files for
`irw eval QRELS RUN...`, analyst.bulk for `irw ingest runs DIR`)."""

from __future__ import annotations

from pathlib import Path

from .lines import GZIP_MAGIC

# A gzipped run file counts this many times its size (TREC runs compress about 5:1).
GZIP_RATIO = 5


def text_size(path: Path) -> int:
    """The bytes of text of a run file (estimated for gzip); 0 for what is not a regular file,
    a dangling link or a pipe, never opened (the reader names it)."""
    path = Path(path)
    try:
        if not path.is_file():
            return 0
        with open(path, "rb") as f:
            return path.stat().st_size * (GZIP_RATIO if f.read(2) == GZIP_MAGIC else 1)
    except OSError:
        return 0


def size_batches(paths: list[Path], limit: int) -> list[list[Path]]:
    """The files in order, in batches of about `limit` bytes of text (at least one file a
    batch: a larger file is a batch of its own)."""
    batches: list[list[Path]] = [[]]
    size = 0
    for path in paths:
        n = text_size(path)
        if batches[-1] and size + n > limit:
            batches.append([])
            size = 0
        batches[-1].append(path)
        size += n
    return batches
