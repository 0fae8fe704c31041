#!/usr/bin/env python3
"""memfloor-check on training frameworks nobody here wrote, each finding read and judged.

    bench/checker_corpus.py BUILD_DIR REPOS_DIR [--python PY] [--jobs N] [--only NAME]...

REPOS_DIR holds a git clone of each code base of bench/checker_corpus.json, in a directory named
OWNER+NAME (a work tree's .git, a bare clone, or OWNER+NAME/repo). The code stays there: each
code base's package is taken at its pinned commit (`git archive`) into a scratch directory and
checked with the defaults (no .memfloor-check.json), as a new user would check it. A code base
whose clone is absent is skipped with a line that says so.

For each code base checked it prints the commit, files, MB, the findings per rule, the verdicts
(true, plausible, design, false) and the precision, (true + plausible) / findings; then each
history pair (a fix commit that released a tensor-holding member, and its parent), checked on
the parent and on the fix. Verdicts and pairs are data in bench/checker_corpus.json, their
reasons in docs/checks/triage.md.

Exit status 1 when a finding has no verdict (nobody has read it), when a verdict names a finding
the checker no longer gives (the data is stale), when a code base where the checker speaks is
under 70% precision or has more than one false finding per MB, or when a history pair does not
behave as recorded; 2 on a usage error.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "checker_corpus.json")
MIN_PRECISION = 0.70
MAX_FALSE_PER_MB = 1.0
VERDICTS = ("true", "plausible", "design", "false")

Key = Tuple[str, str, str, str]  # rule, file, function, field


def git_dir(repos: str, repo: str) -> Optional[str]:
    base = os.path.join(repos, repo.replace("/", "+"))
    for d in (os.path.join(base, "repo"), os.path.join(base, ".git"), base):
        if os.path.isdir(d) and subprocess.run(["git", "-C", d, "rev-parse", "--git-dir"],
                                                capture_output=True).returncode == 0:
            return d
    return None


def present(items: List[dict], wanted: set, repos: str):
    """The items asked for (all when none is named) whose clone is in `repos`, with its git
    directory; a line for each one whose clone is not."""
    for item in items:
        if wanted and item["name"] not in wanted:
            continue
        git = git_dir(repos, item["repo"])
        if git is None:
            print(f"{item['name']:<14} skipped: no clone of {item['repo']} in {repos}")
            continue
        yield item, git


def extract(git: str, commit: str, path: str, into: str) -> None:
    """`path` of `commit` into the directory `into` (the commit must be in the clone)."""
    os.makedirs(into, exist_ok=True)
    archive = subprocess.run(["git", "-C", git, "archive", commit, path], capture_output=True)
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {commit} {path}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)


def size_of(root: str) -> Tuple[int, int]:
    files = total = 0
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".py"):
                files += 1
                total += os.path.getsize(os.path.join(d, n))
    return files, total


def check(checker: str, python: str, jobs: int, root: str, path: str,
          options: Tuple[str, ...] = ()) -> List[dict]:
    """memfloor-check's findings on `path` below `root`, file names relative to `root`."""
    run = subprocess.run([checker, "--python", python, "-j", str(jobs), "--format", "json",
                          *options, path], cwd=root, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"memfloor-check on {path} exited {run.returncode}: {run.stderr[-2000:]}")
    return json.loads(run.stdout)["findings"]


def key_of(f: dict) -> Key:
    return (f["rule"], f["location"]["file"], f["function"], f["field"])


def check_fixits(checker: str, python: str, jobs: int, root: str, path: str,
                 findings: List[dict], name: str, problems: List[str]) -> str:
    """Applies the fix-its of `findings` in `root` (a scratch tree) with --fix, then asks of each
    edited file that it parses, and of the tree checked again (MF004 on) that no fixed finding is
    left and no MF004 names a fixed member: a fix-it must be safe to apply as it is."""
    fixed = [f for f in findings if f.get("fixits")]
    if not fixed:
        return "no fix-its"
    run = subprocess.run([checker, "--python", python, "-j", str(jobs), "--fix", path], cwd=root,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"memfloor-check --fix on {path} exited {run.returncode}: "
                           f"{run.stderr[-2000:]}")
    edited = sorted({x["location"]["file"] for f in fixed for x in f["fixits"]})
    parse = subprocess.run([python, "-c", "import ast, sys\nfor p in sys.argv[1:]:\n"
                            "    ast.parse(open(p, 'rb').read(), p)", *edited],
                           cwd=root, capture_output=True, text=True)
    if parse.returncode != 0:
        problems.append(f"{name}: a fixed file does not parse: {parse.stderr.strip()[-500:]}")
    config = os.path.join(root, "..", name + ".mf004.json")
    with open(config, "w") as out:
        json.dump({"mf004_python": True}, out)
    after = check(checker, python, jobs, root, path, ("--config", config))
    keys = {key_of(f) for f in fixed}
    members = {(f["location"]["file"], f["field"]) for f in fixed}
    left = [f for f in after if key_of(f) in keys or
            (f["rule"] == "MF004" and (f["location"]["file"], f["field"]) in members)]
    for f in left:
        problems.append(f"{name}: after the fix-its: {f['rule']} {f['location']['file']}:"
                        f"{f['location']['line']} {f['field']}")
    ok = parse.returncode == 0 and not left
    return f"{len(fixed)} fixed: {'parse, nothing left' if ok else 'FAILED'}"


