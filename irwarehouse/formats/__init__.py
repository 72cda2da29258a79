"""The readers of every input file kind. The qrels kinds are declared here, once: the ingest
(store.ingest) and the CLI's --format choices (cli.common) read them."""

QRELS_FORMATS = ("qrels", "diversity", "ntcir_qrels", "sampleval", "prels")
# sampled judgments with their stratum or inclusion probability (formats/sampled.py)
SAMPLED_FORMATS = ("sampleval", "prels")


def is_path(obj) -> bool:
    """Whether an input names a file (str or os.PathLike) rather than holding the rows (a
    DataFrame, an Arrow table, a dict...: formats.inmemory). Here, not in inmemory, so that
    reading a file never imports pyarrow and numpy (0.07 s of a TREC-size `irw eval`)."""
    import os
    return isinstance(obj, (str, os.PathLike))
