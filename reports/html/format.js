// The report page's formatting: counts, bytes in binary units, times, percentages, the names of
// memory kinds, source locations and ranges of iteration numbers, as the page shows them.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const MICRO = '\u00b5';
const DASH = '\u2013';

function fmtInt(n) {
  if (!isNum(n)) return DASH;
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// Binary units, three significant digits: 576 MiB, 2.00 MiB, 12.5 GiB.
function fmtBytes(n) {
  if (!isNum(n)) return DASH;
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const text = u === 0 ? String(v) : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
  return (n < 0 ? '-' : '') + text + ' ' + UNITS[u];
}

const fmtSignedBytes = (n) => (isNum(n) && n > 0 ? '+' : '') + fmtBytes(n);
const exactBytes = (n) => (isNum(n) ? fmtInt(n) + ' bytes' : null);

function fmtNs(ns) {
  if (!isNum(ns)) return DASH;
  const a = Math.abs(ns);
  const [div, unit] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, MICRO + 's'] : [1, 'ns'];
  if (div === 1) return Math.round(ns) + ' ns';
  const v = ns / div;
  const av = Math.abs(v);
  return v.toFixed(av >= 100 ? 0 : av >= 10 ? 1 : 2) + ' ' + unit;
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

const hasBlocks = (run, device) =>
  arr(obj(run).memory).some((m) => obj(m).kind === 'block' && num(obj(m).device) === num(device));

// A caching allocator's reserved level: device memory on a device with blocks. What it keeps is
// its cache: retained segments are classed `cached`, and its trend is not in the run's verdict.
const isReserved = (run, key) => str(obj(key).kind) === 'device' && hasBlocks(run, obj(key).device);

// The memory a device's headline floor is read from: its blocks where the run has any.
const headlineKind = (run, device) => (hasBlocks(run, device) ? 'block' : 'device');

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

// "1–4, 7, 9–10" from a list of iteration numbers.
function ranges(numbers) {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? sorted[i] + DASH + sorted[j] : String(sorted[i]));
    i = j;
  }
  return parts.join(', ');
}

const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
