"""python/sitecustomize.py: starts the companion, then runs the sitecustomize it shadows."""

import os
import subprocess
import sys
import tempfile
import unittest

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "companion")

PROBE = """
import sys
watching = any(type(f).__name__ == "_Watcher" for f in sys.meta_path)
print("companion" if "memfloor.companion" in sys.modules else "no-companion",
      "watching" if watching else "not-watching")
"""


def run(env_extra, user_site=None, code=PROBE):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMFLOOR_", "CUDA_INJ"))}
    paths = [os.path.abspath(PYTHON_DIR)] + ([user_site] if user_site else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


TRACED = {"MEMFLOOR_OUTPUT_DIR": "/nonexistent", "CUDA_INJECTION64_PATH": "/nonexistent/hook.so"}


class SitecustomizeTest(unittest.TestCase):
    def test_traced_process_starts_the_companion_and_the_shadowed_sitecustomize(self):
        with tempfile.TemporaryDirectory() as user:
            marker = os.path.join(user, "ran")
            with open(os.path.join(user, "sitecustomize.py"), "w") as f:
                f.write(f"open({marker!r}, 'w').write(__name__)\n")
            result = run(TRACED, user)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout.split(), ["companion", "watching"])
            with open(marker) as f:
                self.assertEqual(f.read(), "sitecustomize")

    def test_untraced_process_gets_no_companion(self):
        result = run({})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["companion", "not-watching"])

    def test_opting_out_of_blocks_steps_and_censuses(self):
        result = run(dict(TRACED, MEMFLOOR_TORCH_BLOCKS="0"))  # censuses still watch for torch
        self.assertEqual(result.stdout.split(), ["companion", "watching"])
        result = run(dict(TRACED, MEMFLOOR_TORCH_BLOCKS="0", MEMFLOOR_CENSUS="off"))
        self.assertEqual(result.stdout.split(), ["companion", "watching"])  # steps still do
        result = run(dict(TRACED, MEMFLOOR_TORCH_BLOCKS="0", MEMFLOOR_CENSUS="off",
                          MEMFLOOR_STEPS="0"))
        self.assertEqual(result.stdout.split(), ["companion", "not-watching"])

    def test_a_bad_census_value_is_said_only_once_torch_is_imported(self):
        result = run(dict(TRACED, MEMFLOOR_CENSUS="bogus"))
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(result.stdout.split(), ["companion", "watching"])
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("torch is not installed")
        result = run(dict(TRACED, MEMFLOOR_CENSUS="bogus", MEMFLOOR_TORCH_BLOCKS="0"),
                     code="import torch; print(torch.zeros(2).sum().item())")
        self.assertEqual((result.returncode, result.stdout), (0, "0.0\n"), result.stderr)
        [line] = result.stderr.splitlines()
        self.assertTrue(line.startswith("memfloor: MEMFLOOR_CENSUS=bogus: "), line)

    def test_a_failing_shadowed_sitecustomize_is_reported_and_the_program_runs(self):
        with tempfile.TemporaryDirectory() as user:
            with open(os.path.join(user, "sitecustomize.py"), "w") as f:
                f.write("raise RuntimeError('broken site')\n")
            result = run(TRACED, user)
            self.assertEqual(result.returncode, 0)
            self.assertIn("Error in sitecustomize", result.stderr)
            self.assertIn("broken site", result.stderr)
            self.assertEqual(result.stdout.split(), ["companion", "watching"])


if __name__ == "__main__":
    unittest.main()
