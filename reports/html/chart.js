// The report page's live-bytes chart, as inline SVG: the live bytes of one device and memory kind
// over the trace, with its iterations (ranges of alike ones as one band), idle windows and idle
// floors, downsampled when there are more of them than the chart has columns. Its x axis is by
// iteration (each iteration and its idle window given the same width, set-up and teardown narrow)
// or by time; dragging across it zooms in, a double click or "whole run" zooms out; hovering reads
// the live bytes, the iteration and the time under the pointer.

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

// Byte ticks at round values of the unit of `top` (0, 200 MiB, 400 MiB, ...), from 0, or from a
// round value at or below `low` where the data keep well above 0 (a floor of 105 MiB that grows by
// 2 MiB shows its growth, not a flat line high up).
function byteTicks(top, low) {
  if (!(top > 0)) return {min: 0, max: 1, ticks: [0]};
  let scale = 1;
  while (top / scale >= 1024 && scale < Math.pow(1024, 6)) scale *= 1024;
  const from = low > 0.4 * top ? low : 0;
  const step = niceStep((top - from) / scale / 5) * scale;
  const min = Math.floor(from / step) * step;
  const max = Math.max(min + step, Math.ceil(top / step) * step);
  const ticks = [];
  for (let v = min; v <= max + step / 2; v += step) ticks.push(v);
  return {min, max, ticks};
}

// Where times lie across the chart, from 0 to 1: in proportion to time (mode 'time'), or by
// iteration (mode 'iterations'): each iteration kept whole and its idle window one unit each, a
// range of them two, the set-up before the first iteration and the teardown after the last
// EDGE_SHARE of the units each, gaps between iterations a tenth of a unit. `at(t)` maps a time,
// `time(u)` maps back.
const EDGE_SHARE = 0.05;
function timeAxis(spans, t0, t1, mode) {
  if (mode !== 'iterations' || !spans.length) {
    return {at: (t) => (t - t0) / (t1 - t0), time: (u) => t0 + u * (t1 - t0)};
  }
  const slots = spans.reduce((n, sp) => n + 2, 0);
  const edge = Math.max(0.5, EDGE_SHARE * slots);
  const knots = [[t0, 0]];
  const add = (t, units) => {
    const last = knots[knots.length - 1];
    if (t > last[0]) knots.push([t, last[1] + units]);
  };
  spans.forEach((sp, i) => {
    add(sp.start, i === 0 ? edge : 0.1);
    if (sp.range) {
      add(sp.end, 2);
    } else {
      add(sp.iterationEnd, 1);
      add(sp.end, 1);
    }
  });
  add(t1, edge);
  const total = knots[knots.length - 1][1] || 1;
  // The knot segment holding `v` in column `k` (0: times, 1: units), by bisection.
  const segment = (v, k) => {
    let lo = 0, hi = knots.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (knots[mid][k] <= v) lo = mid; else hi = mid;
    }
    return lo;
  };
  const lerp = (v, k) => {
    if (knots.length < 2) return 0;
    const i = segment(v, k), a = knots[i], b = knots[Math.min(i + 1, knots.length - 1)];
    const f = b[k] > a[k] ? Math.min(1, Math.max(0, (v - a[k]) / (b[k] - a[k]))) : 0;
    return a[1 - k] + f * (b[1 - k] - a[1 - k]);
  };
  return {at: (t) => lerp(t, 0) / total, time: (u) => lerp(u * total, 1), knots};
}

// Per iteration the chart draws at most this many shapes per unit of the plot's width (a column,
// about a pixel); a run with more iterations and ranges is drawn downsampled (chart's `detailed`).
const SHAPES_PER_COLUMN = 2;

