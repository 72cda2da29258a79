"""Persistent macros an analyst calls for the blocks of sql/metrics that are not per-topic
measures but relations by rank (the cumulated gain curves of cg_curves.sql): a block whose
comment header names an `analyst:` macro gets one, as a measure gets irw_<name>
(irwarehouse.store.macros):

    irw_cg_curve(campaign, qrels := NULL, run := NULL, <params> := <defaults>,
                 relevance_level := NULL, judged_only := NULL, ...)

whose body reads its arguments and the campaign's profile as the metric macros do
(store.macros.context_ctes: an option left out is the profile's), builds every context relation
the block reads as a CTE, and returns the block's columns with the run's name in place of its
id. So a plain
DuckDB client on the warehouse file gets the curves that `Warehouse.cg_curves` and `irw report`
draw, with no state on the connection (issue 30)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SqlAssetError
from ..measures.catalog import ParamDef, _params
from ..sqlfiles import MacroDef, all_macros, relations_read
from .macros import OPTION_NAMES, OPTIONS, argument, context_ctes

_SQL_TYPES = {"INTEGER": "INTEGER", "DOUBLE": "DOUBLE", "VARCHAR": "VARCHAR",
              "MAP": "MAP(INTEGER, DOUBLE)"}


@dataclass(frozen=True)
class AnalystMacro:
    name: str                      # irw_cg_curve
    block: MacroDef                # the block it calls (cg_curve)
    params: tuple[ParamDef, ...]

    def sql(self) -> str:
        """The CREATE MACRO statement."""
        params = [("qrels", "VARCHAR", "NULL"), ("run", "VARCHAR", "NULL")]
        params += [(p.name, _SQL_TYPES[p.type], _default(p)) for p in self.params]
        params += OPTIONS
        types = {name: sql_type for name, sql_type, _ in params}
        ctes = context_ctes(relations_read([self.block.name]), params, OPTION_NAMES,
                            self.name)
        block_args = ", ".join(argument(p.name, types[p.name], OPTION_NAMES)
                               for p in self.params)
        signature = ", ".join(["campaign"] + [f"{n} := {d}" for n, _, d in params])
        return (f"CREATE OR REPLACE MACRO {self.name}({signature}) AS TABLE\n"
                + "WITH\n" + ",\n".join(ctes) + "\n"
                + "SELECT n.name AS run, c.* EXCLUDE (run_id)\n"
                + f"FROM {self.block.name}({block_args}) c JOIN run n ON n.run_id = c.run_id;\n")


def _default(p: ParamDef) -> str:
    if p.type == "MAP":
        return "NULL"                 # no map: every level is its own gain
    return p.default


def analyst_macros() -> list[AnalystMacro]:
    """The blocks with an `analyst:` header, each with its macro's parameters (the block's)."""
    out = []
    for mac in all_macros().values():
        name = mac.header.get("analyst")
        if not name:
            continue
        params = _params(mac.header.get("params", ""), mac.name)
        if tuple(p.name for p in params) != mac.args:
            raise SqlAssetError(f"{mac.name}: header params {[p.name for p in params]} != "
                                f"macro args {list(mac.args)}")
        out.append(AnalystMacro(name, mac, params))
    return out
