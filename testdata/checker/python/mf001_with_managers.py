# MF001 through `with ... as name`: a manager that a call made (a file, a temporary buffer) is
# closed when the block ends, so the name keeps nothing past the function, whatever another
# function teaches about the same call; a manager that outlives the function (an attribute) is
# bound as `name = manager`, as __enter__ mostly returns it, and is not exempt.
# config: {"disabled_rules": ["MF004"], "mf001_min_belief_ratio": 0.2}
import io
import tempfile

import torch


class Stage:
    def __init__(self):
        self.tensor = torch.zeros(4)

    def total(self):
        return self.tensor.sum()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Storage:
    def __init__(self):
        self._buffer = None
        self.stage = Stage()

    def write(self, content):
        if self._buffer is None:
            self._buffer = io.BytesIO()
        self._buffer.write(content)

    # `seek` is a file's (a library method): what flush() does after it teaches nothing.
    def seek(self, offset):
        return self._buffer.seek(offset)

    def read(self):
        return self._buffer.read()

    def flush(self):
        self._buffer.seek(0)
        upload(self._buffer)
        self._buffer = None

    def teacher(self):
        self.stage.total()
        self.stage = None

    def attribute_as_manager(self):
        with self.stage as stage:
            stage.total()  # expect: MF001{{'self.stage' keeps its device memory after 'total'}}


def upload(buffer):
    return buffer


class Net:
    def save(self, state):
        with tempfile.SpooledTemporaryFile() as f:
            torch.save(torch.zeros(4), f)
            f.seek(0)
            state["saved"] = f.read()
        return state
