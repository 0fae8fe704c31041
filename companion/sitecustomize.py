"""memfloor's entry into a traced Python process.

`memfloor run` puts this directory first on PYTHONPATH, so Python's site module imports this file
at start-up. It starts the companion (companion/memfloor/), then runs the sitecustomize it shadows,
if the interpreter has one, as if that had been imported directly. Nothing in here may stop the
program: every failure is one stderr line.
"""

import sys


def _start_companion() -> None:
    try:
        from memfloor import companion

        companion.start()
    except Exception as error:  # noqa: BLE001 - the program must run on untraced
        print(f"memfloor: the Python companion did not start: {error!r}", file=sys.stderr)


def _run_shadowed_sitecustomize() -> None:
    import importlib.machinery
    import importlib.util
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception:  # as site.execsitecustomize reports it, and the program goes on
        import traceback

        print(f"Error in sitecustomize ({spec.origin}); traceback follows:", file=sys.stderr)
        traceback.print_exc()


_start_companion()
_run_shadowed_sitecustomize()
