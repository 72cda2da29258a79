"""Measures: what each is (the catalog, read from the SQL headers), how their names are written
(the grammar) and what a name means (resolve). `parse_measures` turns the names a user types
into MeasureRequests for the engine (irwarehouse.engine.evaluate)."""

from .catalog import Alias, MeasureDef, ParamDef, in_set, registry
from .grammar import CONDENSED_PREFIX, CONDENSED_SUFFIX, split_list
from .resolve import (
                      MeasureRequest,
                      NtcirSettings,
                      ntcir_label,
                      ntcir_position,
                      parse_measures,
                      resolve,
                      wants_runid,
)
from .values import number, parse_cutoffs, parse_gains

__all__ = [
                      "CONDENSED_PREFIX",
                      "CONDENSED_SUFFIX",
                      "Alias",
                      "MeasureDef",
                      "MeasureRequest",
                      "NtcirSettings",
                      "ParamDef",
                      "in_set",
                      "ntcir_label",
                      "ntcir_position",
                      "number",
                      "parse_cutoffs",
                      "parse_gains",
                      "parse_measures",
                      "registry",
                      "resolve",
                      "split_list",
                      "wants_runid",
]
