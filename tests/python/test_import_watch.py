"""when_imported: a callback after a module's import, without importing it ourselves."""

import os
import sys
import tempfile
import unittest

from memfloor import import_watch


class ImportWatchTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.name = "memfloor_watched_module"
        with open(os.path.join(self.dir.name, self.name + ".py"), "w") as f:
            f.write("VALUE = 41 + 1\n")
        sys.path.insert(0, self.dir.name)

    def tearDown(self):
        sys.path.remove(self.dir.name)
        sys.modules.pop(self.name, None)
        self.dir.cleanup()

    def test_called_once_after_the_import_completes(self):
        seen = []
        watcher = import_watch.when_imported(self.name, lambda m: seen.append(m.VALUE))
        self.assertIn(watcher, sys.meta_path)
        self.assertEqual(seen, [])  # nothing imported by watching
        self.assertNotIn(self.name, sys.modules)
        module = __import__(self.name)
        self.assertEqual(seen, [42])
        self.assertNotIn(watcher, sys.meta_path)
        self.assertEqual(module.VALUE, 42)
        self.assertEqual(module.__spec__.loader.get_filename(self.name), module.__file__)

    def test_called_now_when_already_imported(self):
        __import__(self.name)
        seen = []
        self.assertIsNone(import_watch.when_imported(self.name, lambda m: seen.append(m)))
        self.assertEqual(seen, [sys.modules[self.name]])

    def test_a_missing_module_still_fails_to_import(self):
        watcher = import_watch.when_imported("memfloor_no_such_module", lambda m: None)
        with self.assertRaises(ImportError):
            __import__("memfloor_no_such_module")
        import_watch.remove(watcher)


if __name__ == "__main__":
    unittest.main()
