"""The HTML report's advise panel: the reader sets the size or task count and the cores, and
chooses the figure to rank by (steady state or first run), and the ranking and its curves follow,
offline. The page carries each candidate's points (median and CI per value and worker count) and
its fitted worker law, once per figure; the JavaScript below evaluates the same rules as
advise/predict.py, advise/ranking.py and advise/advice.py, so the panel and `parbench advise
[--for first-run]` agree."""
from __future__ import annotations

from typing import Any

from parbench.advise.evidence import Evidence, Series, gather
from parbench.advise.predict import NEW_SITTING, WIDEN_PER_DOUBLING, worker_law
from parbench.advise.question import FIGURES, STEADY_STATE, Question
from parbench.advise.render import FIGURE_WORDS
from parbench.escaping import html_text as escape, json_text
from parbench.records import RunRecord
from parbench.workloads import in_report_order, load_all_cached


def _figure_data(series: Series | None, every: list[Series], cpus: int) -> dict[str, Any]:
    """One figure's points and worker law of a candidate; no points where the store has none of
    that figure (`without_figure` counts the cases that lack it, as advise says)."""
    if series is None:
        return {"points": [], "law": None, "without_figure": 0}
    seq = next((s for s in every if s.runtime == series.runtime and s.family == "seq"
                and s.context == series.context), None)
    law = worker_law(series, seq, cpus) if any(p.workers for p in series.points) else None
    return {"points": [[p.workers, p.value, p.median_ns, p.low_ns, p.high_ns]
                       for p in sorted(series.points, key=lambda p: (p.workers or 0, p.value))],
            "law": None if law is None else {"law": law.law, "params": law.params, "ci": law.ci,
                                             "fitted_workers": law.fitted_workers},
            "without_figure": series.without_figure}


def _series_data(series: Series, by_figure: dict[str, Evidence], cpus: int) -> dict[str, Any]:
    """A candidate with each figure's evidence: the steady one it was found by and the first-run
    one gathered from the same runs (advise --for first-run), matched by runtime, model and params."""
    def same(other: Series) -> bool:
        return (other.runtime, other.model, other.context) == (series.runtime, series.model, series.context)
    return {"runtime": series.runtime, "model": series.model, "family": series.family,
            "figures": {figure: _figure_data(next((s for s in evidence.series if same(s)), None), evidence.series, cpus)
                        for figure, evidence in by_figure.items()}}


def workload_data(records: list[RunRecord], name: str) -> dict[str, Any] | None:
    """One workload's candidates grouped by their fixed params, or None where it has no swept param."""
    workload = load_all_cached().get(name)
    if workload is None or workload.swept_param is None:
        return None
    question = Question(name, workload.swept_param, 0)
    by_figure = {figure: gather(records, question, figure) for figure in FIGURES}
    evidence = by_figure[STEADY_STATE]
    if not evidence.series:
        return None
    cpus = int(evidence.machine.get("logical_cpus") or 1)
    contexts: dict[tuple, list[Series]] = {}
    for series in evidence.series:
        contexts.setdefault(series.context, []).append(series)
    values = sorted({p.value for s in evidence.series for p in s.points})
    return {"workload": name, "param": workload.swept_param, "items": workload.items, "cpus": cpus,
            "values": values, "contexts": [
                {"label": ", ".join(f"{k}={v}" for k, v in context) or "(no other parameters)",
                 "context": dict(context), "series": [_series_data(s, by_figure, cpus) for s in found]}
                for context, found in sorted(contexts.items(), key=lambda item: str(item[0]))]}


def _figure_choice() -> str:
    """The toggle: steady state (advise's default) or first run (advise --for first-run)."""
    return "rank by " + " ".join(
        f'<label><input type="radio" name="figure" value="{figure}"{" checked" if figure == STEADY_STATE else ""}> '
        f"{FIGURE_WORDS[figure]}</label>" for figure in FIGURES)


