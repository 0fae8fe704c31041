"""The companion's promise under faults: whatever fails in it is one line on stderr, and the
program runs with its own output and exit code. A small training script (nn.Linear, SGD, on the GPU
where there is one) runs with the companion loaded as `memfloor run` loads it (its folder first on PYTHONPATH), once
untraced and once per fault: garbage in every setting the companion reads, a PyTorch whose APIs
are missing or raise (faults/sitecustomize.py breaks it before the companion sees it), a census
and a drain that raise, a hook that cannot be loaded."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(HERE, "..", "..", "companion")
FAULTS_DIR = os.path.join(HERE, "faults")
HOOK = os.environ.get("MEMFLOOR_HOOK_LIB", "")

SCRIPT = """
import sys
import torch

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"  # the GPU where there is one
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4).to(device), torch.randn(8, 2).to(device)
for step in range(4):
    try:
        torch.cuda.nvtx.range_push(f"iteration {step}")
    except (RuntimeError, AttributeError) as error:  # no NVTX in a CPU build
        pass
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    try:
        torch.cuda.nvtx.range_pop()
    except (RuntimeError, AttributeError):
        pass
    print(step, f"{loss.item():.6f}")
sys.exit(int(sys.argv[1]))
"""

# Every setting the companion reads (grep environ python/memfloor), all at once.
SETTINGS = ("MEMFLOOR_FLUSH_MS", "MEMFLOOR_TORCH_BLOCKS", "MEMFLOOR_STEPS", "MEMFLOOR_MODULES",
            "MEMFLOOR_CENSUS", "MEMFLOOR_STACKS", "MEMFLOOR_VERBOSE", "MEMFLOOR_CENSUS_DEVICE",
            "MEMFLOOR_CENSUS_RANGES", "MEMFLOOR_ITERATION_DOMAIN", "PYTORCH_CUDA_ALLOC_CONF",
            "PYTORCH_ALLOC_CONF")
GARBAGE = ("", "\u00b2", "9" * 5000, "-1", str(2 ** 200) + ":,;=(a+)+$|[",
           "\udcff\udcfe bytes that are no UTF-8")  # the last: b"\xff\xfe ..." in the process
PLAIN = {"MEMFLOOR_CENSUS": "every", "MEMFLOOR_CENSUS_DEVICE": "cpu", "MEMFLOOR_MODULES": "1"}


def run(exit_code=0, env_extra=None, traced=True, faults=""):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMFLOOR_", "CUDA_INJ", "PYTORCH_"))}
    env["PYTHONPATH"] = os.pathsep.join(
        ([os.path.abspath(PYTHON_DIR), FAULTS_DIR] if traced else []))
    if traced:
        env.update(MEMFLOOR_OUTPUT_DIR=tempfile.gettempdir(),
                   CUDA_INJECTION64_PATH=HOOK or "/nonexistent/libmemfloor_hook.so")
    env["FAULTS"] = faults
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", SCRIPT, str(exit_code)], env=env,
                          capture_output=True, timeout=300)


class FaultsTest(unittest.TestCase):
    untraced = {}

    def expect_unchanged(self, exit_code=0, env_extra=None, faults=""):
        # PYTORCH_* settings are the program's own: its untraced run has them too. A GPU build of
        # PyTorch may refuse them (2.11 aborts on a garbled PYTORCH_CUDA_ALLOC_CONF); the traced
        # run must then end just as the untraced one does.
        own = {k: v for k, v in (env_extra or {}).items() if k.startswith("PYTORCH_")}
        key = (exit_code, tuple(sorted(own.items())))
        if key not in self.untraced:
            self.untraced[key] = run(exit_code, env_extra=own, traced=False)
        plain = self.untraced[key]
        if not own:
            self.assertEqual(plain.returncode, exit_code, plain.stderr)
        result = run(exit_code, env_extra=env_extra, faults=faults)
        stderr = result.stderr.decode("utf-8", "replace")
        self.assertEqual((result.returncode, result.stdout), (plain.returncode, plain.stdout),
                         stderr)
        lines = stderr.splitlines()
        if plain.returncode != exit_code:  # PyTorch's own failure, said in its own words
            return lines
        # One line per failure: only memfloor's lines (no traceback), none said twice.
        self.assertTrue(all(line.startswith("memfloor: ") for line in lines), stderr)
        self.assertEqual(len(lines), len(set(lines)), stderr)
        return lines

    def test_garbage_in_every_setting(self):
        for value in GARBAGE:
            with self.subTest(value=value[:20]):
                self.expect_unchanged(env_extra={name: value for name in SETTINGS},
                                      faults="pytorch2")

    def test_garbage_with_this_pytorch(self):
        # The PyTorch installed as it is (on a GPU machine: 2.x and CUDA, nothing faked), garbage
        # in the companion's settings alone, then in PyTorch's too.
        for value in GARBAGE:
            for names in ([name for name in SETTINGS if name.startswith("MEMFLOOR_")], SETTINGS):
                with self.subTest(value=value[:20], settings=len(names)):
                    self.expect_unchanged(env_extra={name: value for name in names})

    def test_the_exit_code_is_the_programs(self):
        self.expect_unchanged(3, env_extra=PLAIN, faults="pytorch2")

    def test_pytorch_apis_that_are_missing(self):
        self.expect_unchanged(env_extra=PLAIN, faults="absent")
        self.expect_unchanged(env_extra=PLAIN, faults="pytorch2,absent")

    def test_pytorch_apis_that_raise(self):
        for faults in ("pytorch2,step_hook_raises", "pytorch2,record_raises", "unsignable",
                       "pytorch2,compiling_raises", "pytorch2,module_hook_raises"):
            with self.subTest(faults=faults):
                self.expect_unchanged(env_extra=PLAIN, faults=faults)

    @unittest.skipUnless(HOOK, "MEMFLOOR_HOOK_LIB is not set (no built hook)")
    def test_a_census_that_raises(self):
        lines = self.expect_unchanged(env_extra=PLAIN, faults="pytorch2,load_hook,census_raises")
        self.assertEqual(sum("census failed" in line for line in lines), 1, lines)

    @unittest.skipUnless(HOOK, "MEMFLOOR_HOOK_LIB is not set (no built hook)")
    def test_a_drain_that_raises(self):
        lines = self.expect_unchanged(env_extra=PLAIN, faults="pytorch2,load_hook,drain_raises")
        self.assertEqual(sum("allocator blocks" in line for line in lines), 1, lines)

    def test_a_hook_that_cannot_be_loaded(self):
        with tempfile.NamedTemporaryFile(suffix=".so") as junk:
            junk.write(b"not a shared object")
            junk.flush()
            for path in ("/nonexistent/libmemfloor_hook.so", junk.name):
                with self.subTest(path=path):
                    self.expect_unchanged(env_extra=dict(PLAIN, CUDA_INJECTION64_PATH=path),
                                          faults="pytorch2")


if __name__ == "__main__":
    unittest.main()
