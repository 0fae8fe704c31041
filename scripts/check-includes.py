#!/usr/bin/env python3
"""The dependency rules of docs/design.md ("Modules and their dependencies"), checked on #include lines.

    scripts/check-includes.py [ROOT]     exits 1 and names every include that breaks a rule
    scripts/check-includes.py --self-test   plants one breach per rule in a scratch tree: each must be found

A module may include its own headers and those of the modules it depends on; CUDA and Clang headers
only where the module is built with them. Tests, benchmarks and fuzz targets are not modules and
may include anything.
"""
import pathlib
import re
import sys
import tempfile

# Project include roots: a quoted include "X/..." names module X ("include/memfloor/..." and
# <memfloor/...> name the public C API header that programs include).
MODULES = ["common", "trace", "runtime_hook", "symbols", "report", "analysis", "reports", "checker",
           "cli", "reference_model", "include"]
CUDA = re.compile(r"^(cuda|cupti|cublas|nvtx3/|nvToolsExt|generated_cuda|driver_types)")
CLANG = re.compile(r"^(clang|llvm)/")

# module: (project modules it may include besides itself, may include CUDA, may include Clang)
RULES = {
    "common": ([], False, False),
    "trace": (["common"], False, False),
    "runtime_hook": (["common", "trace", "include"], True, False),
    "symbols": (["common", "trace"], False, False),
    "report": (["common", "trace", "symbols"], False, False),
    "analysis": (["common", "trace", "symbols", "report"], False, False),
    "reports": (["common", "trace", "symbols", "report"], False, False),
    "checker": (["common"], False, True),
    "cli": (["common", "trace", "symbols", "report", "analysis", "reports"], False, False),
    "reference_model": ([], True, False),
    "include": ([], False, False),
}
SOURCES = ("*.h", "*.hpp", "*.cpp", "*.cc", "*.cu", "*.cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def breaches(root: pathlib.Path):
    """Yields (file, line number, include, why) for every include that breaks a rule."""
    for module, (allowed, cuda_ok, clang_ok) in RULES.items():
        folder = root / module
        if not folder.is_dir():
            continue
        files = sorted(f for pattern in SOURCES for f in folder.rglob(pattern))
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                kind, name = match.groups()
                why = None
                if kind == '"' and "/" in name and name.split("/", 1)[0] in MODULES:
                    target = name.split("/", 1)[0]
                    if target != module and target not in allowed:
                        why = f"{module}/ may not include {target}/"
                elif kind == "<" and name.startswith("memfloor/") and "include" not in allowed:
                    why = f"{module}/ may not include memfloor's own headers"
                elif kind == "<" and CUDA.match(name) and not cuda_ok:
                    why = f"{module}/ builds without CUDA headers"
                elif kind == "<" and CLANG.match(name) and not clang_ok:
                    why = f"{module}/ builds without Clang/LLVM headers"
                if why:
                    yield path.relative_to(root), number, name, why


def check(root: pathlib.Path) -> int:
    found = list(breaches(root))
    for path, number, name, why in found:
        print(f"{path}:{number}: #include {name}: {why}")
    checked = sum(1 for m in RULES if (root / m).is_dir())
    print(f"check-includes: {len(found)} breaches in {checked} modules")
    return 1 if found else 0


def self_test() -> int:
    planted = {
        "analysis/a.cpp": "#include <cuda_runtime.h>",
        "reports/b.h": "#include <clang/AST/Decl.h>",
        "symbols/c.cpp": '#include "analysis/report.h"',
        "runtime_hook/d.cpp": '#include "symbols/symbols.h"',
        "checker/e.cpp": '#include "reports/gate.h"',
        "reference_model/f.cpp": "#include <memfloor/markers.h>",
        "reference_model/g.cpp": '#include "trace/records.h"',
        "trace/h.h": '#include "analysis/report.h"',
        "report/i.h": '#include "analysis/analysis.h"',
        "reports/j.cpp": '#include "analysis/analysis.h"',
    }
    allowed = {
        "analysis/ok.cpp": '#include "symbols/frame.h"\n#include <fmt/format.h>',
        "reports/ok.cpp": '#include "report/model.h"',
        "runtime_hook/ok.cpp": '#include <cupti.h>\n#include "include/memfloor/markers.h"',
        "checker/cpp/ok.cpp": '#include <clang/AST/Decl.h>\n#include "checker/facts.h"',
        "reference_model/ok.cu": "#include <cuda_runtime.h>\n#include <nvtx3/nvToolsExt.h>",
    }
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        for name, text in {**planted, **allowed}.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text + "\n")
        found = {str(path) for path, _, _, _ in breaches(root)}
    missed = sorted(set(planted) - found)
    wrong = sorted(found - set(planted))
    for name in missed:
        print(f"check-includes self-test: the breach in {name} was not found")
    for name in wrong:
        print(f"check-includes self-test: {name} was flagged but is allowed")
    print(f"check-includes self-test: {len(planted) - len(missed)} of {len(planted)} breaches found, "
          f"{len(wrong)} false alarms")
    return 1 if missed or wrong else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    sys.exit(check(root.resolve()))
