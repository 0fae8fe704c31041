"""The settings `memfloor run` hands the program, as environment variables: the companion's side of
common/run_settings.h, the one contract between run, the hook and the companion
(tests/python/test_run_settings.py holds the two to the same names and values). No module of the
companion reads a MEMFLOOR_ variable by another name."""

# Read by the hook and the companion.
OUTPUT_DIR = "MEMFLOOR_OUTPUT_DIR"
STACKS = "MEMFLOOR_STACKS"
FLUSH_MS = "MEMFLOOR_FLUSH_MS"
VERBOSE = "MEMFLOOR_VERBOSE"

# Read by the hook.
BUFFER_SIZE = "MEMFLOOR_BUFFER_SIZE"
STACK_DEPTH = "MEMFLOOR_STACK_DEPTH"
ITERATION_PATTERN = "MEMFLOOR_ITERATION_PATTERN"

# Read by the companion.
CENSUS = "MEMFLOOR_CENSUS"
CENSUS_DEVICE = "MEMFLOOR_CENSUS_DEVICE"
CENSUS_RANGES = "MEMFLOOR_CENSUS_RANGES"
ITERATION_DOMAIN = "MEMFLOOR_ITERATION_DOMAIN"
MODULES = "MEMFLOOR_MODULES"
STEPS = "MEMFLOOR_STEPS"
TORCH_BLOCKS = "MEMFLOOR_TORCH_BLOCKS"

# Read by `memfloor run` itself.
HOOK_PATH = "MEMFLOOR_HOOK"
COMPANION_DIR = "MEMFLOOR_PYTHON_DIR"

STACK_MODES = ("auto", "python", "native", "none")
CENSUS_MODES = ("auto", "every", "off")
AUTO, EVERY, OFF = CENSUS_MODES
NO_STACKS = STACK_MODES[3]


def verbose(environ) -> bool:
    return environ.get(VERBOSE) == "1"


def stacks_on(environ) -> bool:
    return environ.get(STACKS, "") != NO_STACKS


def census_off(environ) -> bool:
    """Only whether MEMFLOOR_CENSUS is off: the rest of it is read (census_schedule.py) once torch
    is imported, so that a process that never imports torch loads nothing of the census."""
    return environ.get(CENSUS, "").strip() == OFF
