"""Read/write NTCIREVAL per-topic .nev output: moved into the package
(irwarehouse/formats/ntcir.py); re-exported here for the oracle tests."""

from irwarehouse.formats.ntcir import (  # noqa: F401
    format_nev,
    format_topic,
    format_value,
    metric_line,
    parse_nev,
    parse_nev_text,
)