// Where an entry of iterationEntries lies: the iteration (a range: all its iterations), its idle
// window (null for a range, whose windows' times are not stored), its idle floor of `key` (null
// without a window; a range's: its first window's, and `floorEnd` its last's) and what hovering it
// says.
function chartSpan(entry, key) {
  if (entry.range) {
    const r = entry.range;
    const what = 'iterations ' + num(r.first) + DASH + num(r.last) + ' (' + fmtInt(rangeCount(r)) +
      (r.step ? ' from ' : ' like ') + num(r.like) + ')';
    const idle = obj(memoryOf(windowAt(entry, num(r.first)), key).idle);
    const end = obj(memoryOf(windowAt(entry, num(r.last)), key).idle);
    return {range: true, start: num(r.start_ns), end: num(r.end_ns), idle: null, what,
      floor: isNum(idle.floor) ? idle.floor : null, floorEnd: isNum(end.floor) ? end.floor : null,
      title: what + ': ' + fmtSpread(r.duration_ns, fmtNs) + ' each, idle windows ' + fmtSpread(r.idle_ns, fmtNs)};
  }
  const it = entry.row;
  const idle = obj(it.idle);
  const floor = obj(memoryOf(it, key).idle).floor;
  const s = num(it.start_ns), e = num(it.end_ns);
  return {range: false, start: s, end: Math.max(e, num(idle.end_ns)), iterationEnd: e, index: num(it.index),
    idle: isNum(idle.start_ns) && isNum(idle.end_ns) ? [idle.start_ns, idle.end_ns] : null,
    floor: it.idle && isNum(floor) ? floor : null,
    what: 'iteration ' + num(it.index), title: 'iteration ' + num(it.index) + ' (' + str(it.name) + '): ' + fmtNs(e - s)};
}

// One path of the plot's columns that `spans` ([start, end] in the chart's x) cover, as
// rectangles of full height, a rectangle per run of covered columns.
function columnsPath(spans, cls, L, T, height, width, title) {
  const cover = new Uint8Array(width);
  for (const [x1, x2] of spans) {
    const last = Math.min(width - 1, Math.floor(x2 - L));
    for (let c = Math.max(0, Math.floor(x1 - L)); c <= last; c++) cover[c] = 1;
  }
  let d = '';
  for (let c = 0; c < width; c++) {
    if (!cover[c]) continue;
    const first = c;
    while (c + 1 < width && cover[c + 1]) c++;
    d += `M${L + first},${T}h${c - first + 1}v${height}h${first - c - 1}z`;
  }
  return d ? svg('path', {class: cls, d}, svg('title', null, title)) : null;
}

// One path of the idle floors per column of the plot: from the lowest to the highest floor of the
// windows (and ranges) over it, columns alike in a row joined.
function floorsPath(floors, x, y, L, width) {
  const lo = new Float64Array(width).fill(Infinity), hi = new Float64Array(width).fill(-Infinity);
  for (const f of floors) {
    const x1 = x(f.start) - L, x2 = x(f.end) - L;
    // A trend's floor along the columns: from f.floor at x1 to f.floorEnd at x2.
    const at = (px) => (x2 > x1 ? f.floor + (f.floorEnd - f.floor) * Math.min(1, Math.max(0, (px - x1) / (x2 - x1))) : f.floor);
    const last = Math.min(width - 1, Math.floor(x2));
    for (let c = Math.max(0, Math.floor(x1)); c <= last; c++) {
      lo[c] = Math.min(lo[c], at(c), at(c + 1));
      hi[c] = Math.max(hi[c], at(c), at(c + 1));
    }
  }
  let d = '';
  for (let c = 0; c < width; c++) {
    if (lo[c] === Infinity) continue;
    const first = c;
    while (c + 1 < width && lo[c + 1] === lo[c] && hi[c + 1] === hi[c]) c++;
    d += `M${L + first},${y(hi[c])}H${L + c + 1}V${y(lo[c])}H${L + first}z`;
  }
  let min = Infinity, max = -Infinity, inRanges = 0;
  for (const f of floors) {
    min = Math.min(min, f.floor, f.floorEnd);
    max = Math.max(max, f.floor, f.floorEnd);
    if (f.sp.range) inRanges++;
  }
  return d ? svg('path', {class: 'floor-range', d}, svg('title', null, 'idle floors of ' +
    plural(floors.length - inRanges, 'window') + ' kept whole and ' + plural(inRanges, 'range') +
    ', lowest to highest per column: ' + fmtBytes(min) + DASH + fmtBytes(max))) : null;
}

// One chart: the min/max band and last value per bucket of `series`, iterations and idle windows
// as bands, each idle floor as a red mark; a range of alike iterations as one band with its idle
// floor (its `like`'s) across it, a trend range's rising or falling from its first window's to its
// last's. Past SHAPES_PER_COLUMN shapes per column, the ranges, the
// iterations kept whole and the floors are each one path over the columns they cover (the floors'
// from the lowest to the highest per column), so the page stays light whatever the number of
// iterations.
// `gate`: the gate's idle-floor check of this memory (gateBaseline), whose baseline is drawn.
function chart(run, key, series, worstIteration, gate) {
  const state = {mode: iterationEntries(run).length ? 'iterations' : 'time', view: [0, 1], gate};
  const figure = h('figure', {class: 'chart'});
  const draw = () => {
    figure.textContent = '';
    append(figure, chartParts(run, key, series, worstIteration, state, draw));
  };
  draw();
  return figure;
}

