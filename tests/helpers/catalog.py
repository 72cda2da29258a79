"""Requests over the whole measure catalog (the macro and bit-reproducibility tests)."""

from __future__ import annotations

from irwarehouse.measures import MeasureRequest, number
from irwarehouse.measures.values import header_default


def default_request(mdef) -> MeasureRequest:
    """The measure with its default parameters (one value of a list default: 10 if listed)."""
    args = []
    for p in mdef.params:
        if p.is_list_default:
            values = p.default.split(",")
            args.append(number("10" if "10" in values else values[0], p.type, mdef.name))
        else:
            args.append(header_default(p))
    return MeasureRequest(mdef, tuple(args), mdef.name)
