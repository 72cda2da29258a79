"""Regenerate repro_eval_rbo.json: repro_eval's own RBO (irgroup/repro_eval 0.5.0,
repro_eval/measure/document_order.py `_rbo`, after Clarke et al.) on fixed rankings.

    pip install repro-eval==0.5.0 && python tests/data/rbo/regenerate.py

Inputs are written here; every expected value is repro_eval's output, not irwarehouse's."""

import json
import random
from pathlib import Path

from repro_eval.measure.document_order import _rbo

rng = random.Random(20100)
cases = [
    (["a", "b", "c"], ["a", "c", "b"], 0.9, 3),
    (["a", "b", "c", "d"], ["d", "c", "b", "a"], 0.9, 4),
    (["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e"], 0.95, 5),
    (["a", "b", "c"], ["x", "y", "z"], 0.9, 3),
    (["a", "b", "c", "d"], ["b", "a", "e"], 0.8, 10),
]
for _ in range(40):
    items = [f"d{i}" for i in range(rng.randint(3, 30))]
    s = rng.sample(items, rng.randint(1, len(items)))
    t = rng.sample(items, rng.randint(1, len(items)))
    p = rng.choice([0.5, 0.8, 0.9, 0.95, 0.98])
    depth = rng.choice([max(len(s), len(t)), rng.randint(1, 40)])
    cases.append((s, t, p, depth))
out = [{"run": s, "ideal": t, "p": p, "depth": d, "rbo": _rbo(s, t, p, d)}
       for s, t, p, d in cases]
Path(__file__).with_name("repro_eval_rbo.json").write_text(json.dumps(out, indent=1) + "\n")
