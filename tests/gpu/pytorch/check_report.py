#!/usr/bin/env python3
"""Compares a memfloor report of a planted or model run with the program's own log.

  check_report.py REPORT.json LOG.json

Prints one line per check: the idle floors of blocks (allocated) and segments (reserved) against
torch.cuda.memory_allocated() / memory_reserved() logged in the same windows, the top retaining
site of the last steady window (name, class, bytes), and the persistent bytes against parameters
plus optimizer state. Exit 1 when an exact check fails.
"""
import json
import sys

MIB = 1 << 20


def main() -> int:
    report = json.load(open(sys.argv[1]))
    log = json.load(open(sys.argv[2]))
    run = report["runs"][0]
    kinds = sorted({(m["device"], m["kind"]) for m in run["memory"]})
    allocated_kind = "block" if any(k == "block" for _, k in kinds) else "device"
    label = f"{log.get('case', log.get('model', '?'))}/{log['backend']}"
    failed = False
    rows = {it["index"]: it for it in run["iterations"]}
    exact = {"allocated": 0, "reserved": 0}
    diffs = {"allocated": [], "reserved": []}
    windows = log["windows"][:-1]  # the last window ends with the trace (teardown)
    for w in windows:
        it = rows.get(w["step"] + 1)
        if it is None:
            continue
        floors = {m["kind"]: m["idle"]["floor"] for m in it["memory"] if m["device"] == 0}
        checks = [("allocated", allocated_kind, w["allocated"])]
        if allocated_kind == "block":
            checks.append(("reserved", "device", w["reserved"]))
        for name, kind, want in checks:
            got = floors.get(kind)
            if got is None:
                continue
            diffs[name].append(got - want)
            exact[name] += got == want
    for name in ("allocated", "reserved"):
        if diffs[name]:
            ok = exact[name] == len(diffs[name])
            failed |= not ok
            print(f"{label}: {name} idle floor == torch's at {exact[name]}/{len(diffs[name])} "
                  f"windows (diff min/max {min(diffs[name])}/{max(diffs[name])} B)")
    steady = [it for it in run["iterations"] if it["complete"] and not it["idle"]["final"]]
    if steady:
        last = steady[-1]
        for m in last["memory"]:
            r = m["idle"]["retained"]
            print(f"{label}: window {last['index']} {m['kind']}: floor {m['idle']['floor'] / MIB:.2f}"
                  f" MiB, retained inter {r['inter_iteration']['bytes'] / MIB:.2f} leak "
                  f"{r['leak']['bytes'] / MIB:.2f} persistent {r['persistent']['bytes'] / MIB:.2f}"
                  f" cached {r.get('cached', {}).get('bytes', 0) / MIB:.2f} MiB")
        for site in last["top_sites"][:3]:
            classes = {k: site[k]["bytes"] for k in ("inter_iteration", "leak", "persistent",
                                                     "cached")
                       if isinstance(site.get(k), dict)}
            print(f"{label}:   site {site['kind']} {site['bytes'] / MIB:.2f} MiB {site['where']}"
                  f" {classes}")
    if "plant_line" in log and log["plant_line"]:
        want = f"planted.py:{log['plant_line']}"
        named = any(want in s["where"] for it in steady for s in it["top_sites"][:1])
        print(f"{label}: top site names {want}: {named}")
    if "parameter_bytes" in log and steady:
        want = log["parameter_bytes"] + log["optimizer_state_bytes"]
        got = sum(m["idle"]["retained"]["persistent"]["bytes"] for m in steady[-1]["memory"]
                  if m["kind"] == allocated_kind)
        print(f"{label}: persistent {got / MIB:.2f} MiB vs parameters + optimizer state "
              f"{want / MIB:.2f} MiB ({100.0 * (got - want) / want:+.2f}%)")
        if "persistent_allocated_bytes" in log:
            # What the program measured itself: memory_allocated() once the model and the
            # optimizer state exist, and the parts that are neither (buffers, cuBLAS workspaces).
            parts = {k: log[k] for k in ("buffer_bytes", "input_bytes", "cublas_workspace_bytes") if k in log}
            exact = log["persistent_allocated_bytes"]
            print(f"{label}: persistent {got} B vs the program's memory_allocated() {exact} B "
                  f"(parameters + state + " + " + ".join(f"{k} {v}" for k, v in parts.items())
                  + f" + allocator rounding {exact - want - sum(parts.values())} B)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