let chartCount = 0;  // each chart's clip path has an id of its own

function chartParts(run, key, series, worstIteration, state, draw) {
  const W = 960, H = 260, L = 74, R = 34, T = 14, B = 30;
  const plotW = W - L - R;
  const points = arr(series.points).filter((p) => Array.isArray(p) && p.length >= 4);
  const bucket = num(series.bucket_ns);
  const trace = obj(run.trace);
  const spans = iterationEntries(run).map((e) => chartSpan(e, key));
  const ranged = spans.filter((sp) => sp.range);

  const starts = [num(trace.first_ns) || Infinity];
  if (points.length) starts.push(num(points[0][0]));
  if (spans.length) starts.push(spans[0].start);
  const t0 = Math.min(...starts) === Infinity ? 0 : Math.min(...starts);
  let t1 = num(trace.end_ns);
  if (points.length) t1 = Math.max(t1, num(points[points.length - 1][0]));
  for (const sp of spans) t1 = Math.max(t1, sp.end);
  if (!(t1 > t0)) t1 = t0 + 1;

  const axis = timeAxis(spans, t0, t1, state.mode);
  const [v0, v1] = state.view;
  // The y axis fits what is in view: zoomed in on the iterations, their few MiB of change show.
  const tv0 = axis.time(v0), tv1 = axis.time(v1);
  const inView = (a, b) => b >= tv0 && a <= tv1;
  let top = 0, low = Infinity;
  for (const p of points) {
    if (!inView(num(p[0]), num(p[0]) + bucket)) continue;
    top = Math.max(top, num(p[2]));
    low = Math.min(low, num(p[1]));
  }
  // A kept window's floor lies over its idle window, a range's over the whole range.
  const floors = [];
  for (const sp of spans) {
    if (sp.floor === null) continue;
    const [start, end] = sp.idle ? [num(sp.idle[0]), num(sp.idle[1])] : [sp.start, sp.end];
    const floorEnd = isNum(sp.floorEnd) ? sp.floorEnd : sp.floor;
    floors.push({sp, start, end, floor: sp.floor, floorEnd});
    if (!inView(start, end)) continue;
    top = Math.max(top, sp.floor, floorEnd);
    low = Math.min(low, sp.floor, floorEnd);
  }
  const baseline = state.gate ? num(state.gate.baseline) : null;
  if (baseline !== null) {
    top = Math.max(top, baseline);
    low = Math.min(low, baseline);
  }
  const yAxis = byteTicks(top * 1.04, low === Infinity ? 0 : low * 0.98);
  const px = (v) => Math.round(v * 10) / 10;
  const x = (t) => px(L + (axis.at(Math.min(Math.max(t, t0), t1)) - v0) / (v1 - v0) * plotW);
  const y = (v) => px(T + (1 - (v - yAxis.min) / (yAxis.max - yAxis.min)) * (H - T - B));
  const shapes = spans.reduce((n, sp) => n + 1 + (sp.idle ? 1 : 0) + (sp.floor !== null ? 1 : 0), 0);
  const detailed = shapes <= SHAPES_PER_COLUMN * plotW;

  const blocks = hasBlocks(run, key.device);
  const level = levelOf(key.kind, blocks) ? levelOf(key.kind, blocks) + ' ' : '';
  const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': 'live bytes ' + (state.mode === 'iterations' ? 'by iteration' : 'over time') + ', ' + keyName(key, blocks)});
  const clipId = 'chart-clip-' + (++chartCount);
  root.appendChild(svg('defs', null, svg('clipPath', {id: clipId},
    svg('rect', {x: L, y: T, width: plotW, height: H - T - B}))));
  // What lies in the plot, clipped to it: the bands under the grid, the bytes and floors over it.
  const under = svg('g', {'clip-path': 'url(#' + clipId + ')'});
  const plot = svg('g', {'clip-path': 'url(#' + clipId + ')'});

  // Iterations, ranges and idle windows.
  const bands = svg('g', {class: 'bands'});
  const band = (cls, s, e, title) => svg('rect', {class: cls, x: x(s), y: T,
    width: Math.max(0.5, x(e) - x(s)), height: H - T - B}, svg('title', null, title));
  if (detailed) {
    spans.forEach((sp, i) => {
      if (sp.range) {
        bands.appendChild(band('range-band', sp.start, sp.end, sp.title));
        return;
      }
      bands.appendChild(band('iter-band' + (i % 2 ? ' alt' : ''), sp.start, sp.iterationEnd, sp.title));
      if (sp.idle) {
        bands.appendChild(band('idle-band', sp.idle[0], sp.idle[1],
          'idle window after ' + sp.what + ': ' + fmtNs(sp.idle[1] - sp.idle[0])));
      }
    });
  } else {
    // The ranges, then over them the columns where an iteration is kept whole (where the run's idle
    // windows change). Idle windows are left out: a column holds many, it would be all idle.
    const kept = spans.filter((sp) => !sp.range);
    append(bands, [
      columnsPath(ranged.map((sp) => [x(sp.start), x(sp.end)]), 'range-band', L, T, H - T - B, plotW,
        plural(ranged.length, 'range') + ' of alike iterations'),
      columnsPath(kept.map((sp) => [x(sp.start), x(sp.end)]), 'iter-band', L, T, H - T - B, plotW,
        plural(kept.length, 'iteration') + ' kept whole, with their idle windows'),
    ]);
  }
  under.appendChild(bands);
  root.appendChild(under);

  // Grid and axes.
  const grid = svg('g', null);
  for (const v of yAxis.ticks) {
    grid.appendChild(svg('line', {class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v)}));
    grid.appendChild(svg('text', {class: 'tick', x: L - 6, y: y(v) + 4, 'text-anchor': 'end'}, fmtBytes(v)));
  }
  for (const [at, label] of xTicks(spans, axis, t0, t1, state)) {
    const tx = x(at);
    if (tx < L - 0.5 || tx > W - R + 0.5) continue;
    grid.appendChild(svg('line', {class: 'axis', x1: tx, x2: tx, y1: H - B, y2: H - B + 4}));
    grid.appendChild(svg('text', {class: 'tick', x: tx, y: H - B + 16, 'text-anchor': 'middle'}, label));
  }
  grid.appendChild(svg('line', {class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B}));
  grid.appendChild(svg('line', {class: 'axis', x1: L, x2: L, y1: T, y2: H - B}));
  root.appendChild(grid);

  // The band (min..max per bucket, the last value carried over gaps) and the last-value line.
  // Live bytes are 0 before the first record.
  const upper = [], lower = [], line = [[t0, 0]];
  let prevLast = 0, prevEnd = t0;
  for (const p of points) {
    const start = num(p[0]), end = Math.min(start + bucket, t1);
    if (start > prevEnd) {
      upper.push([prevEnd, prevLast], [start, prevLast]);
      lower.push([prevEnd, prevLast], [start, prevLast]);
    }
    upper.push([start, num(p[2])], [end, num(p[2])]);
    lower.push([start, num(p[1])], [end, num(p[1])]);
    line.push([start, prevLast], [end, num(p[3])]);
    prevLast = num(p[3]);
    prevEnd = end;
  }
  upper.push([prevEnd, prevLast], [t1, prevLast]);
  lower.push([prevEnd, prevLast], [t1, prevLast]);
  line.push([t1, prevLast]);
  const coords = (list) => list.map(([t, v]) => x(t) + ',' + y(v)).join(' ');
  if (points.length) {
    plot.appendChild(svg('polygon', {class: 'band', points: coords(upper.concat(lower.reverse()))}));
  }
  plot.appendChild(svg('polyline', {class: 'last', points: coords(line)}));

  // Idle floors: a mark each, or downsampled, one path and the steady floor's mark.
  const marks = svg('g', null);
  let worstMark = null;
  const mark = ({sp, start, end, floor, floorEnd}) => {
    const x1 = x(start);
    const x2 = Math.max(x1 + 4, x(end));
    const isWorst = sp.index === worstIteration;
    // A trend's floor runs from its first window's to its last's.
    const to = floorEnd !== floor ? ' \u2192 ' + fmtBytes(floorEnd) + ' (' + exactBytes(floorEnd) + ')' : '';
    marks.appendChild(svg('line', {class: 'floor-mark' + (sp.range ? ' range' : '') + (isWorst ? ' worst' : ''),
      x1, x2, y1: y(floor), y2: y(floorEnd)},
    svg('title', null, 'idle floor ' + (sp.range ? 'of ' : 'after ') + sp.what + ': ' + fmtBytes(floor) +
      ' (' + exactBytes(floor) + ')' + to)));
    if (isWorst) worstMark = {x: (x1 + x2) / 2, y: y(floor), floor};
  };
  if (detailed) {
    floors.forEach(mark);
  } else {
    append(marks, [floorsPath(floors, x, y, L, plotW)]);
    const worst = floors.find((f) => f.sp.index === worstIteration);
    if (worst) mark(worst);
  }
  if (worstMark) {
    const right = worstMark.x > W - 180;
    marks.appendChild(svg('text', {class: 'floor-label', x: worstMark.x + (right ? -6 : 6),
      y: Math.max(T + 12, worstMark.y - 6), 'text-anchor': right ? 'end' : 'start'},
      'steady ' + level + 'idle floor ' + fmtBytes(worstMark.floor)));
  }
  plot.appendChild(marks);
  if (baseline !== null) {
    const g = state.gate;
    plot.appendChild(svg('line', {class: 'gate-baseline' + (g.regression === true ? ' regressed' : ''),
      x1: L, x2: W - R, y1: y(baseline), y2: y(baseline)},
    svg('title', null, 'the gate\u2019s baseline idle floor ' + fmtBytes(baseline) + ' (' + exactBytes(baseline) +
      '); this run ' + fmtBytes(num(g.current)) + ', ' + fmtSignedBytes(num(g.delta)) +
      (g.regression === true ? ': a regression' : ''))));
  }
  root.appendChild(plot);
  const tip = h('div', {class: 'chart-tip', hidden: ''});
  interact(root, tip, {W, L, plotW, axis, state, draw, spans, points, bucket, t0, t1});

  const legend = h('div', {class: 'legend'},
    h('span', null, h('span', {class: 'swatch band'}), 'min' + DASH + 'max live bytes per ' + fmtNs(bucket)),
    h('span', null, h('span', {class: 'swatch last'}), level + 'live bytes'),
    h('span', null, h('span', {class: 'swatch iter'}), 'iteration'),
    ranged.length ? h('span', null, h('span', {class: 'swatch range'}), 'alike iterations (a range)' +
      (ranged.some((sp) => sp.floorEnd !== sp.floor) ? ', or along a trend' : '')) : null,
    detailed ? h('span', null, h('span', {class: 'swatch idle'}), 'idle window') : null,
    h('span', null, h('span', {class: 'swatch floor'}), level + 'idle floor' + (detailed ? '' : 's, lowest to highest')),
    baseline !== null ? h('span', {class: 'gate-legend'}, h('span', {class: 'swatch gate'}), 'gate baseline ' +
      fmtBytes(baseline) + ' (this run ' + fmtSignedBytes(num(state.gate.delta)) + ')') : null);
  const count = iterationCount(run);
  return [chartToolbar(spans, state, draw), h('div', {class: 'chart-plot'}, root, tip), legend,
    h('figcaption', null, plural(points.length, 'point') + ' over ' + fmtNs(t1 - t0) +
      (state.mode === 'iterations' ? '; across, each iteration and its idle window take the same width, set-up and ' +
        'teardown a narrow band' : ' (time since the trace began)') +
      (detailed ? '' : '; ' + fmtInt(count) + ' iterations, drawn downsampled: per column of the chart the ' +
        'iterations kept whole and the ranges it covers, and the lowest to highest idle floor there'))];
}

