"""THUIR-CO-NEW-2's mean Q@10 on NTCIR-16 WWW-4 from the independent NTCIREVAL oracle, for the
tests of the request's options (tests/cli/test_daily_round.py, tests/request)."""

from tests.helpers.paths import REALDATA

WWW4 = REALDATA / "ntcir16_www4_english"


def oracle_thuir_q10() -> str:
    """THUIR's mean Q@10 with trec_eval's defaults (lists in trec_eval 9's order: float32 score
    descending, then docno descending; gain = level): tests/oracles/ntcireval_oracle.py on
    those lists (0.4492; in file order it gives the official 0.4491)."""
    import collections
    import struct
    from tests.oracles.ntcireval_oracle import evaluate_topic
    qrels = collections.defaultdict(dict)
    for line in (WWW4 / "www4gold-corrected.qrels").read_text().splitlines():
        topic, doc, level = line.split()
        qrels[topic][doc] = int(level[1:])
    lists = collections.defaultdict(list)
    for line in (WWW4 / "runs" / "THUIR-CO-NEW-2").read_text().splitlines():
        f = line.split()
        if len(f) == 6:
            score = struct.unpack("f", struct.pack("f", float(f[4])))[0]
            lists[f[0]].append((score, f[2]))
    values = [evaluate_topic([d for _, d in sorted(docs, reverse=True)], qrels[t], gains=[1, 2],
                             cutoffs=(10,))["Q@0010"] for t, docs in lists.items() if t in qrels]
    return f"{sum(values) / len(values):.4f}"
