"""hook_api: the hook's companion entry points through ctypes."""

import ctypes
import os
import unittest

from memfloor import hook_api

HOOK = os.environ.get("MEMFLOOR_HOOK_LIB", "")


class HookApiTest(unittest.TestCase):
    def test_no_hook_without_a_path_or_when_not_loaded(self):
        self.assertIsNone(hook_api.find_hook(""))
        self.assertIsNone(hook_api.find_hook("/nonexistent/libmemfloor_hook.so"))

    def test_layouts_match_the_header(self):
        self.assertEqual(ctypes.sizeof(hook_api.PythonFrameV1), 24)
        self.assertEqual(ctypes.sizeof(hook_api.BlockEventV1), 40)

    @unittest.skipUnless(HOOK and os.path.exists(HOOK), "MEMFLOOR_HOOK_LIB: the built hook")
    def test_an_untraced_process_records_nothing_and_does_not_fail(self):
        library = ctypes.CDLL(HOOK)  # loaded without cuInit: there is no session
        hook = hook_api.find_hook(HOOK)
        self.assertIsNotNone(hook)
        self.assertEqual(hook_api.Hook(library).python_stack([("a.py", "f", 1)]), 0)
        self.assertEqual(hook.blocks([(1, 0x10, 4, 0, 0, 0, hook_api.BLOCK_ALLOC)]), 0)


if __name__ == "__main__":
    unittest.main()
