"""Inline SVG plots for the HTML report: box plots and line/scatter plots with fitted curves.

No plotting library and no JavaScript: each function returns one `<svg class="plot">` string
that a browser renders offline and prints as vectors. Every data mark carries class "mark" so
the browser test can check that it was drawn.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from parbench.escaping import html_text as escape      # the one HTML escape (escaping.py)

# Okabe–Ito: distinguishable with every common colour-vision deficiency.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
FAILURE_COLOUR = {"limit": "#B8860B"}          # anything else is a failure: red
RED = "#C0392B"


def colour_of(name: str) -> str:
    """A runtime's colour in every plot, derived from its name (a checksum: the same in every
    process and report), so a new runtime has one without being listed anywhere. The checksum
    picks a hue of the whole wheel and, from other bits, one of three lightnesses: two names whose
    hues land close still differ in lightness more often than not, and every one is dark enough
    for lines and text on white."""
    checksum = zlib.crc32(name.encode("utf-8", "surrogatepass"))       # a name from a file may hold a lone surrogate
    return f"hsl({checksum % 360}, 75%, {(30, 42, 54)[(checksum >> 12) % 3]}%)"


@dataclass
class Axis:
    label: str
    format: Callable[[float], str] = lambda v: f"{v:g}"
    log: bool = False


@dataclass
class Series:
    name: str
    points: list[tuple[float, float]]
    style: str = "line"                 # line: markers joined | points: markers only | curve: dashed fit
    colour: str | None = None           # | band: the area between `points` and `upper`
    errors: list[tuple[float, float]] | None = None    # each point's interval (low, high): error bars
    upper: list[tuple[float, float]] | None = None     # a band's upper edge


@dataclass
class Marker:
    """A vertical line at x (a crossover, a predicted peak), with an optional shaded interval."""
    x: float
    label: str
    band: tuple[float, float] | None = None


@dataclass
class Failure:
    """A point that did not produce a timing: drawn as a cross on the x axis, with its reason."""
    x: float
    outcome: str
    label: str


@dataclass
class BoxRow:
    label: str
    samples: Sequence[float] = ()
    outcome: str = "ok"                 # not ok: the row shows the outcome instead of a box
    reason: str = ""
    colour: str | None = None


@dataclass
class _Scale:
    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        low, high, value = self.low, self.high, value
        if self.log:
            low, high, value = math.log10(low), math.log10(high), math.log10(max(value, self.low))
        span = (high - low) or 1.0
        return self.start + (value - low) / span * (self.end - self.start)


def _nice_linear_ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low or abs(high) or 1.0
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 12) for i in range(int((high - first) / step + 1e-9) + 1)]


def _log_ticks(low: float, high: float) -> list[float]:
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    mantissas = (1, 2, 5) if math.log10(high / low) < 3 else (1,)
    ticks = [m * 10 ** d for d in decades for m in mantissas if low * 0.999 <= m * 10 ** d <= high * 1.001]
    return ticks or [low, high]


def _range(values: list[float], log: bool, include_zero: bool = False) -> tuple[float, float]:
    values = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not values:
        return (1.0, 10.0) if log else (0.0, 1.0)
    low, high = min(values), max(values)
    if log:
        if high / low < 10:           # at least a decade, centred, so the ticks mean something
            middle = math.sqrt(low * high)
            low, high = middle / 3.2, middle * 3.2
        return low / 1.15, high * 1.15
    if include_zero:
        low = min(low, 0.0)
    pad = (high - low) * 0.06 or abs(high) * 0.1 or 1.0
    return (low if include_zero and low == 0 else low - pad), high + pad


def _text(x: float, y: float, content: str, anchor: str = "middle", size: int = 11,
          cls: str = "", extra: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}"{klass}{extra}>'
            f"{escape(content)}</text>")


TITLE_CHAR_PX = 7.0                # a 13 px sans-serif character, on average
LABEL_CHAR_PX = 6.2                # a 10-11 px one (legends, box-plot labels), on average, with room
TITLE_LINE_PX = 16


def _fitted(text: str, room_px: float, char_px: float = LABEL_CHAR_PX) -> str:
    """`text` cut to the characters that fit `room_px`, its middle given up for "…": two command
    lines differ in their arguments, at the end, and are named by their program, at the start."""
    most = max(4, int(room_px / char_px))
    if len(text) <= most:
        return text
    head = (most - 1) // 3
    return text[:head].rstrip() + "…" + text[len(text) - (most - 1 - head):].lstrip()


def title_lines(width: int, title: str) -> list[str]:
    """The title as drawn: one line where it fits, else broken at spaces onto two (a command
    line is often longer than a plot is wide), the second cut with "…" if still too long."""
    room = width - 16
    if len(title) * TITLE_CHAR_PX <= room:
        return [title]
    most = int(room / TITLE_CHAR_PX)
    cut = max(title.rfind(" ", 0, most), title.rfind("/", 0, most))      # a word's or a path's end
    cut = cut if cut > most // 3 else most
    return [title[:cut].rstrip(), _fitted(title[cut:].strip(), room, TITLE_CHAR_PX)]


def _visible_title(width: int, title: str) -> str:
    return "".join(_text(width / 2, 16 + TITLE_LINE_PX * i, line, size=13, cls="plot-title")
                   for i, line in enumerate(title_lines(width, title)))


def _open_svg(width: int, height: int, title: str) -> list[str]:
    return [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif">',
            f"<title>{escape(title)}</title>", _visible_title(width, title)]


def _legend_columns(series: list[Series], width: int) -> int:
    """Two legend entries a row where every name fits half the plot's width, else one."""
    half = width / 2 - 24
    return 2 if all(len(s.name) * LABEL_CHAR_PX <= half - 8 for s in series) else 1


