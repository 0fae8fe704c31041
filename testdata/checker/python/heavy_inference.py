# What makes a Python object heavy without types: a configured name, a tensor-producing value
# (torch factories, tensor methods, arithmetic on tensors), a class whose attributes are heavy, a
# method that only heavy classes define. Light objects are never sites, whatever their methods.
# config: {"disabled_rules": ["MF002", "MF004"]}
import torch


class Light:
    """Holds nothing on the device."""

    def __init__(self):
        self.count = 0

    def flush(self):
        return self.count


class Moved:
    def __init__(self, x, device):
        self.data = x.to(device)  # heavy: a tensor method's result

    def flush(self):
        return self.data


class Computed:
    def __init__(self, a, b):
        self.product = torch.matmul(a, b) + 1  # heavy: arithmetic on a torch op

    def collect(self):
        return self.product


class Wrapper:
    def __init__(self, x, device):
        self.inner = Moved(x, device)  # heavy: an instance of a heavy class

    def drain(self):
        return self.inner


class Sink:
    """Another class with a `drain` method."""

    def __init__(self):
        self.inner = torch.zeros(4)

    def drain(self):
        return self.inner


class User:
    def __init__(self, a, b, device):
        self.light = Light()
        self.moved = Moved(a, device)
        self.wrapper = Wrapper(a, device)
        self.computed = Computed(a, b)

    def teach(self):
        self.light.flush()
        self.light = None
        self.moved.flush()
        self.moved = None
        self.wrapper.drain()
        self.wrapper = None

    def forget(self):
        self.light.flush()  # Light is not heavy: no finding
        self.moved.flush()  # expect: MF001{{'self.moved' keeps its device memory after 'flush'}}
        self.wrapper.drain()  # expect: MF001

    # `collect` is Computed's alone: whatever holder is, its part is a Computed, which is heavy.
    def by_method(self, holder):
        holder.computed_part.collect()  # expect: MF001{{'holder.computed_part' keeps}}

    def teach_by_method(self, holder):
        holder.computed_part.collect()
        holder.computed_part = None

    # `drain` is Wrapper's and Sink's: the part's class is not known, so no belief applies.
    def by_ambiguous_method(self, holder):
        holder.other_part.drain()

    def teach_by_ambiguous_method(self, holder):
        holder.other_part.drain()
        holder.other_part = None
