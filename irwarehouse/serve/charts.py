"""Inline SVG charts of the workspace: drawn on the server, no script or network needed; each
bar carries a <title>, which the browser shows on hover (the interactive part: the topic and
its value). Every text is escaped (a topic id comes from a user's file)."""

from __future__ import annotations

import html
import math

from markupsafe import Markup

WIDTH, HEIGHT, PAD = 640, 200, 30


def _svg(body: list[str], label: str) -> Markup:
    return Markup(f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT + 2 * PAD}" role="img" '
                  f'aria-label="{html.escape(label)}">' + "".join(body) + "</svg>")


def histogram(values: list[float], label: str, bins: int = 10) -> Markup | None:
    """The distribution of per-topic values over `bins` equal bins from the lowest to the
    highest value."""
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return None
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - low) / span * bins), bins - 1)] += 1
    top = max(counts)
    w = (WIDTH - 2 * PAD) / bins
    body = []
    for i, n in enumerate(counts):
        h = HEIGHT * n / top
        a, b = low + span * i / bins, low + span * (i + 1) / bins
        body.append(f'<rect class="bar" x="{PAD + i * w:.1f}" y="{PAD + HEIGHT - h:.1f}" '
                    f'width="{w - 2:.1f}" height="{h:.1f}"><title>{html.escape(label)} in '
                    f'[{a:.4f}, {b:.4f}]: {n} topics</title></rect>')
    body.append(f'<text x="{PAD}" y="{HEIGHT + 2 * PAD - 8}">{low:.4f}</text>'
                f'<text x="{WIDTH - PAD}" y="{HEIGHT + 2 * PAD - 8}" text-anchor="end">'
                f'{high:.4f}</text><text x="{PAD}" y="18">{html.escape(label)} per topic '
                f'({len(values)} topics)</text>')
    return _svg(body, f"distribution of {label}")


def deltas(pairs: list[tuple[str, float]], label: str) -> Markup | None:
    """Per-topic differences, sorted as given, one bar per topic above or below zero."""
    pairs = [(t, d) for t, d in pairs if d is not None and math.isfinite(d)]
    if not pairs:
        return None
    reach = max(abs(d) for _, d in pairs) or 1.0
    w = (WIDTH - 2 * PAD) / len(pairs)
    zero = PAD + HEIGHT / 2
    body = [f'<line class="axis" x1="{PAD}" x2="{WIDTH - PAD}" y1="{zero}" y2="{zero}"/>']
    for i, (topic, d) in enumerate(pairs):
        h = HEIGHT / 2 * abs(d) / reach
        y = zero - h if d > 0 else zero
        cls = "gain" if d > 0 else "loss"
        body.append(f'<rect class="{cls}" x="{PAD + i * w:.2f}" y="{y:.1f}" '
                    f'width="{max(w - 0.5, 0.5):.2f}" height="{max(h, 0.5):.1f}"><title>topic '
                    f'{html.escape(str(topic))}: {d:+.4f}</title></rect>')
    body.append(f'<text x="{PAD}" y="18">{html.escape(label)}: per-topic differences, '
                f'largest gain first (hover a bar)</text>')
    return _svg(body, f"per-topic differences of {label}")