// The x axis's labels: by iteration, the iterations' numbers (at most about a dozen, evenly
// spread) under their bands; by time, round times since the trace began.
function xTicks(spans, axis, t0, t1, state) {
  const [v0, v1] = state.view;
  if (state.mode === 'iterations' && spans.length) {
    const shown = spans.filter((sp) => {
      const u = axis.at(sp.start);
      return u >= v0 && u <= v1;
    });
    const stride = Math.max(1, Math.ceil(shown.length / 12));
    return shown.filter((sp, i) => i % stride === 0).map((sp) => [(sp.start + (sp.range ? sp.end : sp.iterationEnd)) / 2,
      sp.range ? sp.what.split(' ')[1] : String(sp.index)]);
  }
  const a = axis.time(v0) - t0, b = axis.time(v1) - t0;
  const step = niceStep((b - a) / 6);
  const ticks = [];
  for (let t = Math.ceil(a / step) * step; t <= b + step / 1000; t += step) {
    ticks.push([t0 + t, t === 0 ? '0' : '+' + fmtNs(t)]);
  }
  return ticks;
}

// The buttons above a chart: by iteration or by time, and the whole run when zoomed in.
function chartToolbar(spans, state, draw) {
  const button = (label, pressed, onClick) => {
    const b = h('button', {type: 'button', class: 'chart-mode' + (pressed ? ' on' : ''), 'aria-pressed': String(pressed)}, label);
    b.addEventListener('click', onClick);
    return b;
  };
  const zoomed = state.view[0] > 0 || state.view[1] < 1;
  return h('div', {class: 'chart-toolbar'},
    spans.length ? [button('by iteration', state.mode === 'iterations', () => {
      state.mode = 'iterations';
      state.view = [0, 1];
      draw();
    }), button('by time', state.mode === 'time', () => {
      state.mode = 'time';
      state.view = [0, 1];
      draw();
    })] : null,
    zoomed ? button('whole run', false, () => {
      state.view = [0, 1];
      draw();
    }) : null,
    h('span', {class: 'muted'}, zoomed ? ' zoomed in; double-click for the whole run' : ' drag across the chart to zoom in'));
}

