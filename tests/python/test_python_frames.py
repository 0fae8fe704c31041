"""The hook's GIL-free walk of CPython frames, through tests/python/frames_probe.cpp.

Every walk is compared with what the interpreter says of the same frames (traceback), from a
thread that released the GIL (ctypes.CDLL), one that holds it (ctypes.PyDLL), while another thread
holds the GIL, in generators, threads, a forked child and a native thread without Python.
"""

import ctypes
import os
import sys
import threading
import time
import traceback
import unittest

PROBE_PATH = os.environ.get("MEMFLOOR_FRAMES_PROBE", "")
HAVE_PROBE = bool(PROBE_PATH) and os.path.exists(PROBE_PATH)
SUPPORTED = sys.version_info[:2] in ((3, 11), (3, 12))
BUFFER = 1 << 18


def load(kind):
    library = kind(PROBE_PATH)
    library.memfloor_probe_frames.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                              ctypes.c_int]
    library.memfloor_probe_frames_in_new_thread.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.memfloor_probe_version.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.memfloor_probe_sleep.argtypes = [ctypes.c_int]
    return library


def parse(buffer, count):
    if count < 0:
        raise AssertionError("no walk: " + buffer.value.decode())
    rows = []
    for line in buffer.value.decode("utf-8").splitlines():
        file, function, number = line.split("\t")
        rows.append((file, function, int(number)))
    assert len(rows) == count, (rows, count)
    return rows


def walk(library, max_frames=0, delay_ms=0):
    """(frames the probe read, frames traceback gives for the same point), innermost first."""
    buffer = ctypes.create_string_buffer(BUFFER)
    count = library.memfloor_probe_frames(buffer, BUFFER, max_frames, delay_ms); here = traceback.extract_stack()  # noqa: E702,E501 one line: both see the same line
    return parse(buffer, count), [(f.filename, f.name, f.lineno) for f in reversed(here)]


