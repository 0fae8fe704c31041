"""memfloor, installed from its wheel: the binaries and their parts under memfloor/prefix/.

The package holds `cmake --install`'s layout (prefix/bin/memfloor, prefix/lib/memfloor/
libmemfloor_hook.so, prefix/share/memfloor/companion...), in which the binary finds its parts next to
itself; `python -m memfloor` and the `memfloor` console script run that binary. A traced Python
process imports the companion's own `memfloor` package (prefix/share/memfloor/companion), which
`memfloor run` puts first on PYTHONPATH, not this one.
"""

import os

PREFIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefix")
BINARY = os.path.join(PREFIX, "bin", "memfloor")