def section(records: list[RunRecord]) -> str:
    """The panel, or nothing where no stored workload has a swept parameter to set."""
    names = in_report_order({r.case.workload for record in records for r in record.results})
    data = [d for d in (workload_data(records, name) for name in names) if d is not None]
    if not data:
        return ""
    # '<' only ever stands inside a JSON string, where \u003c reads the same: no name can close the script.
    document = json_text({"widen_per_doubling": WIDEN_PER_DOUBLING, "new_sitting": NEW_SITTING,
                          "figure_words": FIGURE_WORDS, "workloads": data}).replace("<", "\\u003c")
    return (f'<section class="page" id="advise"><h2>Advise: your size or task count, your cores</h2>'
            f"<p class=note>The same prediction as <code>parbench advise</code>: measured values as measured, "
            f"log-log interpolation inside the measured range, a line per item beyond it (interval widened "
            f"{WIDEN_PER_DOUBLING:.0%} per doubling), worker counts through the fitted USL or Amdahl law. Ranks are "
            f"shared where intervals overlap. <em>Steady state</em> ranks by the settled median (what a long-running "
            f"process pays), <em>first run</em> by each process's first repetition (what a short-lived command pays, "
            f"as <code>parbench advise --for first-run</code>); the other figure stands beside each candidate. "
            f"Memory is not predicted here (parbench advise --memory).</p>"
            f'<form id="advise-form" onsubmit="return false">'
            f'<label>workload <select name="workload"></select></label> '
            f'<label>parameters <select name="context"></select></label> '
            f'<label><span id="advise-param">value</span> <input name="value" type="number" min="1" step="any"></label> '
            f'<label>cores <input name="cores" type="number" min="1" max="4096" step="1"></label> '
            f"{_figure_choice()}</form>"
            f'<table class="advise"><thead><tr><th>rank</th><th>candidate</th><th>predicted median [95% interval]</th>'
            f'<th>margin to the next</th><th>the other figure</th><th>from</th></tr></thead><tbody></tbody></table>'
            f'<svg class="advise-curves" width="820" height="320" role="img"><title>{escape("predicted time against the value")}</title></svg>'
            f'<script type="application/json" id="advise-data">{document}</script>'
            f"<script>{SCRIPT}</script></section>")