def judge_code_base(cb: dict, findings: List[dict], megabytes: float,
                    problems: List[str]) -> Dict[str, int]:
    verdicts = {(v["rule"], v["file"], v["function"], v["field"]): v for v in cb.get("verdicts", [])}
    counts = collections.Counter()
    seen = set()
    for f in findings:
        k = key_of(f)
        seen.add(k)
        v = verdicts.get(k)
        if v is None:
            problems.append(f"{cb['name']}: not read: {f['rule']} {f['location']['file']}:"
                            f"{f['location']['line']} {f['function']} {f['field']}")
            counts["unread"] += 1
        else:
            counts[v["verdict"]] += 1
    for k in verdicts:
        if k not in seen:
            problems.append(f"{cb['name']}: a verdict names a finding the checker no longer gives: "
                            f"{' '.join(k)}")
    n = len(findings)
    if n:
        precision = (counts["true"] + counts["plausible"]) / n
        if precision < MIN_PRECISION:
            problems.append(f"{cb['name']}: precision {precision:.0%} < {MIN_PRECISION:.0%}")
        if counts["false"] > MAX_FALSE_PER_MB * megabytes:
            problems.append(f"{cb['name']}: {counts['false']} false findings on {megabytes:.1f} MB")
    return counts


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("repos")
    ap.add_argument("--python", default="python3", help="the front end's interpreter")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", action="append", default=[], help="code bases and pairs by name")
    args = ap.parse_args(argv)
    checker = os.path.join(os.path.abspath(args.build), "checker", "memfloor-check")
    if not os.access(checker, os.X_OK):
        print(f"checker_corpus: no {checker}", file=sys.stderr)
        return 2
    with open(DATA) as f:
        data = json.load(f)
    problems: List[str] = []
    wanted = set(args.only)
    print(f"{'code base':<14} {'commit':<12} {'files':>5} {'MB':>5}  findings by rule"
          f"{'':<14} true plaus design false  precision fix-its")
    with tempfile.TemporaryDirectory() as scratch:
        for cb, git in present(data["code_bases"], wanted, args.repos):
            root = os.path.join(scratch, cb["name"])
            extract(git, cb["commit"], cb["path"], root)
            files, size = size_of(root)
            findings = check(checker, args.python, args.jobs, root, cb["path"])
            counts = judge_code_base(cb, findings, size / 1e6, problems)
            rules = ", ".join(f"{r} {n}" for r, n in sorted(
                collections.Counter(f["rule"] for f in findings).items())) or "none"
            precision = (f"{(counts['true'] + counts['plausible']) / len(findings):.0%}"
                         if findings else "silent")
            fixits = check_fixits(checker, args.python, args.jobs, root, cb["path"], findings,
                                  cb["name"], problems)
            print(f"{cb['name']:<14} {cb['commit'][:12]} {files:>5} {size / 1e6:>5.1f}  "
                  f"{len(findings):>2}: {rules:<24} {counts['true']:>4} {counts['plausible']:>5} "
                  f"{counts['design']:>6} {counts['false']:>5}  {precision:<9} {fixits}")
        print()
        for pair, git in present(data.get("history", []), wanted, args.repos):
            found = {}
            for side, commit in (("before", pair["parent"]), ("after", pair["fix"])):
                root = os.path.join(scratch, pair["name"] + "." + side)
                extract(git, commit, pair["path"], root)
                findings = check(checker, args.python, args.jobs, root, pair["path"])
                found[side] = any(f["rule"] == pair["rule"] and f["location"]["file"] == pair["file"]
                                  and f["field"] == pair["field"] for f in findings)
            expected = pair["expect_found"]
            ok = found["before"] == expected and not found["after"]
            state = "found before, not after" if found["before"] and not found["after"] else \
                f"before: {'found' if found['before'] else 'missed'}, after: " \
                f"{'found' if found['after'] else 'not found'}"
            print(f"{pair['name']:<14} {pair['fix'][:12]} {pair['rule']} {pair['field']}: {state}"
                  f"{'' if ok else '  (recorded: ' + ('found' if expected else 'missed') + ')'}")
            if not ok:
                problems.append(f"{pair['name']}: {state}, recorded as "
                                f"{'found' if expected else 'missed'}")
    for p in problems:
        print("checker_corpus:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
