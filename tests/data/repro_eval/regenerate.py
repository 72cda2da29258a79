"""Regenerate the golden values of tests/meta/test_repro.py from repro_eval itself
(irgroup/repro_eval 0.5.0, MIT licence; Breuer et al., SIGIR 2020).

    python3 -m venv /tmp/re && /tmp/re/bin/pip install repro-eval==0.5.0 pandas
    /tmp/re/bin/python tests/data/repro_eval/regenerate.py

repro_eval's own example runs (orig_b/orig_a/rpd_b/rpd_a of TREC Common Core 2017) are
downloaded by its CI from gists and are not in its repository, so its test cases
(repro_eval/test/test_rpd.py: RpdEvaluator(...); trim(); evaluate(); ktu(); rbo(); rmse();
nrmse(); er(); dri(); ttest()) are ported here on two inputs instead:

* `example`: the small runs of this folder (written by this script from a fixed seed; no third-
  party data), 6 topics, 25 documents each, ties in the scores;
* `trec2012`: the TREC 2012 Web track organisers' Indri baselines of ../shared/realdata
  (query likelihood as the baseline, relevance model as the advanced run; Category A as the
  "original", Category B as the "reproduced" experiment) on qrels.adhoc, trimmed to 100
  documents (trim(100)); the runs themselves are never copied here.

Every expected value is repro_eval's output, never irwarehouse's."""

import gzip
import json
import random
import shutil
import tempfile
from pathlib import Path

from repro_eval.Evaluator import RpdEvaluator

HERE = Path(__file__).resolve().parent
REALDATA = HERE.parents[2].parent / "shared" / "realdata" / "trec2012_web_diversity"


def write_example() -> None:
    rng = random.Random(2020)
    topics = [str(t) for t in range(401, 407)]
    docs = {t: [f"doc{t}-{i:02d}" for i in range(40)] for t in topics}
    with open(HERE / "qrels.txt", "w") as out:
        for t in topics:
            for d in rng.sample(docs[t], 30):
                out.write(f"{t} 0 {d} {rng.choice([0, 0, 0, 1, 1, 2])}\n")

    def run(name, base, noise, seed):
        r = random.Random(seed)
        with open(HERE / f"{name}.txt", "w") as out:
            for t in topics:
                scored = sorted(((round(base[t][d] + r.gauss(0, noise), 1), d)
                                 for d in docs[t]), key=lambda x: (-x[0], x[1]))[:25]
                # the file in trec_eval's order (score desc, docno desc), as repro_eval expects
                scored.sort(key=lambda x: (-x[0], tuple(-ord(c) for c in x[1])))
                for rank, (score, d) in enumerate(scored, 1):
                    out.write(f"{t} Q0 {d} {rank} {score} {name}\n")

    base_b = {t: {d: rng.uniform(0, 5) for d in docs[t]} for t in topics}
    base_a = {t: {d: v + (2.0 if int(d[-2:]) % 3 == 0 else 0.0) for d, v in base_b[t].items()}
              for t in topics}
    run("orig_b", base_b, 0.0, 1)
    run("orig_a", base_a, 0.0, 2)
    run("rpd_b", base_b, 0.6, 3)
    run("rpd_a", base_a, 0.6, 4)


def golden(qrels, orig_b, orig_a, rpd_b, rpd_a, trim) -> dict:
    ev = RpdEvaluator(qrels_orig_path=str(qrels), run_b_orig_path=str(orig_b),
                      run_a_orig_path=str(orig_a), run_b_rep_path=str(rpd_b),
                      run_a_rep_path=str(rpd_a))
    ev.trim(trim)
    ev.evaluate()
    keep = ("AP", "P@10", "nDCG")
    pick = {k: v for k, v in {"ktu": ev.ktu(), "rbo": ev.rbo(),
                              "ktu_per_topic": ev.ktu(per_topic=True),
                              "rbo_per_topic": ev.rbo(per_topic=True)}.items()}
    for name, values in (("rmse", ev.rmse()), ("nrmse", ev.nrmse()), ("ttest", ev.ttest())):
        pick[name] = {side: {m: v[m] for m in keep} for side, v in values.items()}
    pick["er"] = {m: ev.er()[m] for m in keep}
    pick["dri"] = {m: ev.dri()[m] for m in keep}
    return pick


def main() -> None:
    write_example()
    out = {"repro_eval": "0.5.0", "example": {"trim": 1000, **golden(
        HERE / "qrels.txt", HERE / "orig_b.txt", HERE / "orig_a.txt", HERE / "rpd_b.txt",
        HERE / "rpd_a.txt", 1000)}}
    if REALDATA.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            files = {}
            for key, name in (("orig_b", "ql.results-cata"), ("orig_a", "rm.results-cata"),
                              ("rpd_b", "ql.results-catb"), ("rpd_a", "rm.results-catb")):
                files[key] = Path(tmp) / f"{name}.txt"
                with gzip.open(REALDATA / "runs" / f"{name}.txt.gz", "rb") as src, \
                        open(files[key], "wb") as dst:
                    shutil.copyfileobj(src, dst)
            out["trec2012"] = {"trim": 100, **golden(
                REALDATA / "qrels" / "qrels.adhoc.txt", files["orig_b"], files["orig_a"],
                files["rpd_b"], files["rpd_a"], 100)}
    (HERE / "golden.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
