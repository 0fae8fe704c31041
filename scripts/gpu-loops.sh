#!/usr/bin/env bash
# Training loops nobody here changed, under `memfloor run` on the device machine, both allocators
# (a table last): transformers' Trainer (plain and with gradient accumulation), accelerate's loop
# and a torch.compile'd loop, none with NVTX ranges, and a DDP job under torchrun (NCCL, one rank,
# NVTX ranges per iteration while NCCL pushes its own). Each program logs its own
# memory_allocated() after every step and the bytes its planted holder kept
# (tests/gpu/pytorch/loop_log.py); tests/gpu/pytorch/check_steps.py compares the report with it.
# Each run's site names follow: its top retaining sites and the sites at each memory's largest
# peak, and how much of a peak has no name (tests/gpu/pytorch/site_names.py; over 1% fails).
# usage: scripts/gpu-loops.sh [DIST] [parts]   DIST from scripts/gpu-dist.sh (default
#        build-hook/dist); parts: any of "trainer accelerate compile ddp gpt2 snapshot ship"
#        (default all but ship); gpt2 is a plain loop over transformers' GPT-2 with its own AdamW and NVTX
#        ranges (sites only: its log is not the others'); snapshot: a loop's own PyTorch memory
#        snapshot (no memfloor run) read by `memfloor analyze`; ship also records the small
#        Trainer trace that testdata/analysis/ ships.
#        ALLOCATORS ("native async"), LIMIT_S (seconds a run may take, 240).
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
PARTS=${2:-trainer accelerate compile ddp gpt2 snapshot}
FINAL=${OUT:-$PWD/gpu-loops-out}  # summary.txt, loops.tgz (reports, tables, logs), shipped trace
mkdir -p "$FINAL"
WORK=$(mktemp -d /tmp/memfloor-gpu-loops.XXXXXX)
KEEP="$WORK/keep"
mkdir -p "$KEEP"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TOKENIZERS_PARALLELISM=false
export MEMFLOOR_MODULES=${MEMFLOOR_MODULES:-1}  # module paths at the peaks (docs/design.md)
M="$DIST/memfloor"
T=tests/gpu/pytorch
SUMMARY="$KEEP/summary.txt"
echo "| program | steps | iterations | allocated floor == program's | holder named | warnings |" >"$SUMMARY"
echo "| --- | --- | --- | --- | --- | --- |" >>"$SUMMARY"

loop() {  # loop NAME ALLOCATOR SOURCE LOG -- CMD...: one traced run, its report and its row
  local name=$1 alloc=$2 source=$3 log=$4; shift 5
  local flags=()
  [ "$alloc" = async ] && flags=(--torch-allocator async)
  local dir="$WORK/$name-$alloc"
  local start=$SECONDS
  timeout "${LIMIT_S:-240}" "$M" run -q "${flags[@]}" -o "$dir" -- "$@" >"$KEEP/$name-$alloc.out" 2>&1
  echo "$name-$alloc: exit $? in $((SECONDS - start)) s, $(ls "$dir"/*.mftrace 2>/dev/null | wc -l) traces"
  tail -n 3 "$KEEP/$name-$alloc.out"
  # --top 1000: every site of a window and of a peak listed, the libraries' own among them
  "$M" analyze --top 1000 "$dir" -o "$dir/report.json" >"$KEEP/$name-$alloc.table.txt" 2>&1
  cp "$dir/report.json" "$KEEP/$name-$alloc.report.json" 2>/dev/null
  cp "$log" "$KEEP/$name-$alloc.log.json" 2>/dev/null
  if [ "$source" != none ]; then
    python3 $T/check_steps.py "$dir/report.json" "$log" --label "$name/$alloc" \
      --expect-source "$source" | tee -a "$SUMMARY"
  fi
  python3 $T/site_names.py "$dir/report.json" --label "$name/$alloc" >"$KEEP/$name-$alloc.sites.txt" ||
    echo "  $name/$alloc: sites without a name over 1% of a peak" | tee -a "$SUMMARY"
  cat "$KEEP/$name-$alloc.sites.txt" >>"$KEEP/sites.txt"
  head -n 12 "$KEEP/$name-$alloc.table.txt"
}

for alloc in ${ALLOCATORS:-native async}; do
  if [[ " $PARTS " == *" trainer "* ]]; then
    loop trainer "$alloc" steps "$WORK/trainer-$alloc.json" -- \
      python3 $T/trainer_loop.py --log "$WORK/trainer-$alloc.json"
    loop trainer-accum "$alloc" steps "$WORK/trainer-accum-$alloc.json" -- \
      python3 $T/trainer_loop.py --accumulation 2 --steps 8 --log "$WORK/trainer-accum-$alloc.json"
  fi
  if [[ " $PARTS " == *" accelerate "* ]]; then
    loop accelerate "$alloc" steps "$WORK/accelerate-$alloc.json" -- \
      python3 $T/accelerate_loop.py --log "$WORK/accelerate-$alloc.json"
  fi
  if [[ " $PARTS " == *" compile "* ]]; then
    loop compile "$alloc" steps "$WORK/compile-$alloc.json" -- \
      python3 $T/compile_loop.py --log "$WORK/compile-$alloc.json"
  fi
  if [[ " $PARTS " == *" gpt2 "* ]]; then
    loop gpt2 "$alloc" none "$WORK/gpt2-$alloc.json" -- \
      python3 $T/gpt2_steps.py --steps 5 --layers 6 --log "$WORK/gpt2-$alloc.json"
  fi
  if [[ " $PARTS " == *" ddp "* ]]; then
    loop ddp "$alloc" markers "$WORK/ddp-$alloc.rank0.json" -- \
      torchrun --standalone --nproc-per-node 1 $T/ddp_ranks.py --backend nccl --bug-rank 0 \
      --iterations 8 --count-log "$WORK/ddp-$alloc"
  fi