// Hover and zoom on a chart's svg: the pointer's time, iteration and live bytes in `tip`; a drag
// across the plot zooms to what it covered, a double click back to the whole run.
function interact(root, tip, c) {
  const {W, L, plotW, axis, state, draw, spans, points, bucket, t0, t1} = c;
  const [v0, v1] = state.view;
  // The svg's x of a pointer event, in the viewBox's units.
  const svgX = (e) => {
    const box = root.getBoundingClientRect();
    return box.width > 0 ? (e.clientX - box.left) / box.width * W : 0;
  };
  const unitAt = (sx) => v0 + Math.min(1, Math.max(0, (sx - L) / plotW)) * (v1 - v0);
  const select = svg('rect', {class: 'zoom-select', x: 0, y: 0, width: 0, height: 0, visibility: 'hidden'});
  root.appendChild(select);
  let from = null;
  root.addEventListener('mousedown', (e) => {
    from = svgX(e);
    e.preventDefault();
  });
  root.addEventListener('mousemove', (e) => {
    const sx = svgX(e);
    if (from !== null) {
      const a = Math.max(L, Math.min(from, sx)), b = Math.min(L + plotW, Math.max(from, sx));
      setAttrs(select, {x: a, y: 14, width: Math.max(0, b - a), height: 216, visibility: 'visible'});
    }
    readout(tip, axis.time(unitAt(sx)), spans, points, bucket, t0, t1, (sx / W) * 100);
  });
  root.addEventListener('mouseleave', () => {
    tip.hidden = true;
    from = null;
    select.setAttribute('visibility', 'hidden');
  });
  root.addEventListener('mouseup', (e) => {
    if (from === null) return;
    const a = unitAt(Math.min(from, svgX(e))), b = unitAt(Math.max(from, svgX(e)));
    from = null;
    select.setAttribute('visibility', 'hidden');
    if (b - a > (v1 - v0) / 200) {
      state.view = [a, b];
      draw();
    }
  });
  root.addEventListener('dblclick', () => {
    state.view = [0, 1];
    draw();
  });
}

// The readout at time `t`: since the trace began, the iteration (or idle window, range) it falls
// in, and the live bytes of the bucket there (min, max, last).
function readout(tip, t, spans, points, bucket, t0, t1, leftPercent) {
  if (!(t >= t0 && t <= t1)) {
    tip.hidden = true;
    return;
  }
  let lo = 0, hi = points.length - 1, p = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (num(points[mid][0]) <= t) {
      p = points[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const sp = spans.find((s) => s.start <= t && t <= s.end);
  const where = !sp ? (spans.length && t < spans[0].start ? 'set-up' : 'after the last iteration')
    : sp.range || t <= sp.iterationEnd ? sp.what : 'idle window after ' + sp.what;
  const live = p && t < num(p[0]) + bucket
    ? 'live ' + fmtBytes(num(p[3])) + ' (min ' + fmtBytes(num(p[1])) + ', max ' + fmtBytes(num(p[2])) + ')'
    : p ? 'live ' + fmtBytes(num(p[3])) : 'no record yet';
  tip.textContent = '+' + fmtNs(t - t0) + ' \u00b7 ' + where + ' \u00b7 ' + live;
  tip.style.left = Math.min(70, Math.max(0, leftPercent)) + '%';
  tip.hidden = false;
}