# The rules of advise/predict.py, advise/ranking.py and advise/advice.py (which figure is ranked,
# the other beside it), line for line (a change there is a change here).
SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('advise-data').textContent);
  const form = document.getElementById('advise-form');
  const WIDEN = data.widen_per_doubling, NEW_SITTING = data.new_sitting;
  const isClose = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  const doublingsBeyond = (v, lo, hi) => (v >= lo && v <= hi) ? 0 : Math.abs(Math.log2(v / (v > hi ? hi : lo)));
  const widening = d => WIDEN * Math.max(1, d);
  const scaled = (b, lo, mid, hi) => ({median: b.median * mid, low: b.low * lo, high: b.high * hi});

  function lineAt(xs, ys, v) {
    const n = xs.length, mx = xs.reduce((a, x) => a + x, 0) / n, my = ys.reduce((a, y) => a + y, 0) / n;
    let sxx = 0, sxy = 0;
    for (let i = 0; i < n; i++) { sxx += (xs[i] - mx) ** 2; sxy += (xs[i] - mx) * (ys[i] - my); }
    const slope = sxy / sxx;
    return [my - slope * mx + slope * v, slope];
  }

  function alongValue(points, v) {       // points: [value, median, low, high], sorted by value
    points = points.map(p => [p[0], p[1], p[1] * (p[2] / p[1]) ** NEW_SITTING, p[1] * (p[3] / p[1]) ** NEW_SITTING]);
    const exact = points.find(p => isClose(p[0], v));
    if (exact) return {band: {median: exact[1], low: exact[2], high: exact[3]}, basis: 'measured', extrapolated: false};
    const lo = points[0][0], hi = points[points.length - 1][0];
    if (lo < v && v < hi) {
      const i = points.findIndex(p => p[0] > v), a = points[i - 1], b = points[i];
      const share = (Math.log(v) - Math.log(a[0])) / (Math.log(b[0]) - Math.log(a[0]));
      const at = k => Math.exp(Math.log(a[k]) + share * (Math.log(b[k]) - Math.log(a[k])));
      return {band: {median: at(1), low: at(2), high: at(3)}, basis: 'interpolated', extrapolated: false};
    }
    const nearest = v > hi ? points[points.length - 1] : points[0];
    let band = null, basis = 'proportional';
    if (points.length >= 2) {
      const xs = points.map(p => p[0]);
      const fitted = [1, 2, 3].map(k => lineAt(xs, points.map(p => p[k]), v));
      if (fitted.every(([y, slope]) => y > 0 && slope > 0)) {
        const ys = fitted.map(([y]) => y);   // lines fitted apart may cross: span all three (predict.py)
        band = {median: ys[0], low: Math.min(...ys), high: Math.max(...ys)}; basis = 'linear per item';
      }
    }
    if (!band) { const r = v / nearest[0]; band = {median: nearest[1] * r, low: nearest[2] * r, high: nearest[3] * r}; }
    const m = widening(doublingsBeyond(v, lo, hi));
    return {band: scaled(band, 1 / (1 + m), 1, 1 + m), basis, extrapolated: true};
  }

  function speedup(law, p, params) {
    params = params || law.params;
    return law.law === 'usl' ? p / (1 + params.sigma * (p - 1) + params.kappa * p * (p - 1))
                             : 1 / (params.f + (1 - params.f) / p);
  }

  function speedupRange(law, p) {
    const names = Object.keys(law.ci);
    if (names.some(n => law.ci[n] === null)) return null;
    let corners = [{}];
    for (const n of names) corners = corners.flatMap(c => law.ci[n].map(x => ({...c, [n]: x})));
    const values = corners.map(c => speedup(law, p, c)).concat([speedup(law, p)]);
    return [Math.min(...values), Math.max(...values)];
  }

  function lawName(law) {
    const w = law.fitted_workers;
    return `${law.law === 'usl' ? 'USL' : 'Amdahl'} fit from ${Math.min(...w)}–${Math.max(...w)} workers`;
  }

  function nearestWorkers(counts, cores) {
    let best = null;
    for (const w of counts) {
      const key = Math.abs(Math.log(w / cores));
      if (best === null || key < best.key || (key === best.key && w > best.w)) best = {key, w};
    }
    return best.w;
  }

  function predict(s, v, cores, cpus) {
    const counts = [...new Set(s.points.map(p => p[0]).filter(w => w))].sort((a, b) => a - b);
    const takes = counts.length > 0;
    const usable = counts.filter(w => w <= cpus).length ? counts.filter(w => w <= cpus) : counts;
    const measured = takes ? nearestWorkers(usable, cores) : null;
    const points = s.points.filter(p => p[0] === measured).map(p => p.slice(1)).sort((a, b) => a[0] - b[0]);
    const estimate = alongValue(points, v);
    let band = estimate.band, workersBasis = takes ? 'measured' : '';
    if (takes && (measured !== cores || cores > cpus)) {
      if (!s.law) return {unpredictable: `measured at ×${measured} only: a worker sweep would give the speedup at ×${cores}`};
      const law = s.law, base = speedup(law, measured), ratio = base / speedup(law, cores), bounds = speedupRange(law, cores);
      if (bounds === null) {
        const w = law.fitted_workers, m = widening(doublingsBeyond(cores, Math.min(...w), Math.max(...w)));
        band = scaled(band, ratio / (1 + m), ratio, ratio * (1 + m));
      } else {
        band = scaled(band, base / bounds[1], ratio, base / bounds[0]);
      }
      workersBasis = (cores > cpus || cores > Math.max(...law.fitted_workers) ? 'not measured: ' : '') + lawName(law);
    }
    const name = `${s.runtime} ${s.model}` + (takes ? ` ×${cores}` : '');
    return {name, band, basis: estimate.basis, extrapolated: estimate.extrapolated, workersBasis, measured};
  }

  function rank(predictions) {
    const ranked = predictions.slice().sort((a, b) => a.band.median - b.band.median || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let leader = null;
    ranked.forEach((p, i) => {
      const next = ranked[i + 1];
      p.margin = next ? {ratio: next.band.median / p.band.median, low: next.band.low / p.band.high,
                         high: next.band.high / p.band.low, significant: !(next.band.low <= p.band.high), behind: next.name} : null;
      if (leader && p.band.low <= leader.high) { p.rank = ranked[i - 1].rank; }
      else { leader = p.band; p.rank = i + 1; }
    });
    return ranked;
  }

  function duration(ns) {
    for (const [unit, scale] of [['s', 1e9], ['ms', 1e6], ['µs', 1e3]]) {
      if (Math.abs(ns) >= scale) return `${(ns / scale).toPrecision(3)} ${unit}`;
    }
    return `${Math.round(ns)} ns`;
  }

  const svgSpace = document.querySelector('svg.advise-curves').namespaceURI;
  const el = (tag, attrs, text) => {
    const e = attrs.svg ? document.createElementNS(svgSpace, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) if (k !== 'svg') e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };

  function chosen() {
    const w = data.workloads[form.workload.selectedIndex];
    return {w, c: w.contexts[form.context.selectedIndex], v: Number(form.value.value), cores: Math.round(Number(form.cores.value)),
            figure: form.querySelector('input[name=figure]:checked').value};
  }

  // advise --for: the figure ranked, and the one shown beside it (advice.py other_figure).
  const FIGURE_WORDS = data.figure_words;
  const otherFigure = figure => figure === 'first-run' ? 'steady-state' : 'first-run';
  const asFigure = (s, figure) => ({runtime: s.runtime, model: s.model, points: s.figures[figure].points, law: s.figures[figure].law});
  const bandText = b => `${duration(b.median)} [${duration(b.low)} – ${duration(b.high)}]`;

  // The other figure's prediction for the same candidate, null where the store has none of it or
  // it cannot be predicted (advice.py _attach_other keeps only ranked predictions).
  function otherBand(s, figure, v, cores, cpus) {
    const f = asFigure(s, otherFigure(figure));
    if (!f.points.length) return null;
    const p = predict(f, v, cores, cpus);
    return p.unpredictable ? null : p.band;
  }

  function drawCurves(w, c, v, cores, ranked) {
    const svg = document.querySelector('svg.advise-curves');
    [...svg.querySelectorAll('.curve, .axis, .now')].forEach(e => e.remove());
    const lo = Math.min(w.values[0], v) / 4, hi = Math.max(w.values[w.values.length - 1], v) * 4;
    const xs = Array.from({length: 41}, (_, i) => Math.exp(Math.log(lo) + i / 40 * (Math.log(hi) - Math.log(lo))));
    const shown = ranked.slice(0, 6).map(p => ({p, ys: xs.map(x => predict(p.series, x, cores, w.cpus).band.median)}));
    const all = shown.flatMap(s => s.ys).filter(y => y > 0);
    if (!all.length) return;
    const ylo = Math.min(...all), yhi = Math.max(...all) * 1.0001;
    const X = x => 60 + (Math.log(x) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) * 520;
    const Y = y => 290 - (Math.log(y) - Math.log(ylo)) / (Math.log(yhi) - Math.log(ylo) || 1) * 260;
    svg.appendChild(el('line', {svg: 1, class: 'axis', x1: 60, y1: 290, x2: 580, y2: 290, stroke: '#888'}));
    svg.appendChild(el('text', {svg: 1, class: 'axis', x: 320, y: 312, 'text-anchor': 'middle', 'font-size': 11}, `${w.param} (log)`));
    svg.appendChild(el('text', {svg: 1, class: 'axis', x: 56, y: 34, 'text-anchor': 'end', 'font-size': 10}, duration(yhi)));
    svg.appendChild(el('text', {svg: 1, class: 'axis', x: 56, y: 290, 'text-anchor': 'end', 'font-size': 10}, duration(ylo)));
    svg.appendChild(el('line', {svg: 1, class: 'now', x1: X(v), y1: 20, x2: X(v), y2: 290, stroke: '#c33', 'stroke-dasharray': '4 3'}));
    const colours = ['#1b6ca8', '#d9822b', '#3a9a4a', '#8e44ad', '#c0392b', '#7f8c8d'];
    shown.forEach(({p, ys}, i) => {
      const points = xs.map((x, j) => `${X(x).toFixed(1)},${Y(ys[j]).toFixed(1)}`).join(' ');
      svg.appendChild(el('polyline', {svg: 1, class: 'curve mark', points, fill: 'none', stroke: colours[i], 'stroke-width': 2}));
      svg.appendChild(el('text', {svg: 1, class: 'curve', x: 590, y: 30 + 16 * i, 'font-size': 11, fill: colours[i]}, p.name));
    });
  }

  function update() {
    const {w, c, v, cores, figure} = chosen();
    const body = document.querySelector('table.advise tbody');
    body.replaceChildren();
    if (!(v >= 1) || !(cores >= 1)) return;
    const predicted = [], missing = [];
    for (const s of c.series) {
      const own = s.figures[figure];
      if (!own.points.length) {        // never ranked by the other figure instead (advice.py _without_figure)
        if (own.without_figure) missing.push([s, `no ${figure} figures stored for its ${own.without_figure} case(s) `
                                                 + '(runs from before protocol 4): not ranked by another figure instead']);
        continue;
      }
      const p = predict(asFigure(s, figure), v, cores, w.cpus);
      if (p.unpredictable) { missing.push([s, p.unpredictable]); continue; }
      p.series = asFigure(s, figure);
      p.other = otherBand(s, figure, v, cores, w.cpus);
      predicted.push(p);
    }
    const ranked = rank(predicted);
    for (const p of ranked) {
      const tr = el('tr', {'data-name': p.name, 'data-rank': p.rank, 'data-median': p.band.median,
                           'data-low': p.band.low, 'data-high': p.band.high, 'data-figure': figure});
      if (p.other) for (const k of ['median', 'low', 'high']) tr.setAttribute(`data-other-${k}`, p.other[k]);
      const other = `${FIGURE_WORDS[otherFigure(figure)]}: ` + (p.other ? bandText(p.other) : 'not stored for these runs');
      const margin = !p.margin ? '' : p.margin.significant
        ? `${p.margin.ratio.toPrecision(2)}× [${p.margin.low.toPrecision(2)}–${p.margin.high.toPrecision(2)}] ahead of ${p.margin.behind}`
        : `no significant difference from ${p.margin.behind}`;
      const from = (p.extrapolated ? 'EXTRAPOLATED: ' : '') + p.basis
        + (p.measured && p.workersBasis !== 'measured' ? `; ×${p.measured} scaled by ${p.workersBasis}` : p.measured ? `; measured at ×${p.measured}` : '');
      for (const text of [p.rank, p.name, bandText(p.band), margin, other, from]) {
        tr.appendChild(el('td', {}, String(text)));
      }
      body.appendChild(tr);
    }
    for (const [s, why] of missing) {
      const tr = el('tr', {class: 'not-predicted', 'data-name': `${s.runtime} ${s.model}`});
      for (const text of ['–', `${s.runtime} ${s.model}`, 'not predicted', why, '', '']) tr.appendChild(el('td', {}, text));
      body.appendChild(tr);
    }
    drawCurves(w, c, v, cores, ranked);
  }

  function fillContexts() {
    const w = data.workloads[form.workload.selectedIndex];
    form.context.replaceChildren(...w.contexts.map(c => el('option', {}, c.label)));
    document.getElementById('advise-param').textContent = `${w.param} (${w.items})`;
    form.value.value = w.values[w.values.length - 1];
    form.cores.value = w.cpus;
  }

  form.workload.replaceChildren(...data.workloads.map(w => el('option', {}, w.workload)));
  fillContexts();
  form.workload.addEventListener('change', () => { fillContexts(); update(); });
  for (const name of ['context', 'value', 'cores']) form[name].addEventListener('input', update);
  form.context.addEventListener('change', update);
  for (const choice of form.querySelectorAll('input[name=figure]')) choice.addEventListener('change', update);
  update();
})();
"""
