// The report page's formatting: counts, bytes in binary units, times, percentages, the names of
// memory kinds, source locations, ranges of iteration numbers and spreads over them, as the page
// shows them.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const MICRO = '\u00b5';
const DASH = '\u2013';

function fmtInt(n) {
  if (!isNum(n)) return DASH;
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// `numerator / denominator` (integers) with `decimals` (1 or 2) digits after the point, rounded to
// the nearest, ties to even, on exact integers: report/labels.cpp's fixedPoint, so that the page
// and memfloor's tables write every number alike (testdata/report/formats.json holds both).
function fixedPoint(numerator, denominator, decimals) {
  const scale = 10n ** BigInt(decimals);
  const d = BigInt(denominator);
  const scaled = BigInt(numerator) * scale;
  let q = scaled / d;
  const twiceRest = (scaled % d) * 2n;
  if (twiceRest > d || (twiceRest === d && q % 2n === 1n)) q += 1n;
  return (q / scale).toString() + '.' + (q % scale).toString().padStart(decimals, '0');
}

// Binary units: 512 B, 2.00 MiB (two decimals below 10 of the unit), 576.0 MiB (one from 10).
function fmtBytes(n) {
  if (!isNum(n)) return DASH;
  const b = Math.round(Math.abs(n));
  const sign = n < 0 && b > 0 ? '-' : '';
  if (b < 1024) return sign + b + ' ' + UNITS[0];
  let unit = 1;
  let unitBytes = 1024;
  while (b / unitBytes >= 1024 && unit < UNITS.length - 1) {
    unitBytes *= 1024;
    unit++;
  }
  return sign + fixedPoint(b, unitBytes, b / unitBytes < 10 ? 2 : 1) + ' ' + UNITS[unit];
}

const fmtSignedBytes = (n) => (isNum(n) && n > 0 ? '+' : '') + fmtBytes(n);
const exactBytes = (n) => (isNum(n) ? fmtInt(n) + ' bytes' : null);

// 800 ns, 12.5 µs, 33.2 ms, 2.50 s: report/labels.cpp's formatDuration.
function fmtNs(ns) {
  if (!isNum(ns)) return DASH;
  const a = Math.round(Math.abs(ns));
  const sign = ns < 0 && a > 0 ? '-' : '';
  if (a < 1e3) return sign + a + ' ns';
  const [div, decimals, unit] = a < 1e6 ? [1e3, 1, MICRO + 's'] : a < 1e9 ? [1e6, 1, 'ms'] : [1e9, 2, 's'];
  return sign + fixedPoint(a, div, decimals) + ' ' + unit;
}

function fmtPercent(p) {
  return isNum(p) ? (p > 0 ? '+' : '') + p.toFixed(1) + '%' : DASH;
}

// PyTorch's caching allocator on one device: the blocks it hands out (kind block) are what it
// allocated, the segments it took from CUDA (kind device) what it reserved. `blocks`: the run
// has blocks on the device. '' for memory that is neither.
function levelOf(kind, blocks) {
  if (kind === 'block') return 'allocated';
  return blocks && kind === 'device' ? 'reserved' : '';
}

// Whether the run has allocator blocks on `device`, and whether `key` is a caching allocator's
// reserved level (device memory on a device with blocks: what it keeps is its cache, retained
// segments are classed `cached`, and its trend is not in the run's verdict), as the report's views
// say (runs[].devices_with_blocks, runs[].reserved_levels; docs/report-schema.md, "Views").
const hasBlocks = (run, device) => arr(obj(run).devices_with_blocks).includes(num(device));
const isReserved = (run, key) => arr(obj(run).reserved_levels).some((k) => sameKey(obj(k), obj(key)));

function kindName(kind, blocks) {
  const level = levelOf(kind, blocks);
  if (level) return level + ' memory (allocator ' + (kind === 'block' ? 'blocks' : 'segments') + ')';
  const names = {
    device: 'device memory',
    pinned: 'pinned host memory',
    managed: 'managed memory',
    device_static: 'static device memory',
    pool: 'pool memory',
  };
  return names[kind] || str(kind) + ' memory';
}

const keyName = (x, blocks) => 'device ' + num(x.device) + ' \u00b7 ' + kindName(x.kind, blocks);
const sameKey = (a, b) => num(a.device) === num(b.device) && str(a.kind) === str(b.kind);
const locText = (l) => str(obj(l).file) + (num(obj(l).line) ? ':' + num(obj(l).line) : '');

// Iteration numbers and [first, last] spans of them, sorted and merged into spans.
function mergeSpans(items) {
  const spans = items.map((x) => (Array.isArray(x) ? [num(x[0]), Math.max(num(x[0]), num(x[1]))] : [num(x), num(x)]))
    .sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [first, last] of spans) {
    const prev = out[out.length - 1];
    if (prev && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last);
    else out.push([first, last]);
  }
  return out;
}

// How many iterations merged spans hold.
const spansCount = (spans) => spans.reduce((n, [first, last]) => n + last - first + 1, 0);

// "1–4, 7, 9–10" from merged spans; of more than `most` parts the first ones and the last, with
// how many are left out between (a leak's site can be listed in every other window of thousands).
function ranges(spans, most = 40) {
  const parts = spans.map(([first, last]) => (last > first ? first + DASH + last : String(first)));
  if (parts.length <= most) return parts.join(', ');
  return parts.slice(0, most - 1).join(', ') + ', \u2026 ' + fmtInt(parts.length - most) + ' more \u2026, ' +
    parts[parts.length - 1];
}

// A spread over a range's iterations ({min, max, mean}) by `fmt`: ["min–max", "(mean)"], or
// [value, null] when they are all alike; fmtSpread joins them.
function spreadParts(spread, fmt) {
  const s = obj(spread);
  if (num(s.min) === num(s.max)) return [fmt(num(s.min)), null];
  return [fmt(num(s.min)) + DASH + fmt(num(s.max)), '(' + fmt(num(s.mean)) + ')'];
}
const fmtSpread = (spread, fmt) => spreadParts(spread, fmt).filter((p) => p).join(' ');

const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