done

if [[ " $PARTS " == *" snapshot "* ]]; then
  # PyTorch's own memory snapshot of a loop run under no memfloor, read by `memfloor analyze`:
  # a full history, and one whose ring (--max-entries 3000) dropped the weights' allocations.
  for entries in 100000 3000; do
    name=snapshot-$entries
    python3 $T/snapshot_loop.py --max-entries $entries --log "$WORK/$name.log.json" \
      --snapshot "$WORK/$name.pickle" --json "$WORK/$name.json" >"$KEEP/$name.out" 2>&1
    for form in pickle json; do
      "$M" analyze --top 1000 "$WORK/$name.$form" -o "$KEEP/$name-$form.report.json" \
        >"$KEEP/$name-$form.table.txt" 2>&1 || echo "  $name.$form: analyze failed"
      python3 $T/check_steps.py "$KEEP/$name-$form.report.json" "$WORK/$name.log.json" \
        --label "$name/$form" --no-census --ring | tee -a "$SUMMARY"
    done
    cp "$WORK/$name.log.json" "$KEEP/"
    ls -la "$WORK/$name.pickle" "$WORK/$name.json"
  done
  # The other way: a memfloor trace of the same loop exported for PyTorch's viewer, which its own
  # _memory_viz draws (trace_plot, segment_plot) and sums (stats, trace); the export analysed again.
  "$M" run -q -o "$WORK/viz" -- python3 $T/snapshot_loop.py --max-entries 100000 \
    --log "$WORK/viz.log.json" --snapshot "$WORK/viz-own.pickle" >"$KEEP/viz.out" 2>&1
  trace=$(ls -S "$WORK/viz"/*.mftrace | head -1)
  "$M" export --format memory-viz "$trace" -o "$WORK/viz.pickle" 2>&1 | tail -3
  "$M" analyze --top 1000 "$WORK/viz.pickle" -o "$KEEP/viz-export.report.json" >"$KEEP/viz-export.table.txt" 2>&1
  python3 $T/check_steps.py "$KEEP/viz-export.report.json" "$WORK/viz.log.json" \
    --label "memfloor trace exported/memory-viz" --no-census | tee -a "$SUMMARY"
  for cmd in trace_plot segment_plot; do
    python3 -m torch.cuda._memory_viz $cmd "$WORK/viz.pickle" -o "$KEEP/viz-$cmd.html" \
      && echo "$cmd: $(wc -c <"$KEEP/viz-$cmd.html") bytes of HTML" || echo "$cmd: FAILED"
  done
  python3 -m torch.cuda._memory_viz stats "$WORK/viz.pickle" | tail -n 12 >"$KEEP/viz-stats.txt" \
    && tail -n 12 "$KEEP/viz-stats.txt" | head -4 || echo "stats: FAILED"
  python3 -m torch.cuda._memory_viz trace "$WORK/viz.pickle" >"$KEEP/viz-trace.txt" \
    && echo "trace: $(wc -l <"$KEEP/viz-trace.txt") lines" || echo "trace: FAILED"
  cp "$WORK/viz.pickle" "$FINAL/viz-export.pickle"
fi

if [[ " $PARTS " == *" ship "* ]]; then
  # The trace testdata/analysis/trainer_steps.txt is made from (scripts/ship-trace notes there).
  "$M" run -q -o "$WORK/ship" -- python3 $T/trainer_loop.py --layers 2 --embd 192 --seq 64 \
    --steps 8 --log "$KEEP/trainer-ship.log.json" >"$KEEP/trainer-ship.out" 2>&1
  trace=$(ls -S "$WORK/ship"/*.mftrace | head -1)
  cp "$trace" "$FINAL/trainer-ship.mftrace"
  "$M" analyze "$trace" >"$KEEP/trainer-ship.table.txt" 2>&1
  echo "ship: $(du -h "$trace" | cut -f1), $(head -n 4 "$KEEP/trainer-ship.table.txt" | tail -n 1)"
fi

echo
echo "================ gpu-loops summary ================"
cat "$SUMMARY"
cp "$SUMMARY" "$FINAL/summary.txt"
cp "$KEEP/sites.txt" "$FINAL/sites.txt" 2>/dev/null
tar -czf "$FINAL/loops.tgz" -C "$KEEP" .
rm -rf "$WORK"
