"""Regenerates the golden data of tests/metrics/test_sampled.py: random stratified samples
(sampleval.qrels, for NIST's sample_eval.pl), sampled judgments with inclusion probabilities
(mq.prels, for statAP_MQ_eval_v3.pl), three runs with distinct scores, and the scripts' own
outputs. The scripts are not in the repository (PROVENANCE.md says where they come from):

    python tests/data/sampled/make_golden.py SCRATCH/sample_eval.pl SCRATCH/statAP_MQ_eval_v3.pl

writes the inputs here and runs `perl sample_eval.pl -q` and `perl statAP_MQ_eval_v3.pl -q` on
each run (the statAP script with its unused `use LWP::Simple;` line dropped into a scratch
copy), keeping their printed per-topic values."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOPICS = range(1, 9)
STRATA = (("1", 10, 1.0), ("2", 20, 0.5), ("3", 30, 0.2))   # name, pooled docs, sampling rate


def make_inputs(rng: random.Random) -> None:
    sampleval, prels = [], []
    runs = {f"run{i}": [] for i in range(1, 4)}
    for t in TOPICS:
        docs = [f"D{t}-{k:03d}" for k in range(90)]
        pooled = rng.sample(docs, sum(n for _, n, _ in STRATA))
        start = 0
        for name, n, rate in STRATA:
            for doc in pooled[start:start + n]:
                sampled = rng.random() < rate
                level = rng.choice([0, 0, 0, 1, 1, 2]) if sampled else -1
                sampleval.append(f"{t} 0 {doc} {name} {level}\n")
            start += n
        for doc in rng.sample(docs, 40):
            prob = rng.choice([1.0, 0.8, 0.5, 0.25, 0.1, 0.05])
            prels.append(f"{t} {doc} {rng.choice([0, 0, 1, 1, 2])} 1 {prob}\n")
        for name, lines in runs.items():
            for rank, doc in enumerate(rng.sample(docs, 50), start=1):
                lines.append(f"{t} Q0 {doc} {rank} {100 - rank + rng.random() * 0.5:.4f} {name}\n")
    (HERE / "sampleval.qrels").write_text("".join(sampleval))
    (HERE / "mq.prels").write_text("".join(prels))
    for name, lines in runs.items():
        (HERE / f"{name}.txt").write_text("".join(lines))


def sample_eval(script: Path, run: Path) -> list[str]:
    out = subprocess.run(["perl", str(script), "-q", str(HERE / "sampleval.qrels"), str(run)],
                         capture_output=True, text=True, check=True).stdout
    return [f"{m} {t} {v}" for m, t, v in (line.split() for line in out.splitlines() if line)
            if m in ("infAP", "infNDCG")]


def statap(script: Path, run: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "statAP.pl"
        copy.write_text(script.read_text().replace("use LWP::Simple;", ""))
        out = subprocess.run(["perl", str(copy), "-q", str(HERE / "mq.prels"), str(run)],
                             capture_output=True, text=True, check=True).stdout
    rows, topic = [], None
    for line in out.splitlines():
        if m := re.search(r"topic=(\S+)", line):
            topic = m.group(1)
        if m := re.search(r"\bAP=(\S+)", line):
            rows.append(f"statAP {topic} {m.group(1)}")
    return rows


def main(sample_eval_pl: str, statap_pl: str) -> None:
    make_inputs(random.Random(30))
    for run in sorted(HERE.glob("run*.txt")):
        lines = sample_eval(Path(sample_eval_pl), run) + statap(Path(statap_pl), run)
        (HERE / f"{run.stem}.expected").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
