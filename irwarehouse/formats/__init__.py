"""The readers of every input file kind. The qrels kinds are declared here, once: the ingest
(store.ingest) and the CLI's --format choices (cli.common) read them."""

QRELS_FORMATS = ("qrels", "diversity", "ntcir_qrels", "sampleval", "prels")
# sampled judgments with their stratum or inclusion probability (formats/sampled.py)
SAMPLED_FORMATS = ("sampleval", "prels")