@unittest.skipUnless(HAVE_PROBE, "MEMFLOOR_FRAMES_PROBE: the built probe (a build with the hook)")
class PythonFramesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.released = load(ctypes.CDLL)  # the GIL is released around each call
        cls.held = load(ctypes.PyDLL)  # the GIL is kept

    def assertSameFrames(self, got, want):
        # traceback names a frame by co_name, the walk by co_qualname ("Class.method").
        self.assertEqual([(f, line) for f, _, line in got], [(f, line) for f, _, line in want])
        for (_, qualname, _), (_, name, _) in zip(got, want):
            self.assertTrue(qualname == name or qualname.endswith("." + name), (qualname, name))

    def test_version_is_supported_or_said_why_not(self):
        buffer = ctypes.create_string_buffer(256)
        ok = self.released.memfloor_probe_version(buffer, 256)
        text = buffer.value.decode()
        if SUPPORTED:
            self.assertEqual(ok, 1, text)
            self.assertEqual(text, "%d.%d.%d" % sys.version_info[:3])
        else:
            self.assertEqual(ok, 0)
            self.assertIn("not supported", text)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_without_the_gil_the_walk_matches_the_interpreter(self):
        got, want = walk(self.released)
        self.assertGreater(len(got), 3)
        self.assertEqual(got[0][1], "walk")
        self.assertSameFrames(got, want)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_with_the_gil_held_the_walk_matches_too(self):
        got, want = walk(self.held)
        self.assertSameFrames(got, want)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_qualified_names_lines_and_generators(self):
        class Outer:
            def method(self, library):
                return walk(library)

        got, want = Outer().method(self.released)
        self.assertEqual(got[1][1], "PythonFramesTest.test_qualified_names_lines_and_generators"
                                    ".<locals>.Outer.method")
        self.assertSameFrames(got, want)

        def generate(library):
            yield walk(library)

        got, want = next(generate(self.released))
        self.assertTrue(got[1][1].endswith("<locals>.generate"), got[1])
        self.assertSameFrames(got, want)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_names_beyond_ascii(self):
        source = "def größe_Ω(library, walk):\n    return walk(library)\n"
        scope = {}
        exec(compile(source, "dätei_€😀.py", "exec"), scope)
        got, want = scope["größe_Ω"](self.released, walk)
        self.assertEqual(got[1], ("dätei_€😀.py", "größe_Ω", 2))
        self.assertSameFrames(got, want)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_depth_is_capped_innermost_first(self):
        def recurse(depth):
            return recurse(depth - 1) if depth > 0 else walk(self.released, max_frames=16)

        got, want = recurse(100)
        self.assertEqual(len(got), 16)
        self.assertEqual(got[0][1], "walk")
        self.assertTrue(all(f[1].endswith("recurse") for f in got[1:]), got)
        self.assertSameFrames(got, want[:16])

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_walks_while_another_thread_holds_the_gil(self):
        # The thread walks its own frames 100 ms into a GIL-free call, while the main thread
        # holds the GIL in a 400 ms PyDLL call: no deadlock, and the thread's own frames.
        result = {}
        ready = threading.Event()

        def worker():
            ready.set()
            result["walk"] = walk(self.released, delay_ms=100)

        thread = threading.Thread(target=worker)
        thread.start()
        ready.wait()
        time.sleep(0.02)  # the worker enters its GIL-free call
        self.held.memfloor_probe_sleep(400)
        thread.join(timeout=10)
        self.assertFalse(thread.is_alive())
        got, want = result["walk"]
        self.assertTrue(any(f[1].endswith("worker") for f in got), got)
        self.assertSameFrames(got, want)

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_many_threads_walk_at_once(self):
        errors = []

        def worker(index):
            def inner():
                for _ in range(200):
                    got, want = walk(self.released)
                    if [(f, n) for f, _, n in got] != [(f, n) for f, _, n in want]:
                        errors.append((index, got, want))
                        return
            inner()

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        busy = sum(i * i for i in range(200000))  # the main thread runs Python meanwhile
        for t in threads:
            t.join(timeout=60)
        self.assertGreater(busy, 0)
        self.assertEqual(errors, [])

    @unittest.skipUnless(SUPPORTED, "CPython 3.11 or 3.12")
    def test_a_native_thread_has_no_python_frames(self):
        buffer = ctypes.create_string_buffer(BUFFER)
        self.assertEqual(self.released.memfloor_probe_frames_in_new_thread(buffer, BUFFER), 0)

    @unittest.skipUnless(SUPPORTED and hasattr(os, "fork"), "CPython 3.11 or 3.12, fork")
    def test_a_forked_child_walks_its_own_frames(self):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                got, want = walk(self.released)
                ok = [(f, n) for f, _, n in got] == [(f, n) for f, _, n in want]
                os.write(write_end, b"ok" if ok and got else b"mismatch")
            finally:
                os._exit(0)
        os.close(write_end)
        answer = os.read(read_end, 64)
        os.close(read_end)
        os.waitpid(pid, 0)
        self.assertEqual(answer, b"ok")


@unittest.skipUnless(HAVE_PROBE and SUPPORTED, "the probe, CPython 3.11 or 3.12")
class AutogradFramesTest(unittest.TestCase):
    """A custom backward runs inside the autograd engine: on the calling thread for CPU tensors,
    on the engine's device thread for CUDA ones (a thread without other Python frames)."""

    def backward_walk(self, device):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed")
        if device == "cuda" and not torch.cuda.is_available():
            self.skipTest("no CUDA device")
        library = load(ctypes.CDLL)
        seen = {}

        class Probe(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                seen["walk"] = walk(library)
                seen["thread"] = threading.get_ident()
                return grad * 2

        x = torch.ones(4, requires_grad=True, device=device)
        Probe.apply(x).sum().backward()
        got, want = seen["walk"]
        self.assertTrue(got[1][1].endswith("Probe.backward"), got[:3])
        self.assertEqual([(f, n) for f, _, n in got], [(f, n) for f, _, n in want])
        return seen["thread"]

    def test_a_cpu_backward_sees_its_frames_inside_the_autograd_engine(self):
        self.assertEqual(self.backward_walk("cpu"), threading.get_ident())

    def test_a_cuda_backward_sees_its_frames_on_the_engine_thread(self):
        self.assertNotEqual(self.backward_walk("cuda"), threading.get_ident())


if __name__ == "__main__":
    unittest.main()
