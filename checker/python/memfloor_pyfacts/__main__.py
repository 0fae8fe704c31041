"""`python3 -m memfloor_pyfacts ...`: the front end by hand (memfloor-check runs main.main)."""

import sys

from .main import main

sys.exit(main(sys.argv[1:]))
