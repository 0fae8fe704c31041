"""`python -m memfloor ARGS` and the `memfloor` console script: exec the carried binary.

The process becomes memfloor itself (same pid, signals, exit status); it finds the hook and the
companion relative to its own location, so nothing is set in the environment.
"""

import os
import sys

from memfloor import BINARY


def main() -> None:
    try:
        os.execv(BINARY, [BINARY, *sys.argv[1:]])
    except OSError as error:
        print(f"memfloor: error: {BINARY}: cannot run: {error.strerror}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
