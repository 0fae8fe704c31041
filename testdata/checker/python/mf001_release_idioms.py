# MF001 with every Python release idiom: each teacher releases its buffer after consume() with
# another idiom; the deviants keep it on some path. Negatives sit next to the positives.
# config: {"disabled_rules": ["MF004"]}
import torch


class Buffer:
    def __init__(self, size):
        self.tensor = torch.empty(size)

    def consume(self):
        return self.tensor.sum()

    def peek(self):
        return self.tensor[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.tensor = None  # releases on exit: `with buffer:` releases it
        return False


class Holder:
    def __init__(self):
        self.buffer = Buffer(16)
        self.buffers = [Buffer(16)]
        self.staged = None

    # Teachers: each releases after consume() on every path, each with another idiom.
    def assign_none(self):
        self.buffer.consume()
        self.buffer = None

    def delete(self):
        self.buffer.consume()
        del self.buffer

    def with_setattr(self):
        self.buffer.consume()
        setattr(self, "buffer", None)

    def tuple_assign(self):
        self.buffer.consume()
        self.buffer, self.staged = None, None

    def guarded(self):
        if self.buffer is not None:
            self.buffer.consume()
            self.buffer = None

    def through_helper(self):
        self.buffer.consume()
        self.drop()

    def drop(self):
        self.buffer = None

    def in_finally(self):
        try:
            self.buffer.consume()
        finally:
            self.buffer = None

    def raise_path(self, failed):
        self.buffer.consume()
        if failed:
            raise RuntimeError("failed")
        self.buffer = None

    def loop_then_release(self, n):
        for _ in range(n):
            self.buffer.peek()
        self.buffer.consume()
        self.buffer = None

    def both_branches(self, fast):
        self.buffer.consume()
        if fast:
            self.buffer = None
        elif self.staged:
            del self.buffer
        else:
            self.buffer = None

    def context_exit(self):
        with self.buffer:
            self.buffer.consume()

    def clear_list(self):
        self.buffers[0].consume()
        self.buffers.clear()

    # Deviants.
    def keeps(self):
        self.buffer.consume()  # expect: MF001{{'self.buffer' keeps its device memory after 'consume' in 'Holder.keeps'}}

    def early_return(self, done):
        self.buffer.consume()  # expect: MF001
        if done:
            return
        self.buffer = None

    def one_branch(self, fast):
        self.buffer.consume()  # expect: MF001
        if fast:
            self.buffer = None
        elif self.staged:
            pass
        else:
            del self.buffer

    def in_try_only(self):
        try:
            self.buffer.consume()  # expect: MF001
            self.buffer.peek()  # may raise: the handler returns with the buffer kept
            self.buffer = None
        except RuntimeError:
            pass

    def release_in_loop(self, n):
        self.buffer.consume()  # expect: MF001
        for _ in range(n):
            self.buffer = None

    def release_in_while(self, n):
        self.buffer.consume()  # expect: MF001
        while n > 0:
            n -= 1
            self.buffer = None

    def release_in_comprehension(self, items):
        self.buffer.consume()  # expect: MF001
        return [self.drop() for _ in items]

    def release_in_with(self):
        with torch.no_grad():
            self.buffer.consume()
            self.buffer = None

    # Negatives: released on every way out.
    def while_true(self):
        self.buffer.consume()
        while True:
            if self.staged:
                self.buffer = None
                break

    def except_and_else(self):
        try:
            self.buffer.consume()
        except RuntimeError:
            self.buffer = None
            raise
        else:
            self.buffer = None


def free_storage(tensor):
    tensor.consume()
    tensor.untyped_storage().resize_(0)


def keep_storage(tensor):
    tensor.consume()  # expect: MF001{{'tensor' keeps its device memory after 'consume' in 'keep_storage'}}
