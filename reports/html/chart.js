// The report page's live-bytes chart, as inline SVG: the live bytes of one device and memory kind
// over the trace, with its iterations, idle windows and idle floors.

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

// Byte ticks at round values of the unit of `top` (0, 200 MiB, 400 MiB, ...).
function byteTicks(top) {
  if (!(top > 0)) return {max: 1, ticks: [0]};
  let scale = 1;
  while (top / scale >= 1024 && scale < Math.pow(1024, 6)) scale *= 1024;
  const step = niceStep(top / scale / 5) * scale;
  const max = Math.ceil(top / step) * step;
  const ticks = [];
  for (let v = 0; v <= max + step / 2; v += step) ticks.push(v);
  return {max, ticks};
}

// One chart: the min/max band and last value per bucket of `series`, iterations and idle windows
// as bands, each idle floor as a red mark. Every element is O(points + iterations).
function chart(run, key, series, worstIteration) {
  const W = 960, H = 260, L = 74, R = 34, T = 14, B = 30;
  const points = arr(series.points).filter((p) => Array.isArray(p) && p.length >= 4);
  const bucket = num(series.bucket_ns);
  const trace = obj(run.trace);
  const iterations = arr(run.iterations);

  const starts = [num(trace.first_ns) || Infinity];
  if (points.length) starts.push(num(points[0][0]));
  if (iterations.length) starts.push(num(obj(iterations[0]).start_ns));
  const t0 = Math.min(...starts) === Infinity ? 0 : Math.min(...starts);
  let t1 = num(trace.end_ns);
  if (points.length) t1 = Math.max(t1, num(points[points.length - 1][0]));
  for (const it of iterations) t1 = Math.max(t1, num(obj(obj(it).idle).end_ns), num(obj(it).end_ns));
  if (!(t1 > t0)) t1 = t0 + 1;

  let top = 0;
  for (const p of points) top = Math.max(top, num(p[2]));
  const floors = [];
  for (const it of iterations) {
    const m = arr(obj(it).memory).find((x) => sameKey(obj(x), key));
    if (m && it.idle) floors.push({it, floor: num(obj(m.idle).floor)});
  }
  for (const f of floors) top = Math.max(top, f.floor);
  const yAxis = byteTicks(top * 1.04);

  const px = (v) => Math.round(v * 10) / 10;
  const x = (t) => px(L + (Math.min(Math.max(t, t0), t1) - t0) / (t1 - t0) * (W - L - R));
  const y = (v) => px(T + (1 - v / yAxis.max) * (H - T - B));

  const blocks = hasBlocks(run, key.device);
  const level = levelOf(key.kind, blocks) ? levelOf(key.kind, blocks) + ' ' : '';
  const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': 'live bytes over time, ' + keyName(key, blocks)});

  // Iterations and idle windows.
  const bands = svg('g', {class: 'bands'});
  iterations.forEach((it, i) => {
    const s = num(it.start_ns), e = num(it.end_ns);
    bands.appendChild(svg('rect', {class: 'iter-band' + (i % 2 ? ' alt' : ''), x: x(s), y: T,
      width: Math.max(0.5, x(e) - x(s)), height: H - T - B},
      svg('title', null, 'iteration ' + num(it.index) + ' (' + str(it.name) + '): ' + fmtNs(e - s))));
    const idle = obj(it.idle);
    if (isNum(idle.start_ns) && isNum(idle.end_ns)) {
      bands.appendChild(svg('rect', {class: 'idle-band', x: x(idle.start_ns), y: T,
        width: Math.max(0.5, x(idle.end_ns) - x(idle.start_ns)), height: H - T - B},
        svg('title', null, 'idle window after iteration ' + num(it.index) + ': ' + fmtNs(idle.end_ns - idle.start_ns))));
    }
  });
  root.appendChild(bands);

  // Grid and axes.
  const grid = svg('g', null);
  for (const v of yAxis.ticks) {
    grid.appendChild(svg('line', {class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v)}));
    grid.appendChild(svg('text', {class: 'tick', x: L - 6, y: y(v) + 4, 'text-anchor': 'end'}, fmtBytes(v)));
  }
  const xStep = niceStep((t1 - t0) / 6);
  for (let t = 0; t <= t1 - t0 + xStep / 1000; t += xStep) {
    grid.appendChild(svg('line', {class: 'axis', x1: x(t0 + t), x2: x(t0 + t), y1: H - B, y2: H - B + 4}));
    grid.appendChild(svg('text', {class: 'tick', x: x(t0 + t), y: H - B + 16, 'text-anchor': 'middle'},
      t === 0 ? '0' : '+' + fmtNs(t)));
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
    root.appendChild(svg('polygon', {class: 'band', points: coords(upper.concat(lower.reverse()))}));
  }
  root.appendChild(svg('polyline', {class: 'last', points: coords(line)}));

  // Idle floors.
  const marks = svg('g', null);
  let worstMark = null;
  for (const {it, floor} of floors) {
    const idle = obj(it.idle);
    const x1 = x(num(idle.start_ns));
    const x2 = Math.max(x1 + 4, x(num(idle.end_ns)));
    const isWorst = num(it.index) === worstIteration;
    marks.appendChild(svg('line', {class: 'floor-mark' + (isWorst ? ' worst' : ''), x1, x2, y1: y(floor), y2: y(floor)},
      svg('title', null, 'idle floor after iteration ' + num(it.index) + ': ' + fmtBytes(floor) + ' (' + exactBytes(floor) + ')')));
    if (isWorst) worstMark = {x: (x1 + x2) / 2, y: y(floor), floor};
  }
  if (worstMark) {
    const right = worstMark.x > W - 180;
    marks.appendChild(svg('text', {class: 'floor-label', x: worstMark.x + (right ? -6 : 6),
      y: Math.max(T + 12, worstMark.y - 6), 'text-anchor': right ? 'end' : 'start'},
      'steady ' + level + 'idle floor ' + fmtBytes(worstMark.floor)));
  }
  root.appendChild(marks);

  const legend = h('div', {class: 'legend'},
    h('span', null, h('span', {class: 'swatch band'}), 'min' + DASH + 'max live bytes per ' + fmtNs(bucket)),
    h('span', null, h('span', {class: 'swatch last'}), level + 'live bytes'),
    h('span', null, h('span', {class: 'swatch iter'}), 'iteration'),
    h('span', null, h('span', {class: 'swatch idle'}), 'idle window'),
    h('span', null, h('span', {class: 'swatch floor'}), level + 'idle floor'));
  return h('figure', {class: 'chart'}, root, legend,
    h('figcaption', null, plural(points.length, 'point') + ' over ' + fmtNs(t1 - t0) + ' (time since the trace began)'));
}