def line_plot(title: str, x: Axis, y: Axis, series: list[Series], markers: Sequence[Marker] = (),
              failures: Sequence[Failure] = (), width: int = 560, height: int = 320,
              y_from_zero: bool = False) -> str:
    """Points and lines on linear or log axes, fitted curves dashed, bands shaded, error bars on
    the points that have an interval, failures as crosses; the legend in one or two columns, so
    that no entry runs into another."""
    columns = _legend_columns(series, width - 88)
    top = 30 + TITLE_LINE_PX * (len(title_lines(width, title)) - 1)
    left, right, bottom = 72, 16, 74 + 14 * ((len(series) + columns - 1) // columns)
    height = max(height, bottom + top + 120)
    xs = [p[0] for s in series for p in s.points] + [m.x for m in markers] + [f.x for f in failures]
    for m in markers:
        if m.band:
            xs += [b for b in m.band if b is not None]
    ys = [p[1] for s in series for p in s.points] + [p[1] for s in series for p in (s.upper or [])] \
        + [v for s in series for pair in (s.errors or []) for v in pair if v is not None]
    sx = _Scale(*_range(xs, x.log), left, width - right, x.log)
    sy = _Scale(*_range(ys, y.log, y_from_zero), height - bottom, top, y.log)
    out = _open_svg(width, height, title)
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - bottom - top}" '
               'fill="#fff" stroke="#999"/>')
    x_ticks = _log_ticks(sx.low, sx.high) if x.log else _nice_linear_ticks(sx.low, sx.high)
    y_ticks = [] if not ys else _log_ticks(sy.low, sy.high) if y.log else _nice_linear_ticks(sy.low, sy.high)
    if not ys:
        out.append(_text((left + width - right) / 2, (top + height - bottom) / 2, "no measured point", size=12,
                         extra=' fill="#777"'))
    for t in x_ticks:
        px = sx(t)
        out.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(_text(px, height - bottom + 14, x.format(t), size=10))
    for t in y_ticks:
        py = sy(t)
        out.append(f'<line x1="{left}" y1="{py:.1f}" x2="{width - right}" y2="{py:.1f}" stroke="#eee"/>')
        out.append(_text(left - 5, py + 3.5, y.format(t), anchor="end", size=10))
    out.append(_text((left + width - right) / 2, height - bottom + 30, x.label + (" (log)" if x.log else "")))
    out.append(_text(14, (top + height - bottom) / 2, y.label + (" (log)" if y.log else ""),
                     extra=f' transform="rotate(-90 14 {(top + height - bottom) / 2:.1f})"'))
    for m in markers:
        px = sx(m.x)
        if m.band and all(b is not None for b in m.band):
            a, b = sx(m.band[0]), sx(m.band[1])
            out.append(f'<rect class="band" x="{min(a, b):.1f}" y="{top}" width="{max(1.0, abs(b - a)):.1f}" '
                       f'height="{height - bottom - top}" fill="#E69F00" fill-opacity="0.18"/>')
        out.append(f'<line class="mark marker" x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{height - bottom}" '
                   'stroke="#E69F00" stroke-width="2"/>')
        out.append(_text(px + 4, top + 12, m.label, anchor="start", size=10))
    for i, s in enumerate(series):
        colour = s.colour or PALETTE[i % len(PALETTE)]
        if s.style == "band" and s.upper:
            edge = [f"{sx(px):.1f},{sy(py):.1f}" for px, py in s.points] + \
                   [f"{sx(px):.1f},{sy(py):.1f}" for px, py in reversed(s.upper)]
            out.append(f'<polygon class="mark band" points="{" ".join(edge)}" fill="{colour}" fill-opacity="0.15" '
                       f'stroke="none"><title>{escape(s.name)}</title></polygon>')
            continue
        for (px, _), interval in zip(s.points, s.errors or []):
            if interval and None not in interval:
                low, high = (sy(v) for v in interval)
                out.append(f'<path class="mark errorbar" d="M{sx(px):.1f},{low:.1f} L{sx(px):.1f},{high:.1f} '
                           f'M{sx(px) - 4:.1f},{low:.1f} L{sx(px) + 4:.1f},{low:.1f} M{sx(px) - 4:.1f},{high:.1f} '
                           f'L{sx(px) + 4:.1f},{high:.1f}" stroke="{colour}" stroke-width="1.5" fill="none">'
                           f"<title>{escape(s.name)}: {escape(y.format(interval[0]))} – "
                           f"{escape(y.format(interval[1]))}</title></path>")
        points = sorted((px, py) for px, py in s.points if math.isfinite(py) and (py > 0 or not y.log))
        path = " ".join(f"{'M' if j == 0 else 'L'}{sx(px):.1f},{sy(py):.1f}" for j, (px, py) in enumerate(points))
        if s.style in ("line", "curve") and len(points) > 1:
            dash = ' stroke-dasharray="6 4"' if s.style == "curve" else ""
            out.append(f'<path class="mark series" d="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="2"{dash}><title>{escape(s.name)}</title></path>')
        if s.style in ("line", "points"):
            for px, py in points:
                out.append(f'<circle class="mark point" cx="{sx(px):.1f}" cy="{sy(py):.1f}" r="3.5" '
                           f'fill="{colour}"><title>{escape(s.name)}: {escape(x.format(px))}, '
                           f"{escape(y.format(py))}</title></circle>")
    for f in failures:
        px, py = sx(f.x), height - bottom - 8
        colour = FAILURE_COLOUR.get(f.outcome, RED)
        out.append(f'<path class="mark failure" d="M{px - 6:.1f},{py - 6:.1f} L{px + 6:.1f},{py + 6:.1f} '
                   f'M{px - 6:.1f},{py + 6:.1f} L{px + 6:.1f},{py - 6:.1f}" stroke="{colour}" stroke-width="3">'
                   f"<title>{escape(f.label)}</title></path>")
        out.append(_text(px, py - 10, f"{f.outcome} at {x.format(f.x)}", size=10,
                         extra=f' fill="{colour}"'))
    legend_top = height - bottom + 46
    column_width = (width - left - right) / columns
    for i, s in enumerate(series):
        colour = s.colour or PALETTE[i % len(PALETTE)]
        lx = left + (i % columns) * column_width
        ly = legend_top + 14 * (i // columns)
        if s.style == "band":
            out.append(f'<rect x="{lx:.1f}" y="{ly - 9:.1f}" width="18" height="9" fill="{colour}" '
                       'fill-opacity="0.25"/>')
        else:
            dash = ' stroke-dasharray="6 4"' if s.style == "curve" else ""
            out.append(f'<line x1="{lx:.1f}" y1="{ly - 4:.1f}" x2="{lx + 18:.1f}" y2="{ly - 4:.1f}" '
                       f'stroke="{colour}" stroke-width="2"{dash}/>')
        shown = _fitted(s.name, column_width - 32)
        out.append(_text(lx + 24, ly, shown, anchor="start", size=10, cls="legend",
                         extra="" if shown == s.name else f' data-full="{escape(s.name)}"'))
    out.append("</svg>")
    return "\n".join(out)


def _quartiles(samples: Sequence[float]) -> tuple[float, float, float, float, float, list[float]]:
    """Median, quartiles, Tukey whiskers (1.5 IQR) and the outliers beyond them."""
    values = np.sort(np.asarray(samples, dtype=float))
    q1, median, q3 = (float(v) for v in np.percentile(values, [25, 50, 75]))
    fence_low, fence_high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    inside = values[(values >= fence_low) & (values <= fence_high)]
    outliers = [float(v) for v in values if v < fence_low or v > fence_high]
    return float(inside.min()), q1, median, q3, float(inside.max()), outliers


def box_plot(title: str, rows: list[BoxRow], axis: Axis, width: int = 720) -> str:
    """One horizontal box per case (quartiles, Tukey whiskers, outliers as rings); a case
    without a timing gets its outcome written across its row instead of a box."""
    label_width = min(240, 12 + 7 * max((len(r.label) for r in rows), default=10))
    left, right, top, row_height = label_width, 20, 30, 26
    height = top + row_height * len(rows) + 40
    measured = [v for r in rows if r.outcome == "ok" for v in r.samples]
    log = axis.log or (bool(measured) and min(measured) > 0 and max(measured) / min(measured) > 20)
    sx = _Scale(*_range(measured, log), left, width - right, log)
    out = _open_svg(width, height, title)
    plot_bottom = top + row_height * len(rows)
    ticks = _log_ticks(sx.low, sx.high) if log else _nice_linear_ticks(sx.low, sx.high)
    for t in ticks:
        px = sx(t)
        out.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{plot_bottom}" stroke="#eee"/>')
        out.append(_text(px, plot_bottom + 14, axis.format(t), size=10))
    out.append(_text((left + width - right) / 2, plot_bottom + 30, axis.label + (" (log)" if log else "")))
    for i, row in enumerate(rows):
        middle = top + row_height * i + row_height / 2
        out.append(_text(left - 8, middle + 4, _fitted(row.label, left - 12), anchor="end", cls="box-label"))
        if row.outcome != "ok" or not row.samples:
            colour = FAILURE_COLOUR.get(row.outcome, RED)
            message = f"{row.outcome}: {row.reason}" if row.reason else row.outcome
            out.append(f'<rect class="mark failure" x="{left}" y="{middle - 9:.1f}" width="{width - left - right}" '
                       f'height="18" fill="{colour}" fill-opacity="0.12" stroke="{colour}"/>')
            out.append(_text(left + 6, middle + 4, message[:110], anchor="start", size=10,
                             extra=f' fill="{colour}"'))
            continue
        colour = row.colour or PALETTE[i % len(PALETTE)]
        low, q1, median, q3, high, outliers = _quartiles(row.samples)
        out.append(f'<line x1="{sx(low):.1f}" y1="{middle:.1f}" x2="{sx(high):.1f}" y2="{middle:.1f}" stroke="#555"/>')
        for whisker in (low, high):
            out.append(f'<line x1="{sx(whisker):.1f}" y1="{middle - 5:.1f}" x2="{sx(whisker):.1f}" '
                       f'y2="{middle + 5:.1f}" stroke="#555"/>')
        box_left = sx(q1)
        box_width = max(2.0, sx(q3) - box_left)
        out.append(f'<rect class="mark box" x="{box_left:.1f}" y="{middle - 8:.1f}" width="{box_width:.1f}" '
                   f'height="16" fill="{colour}" fill-opacity="0.35" stroke="{colour}">'
                   f"<title>{escape(row.label)}: median {escape(axis.format(median))}, IQR "
                   f"{escape(axis.format(q1))} – {escape(axis.format(q3))}, n={len(row.samples)}</title></rect>")
        out.append(f'<line x1="{sx(median):.1f}" y1="{middle - 8:.1f}" x2="{sx(median):.1f}" '
                   f'y2="{middle + 8:.1f}" stroke="#000" stroke-width="2"/>')
        for value in outliers:
            out.append(f'<circle class="mark outlier" cx="{sx(value):.1f}" cy="{middle:.1f}" r="3" fill="none" '
                       f'stroke="{colour}"><title>outlier {escape(axis.format(value))}</title></circle>')
    out.append("</svg>")
    return "\n".join(out)


def sample_curve(function: Callable[[np.ndarray], np.ndarray], low: float, high: float,
                 points: int = 60, log: bool = False) -> list[tuple[float, float]]:
    """A fitted law evaluated densely enough to draw as a smooth curve."""
    xs = np.geomspace(low, high, points) if log else np.linspace(low, high, points)
    return [(float(x), float(y)) for x, y in zip(xs, function(xs))]
