"""An invalid ranking option fails every metric macro that takes it, whatever the measure's
kernel and context. The check used to sit on the ranked rows only, so an option that left no
row to check (max_docs := -1 keeps no rank) went through unchecked, and 104 of the macros
answered 0 or nothing instead of an error (store/macros.py `_checked`: the resolved call's one
row is checked)."""

from __future__ import annotations

import duckdb
import pytest

from irwarehouse.measures import registry
from irwarehouse.store.macros import callable_params


def _calls():
    """(macro, its own required arguments) of every measure whose macro takes max_docs."""
    out = []
    for mdef in registry().values():
        if "max_docs" not in {name for name, _, _ in callable_params(mdef)}:
            continue
        args = "".join(f", {p.name} := {str(p.default).split(',')[0].strip('[] ')}"
                       for p in mdef.params if p.is_list_default)
        out.append((mdef.macro, args))
    return sorted(set(out))


@pytest.mark.parametrize("option, message", [
    ("max_docs := -1", "max_docs must be >= 0"),
    ("sort_order := 'docno'", "sort_order must be")])
def test_every_macro_refuses_an_invalid_ranking_option(sample_warehouse, option, message):
    calls = _calls()
    assert len(calls) > 100
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    try:
        answered = []
        for macro, args in calls:
            try:
                con.execute(f"FROM {macro}(campaign := 'sample', qrels := 'binary'{args}, "
                            f"{option})").fetchall()
                answered.append(macro)
            except duckdb.Error as exc:
                assert message in str(exc), (macro, str(exc).splitlines()[0])
        assert not answered, f"answered under {option}: {answered}"
    finally:
        con.close()
