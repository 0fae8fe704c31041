# MF004: a heavy attribute that is released somewhere is dereferenced without a null check or an
# assignment before it on every path. Every kind of guard sits next to an unguarded use.
# config: {"disabled_rules": ["MF001", "MF002"], "mf004_python": true}
import torch


class Offloader:
    def __init__(self):
        self.manager = None

    def start(self, x):
        self.manager = torch.empty_like(x)

    def finish(self):
        self.manager = None

    def has_manager(self):
        return self.manager is not None

    def unguarded(self):
        return self.manager.sum()  # expect: MF004{{'self.manager' is dereferenced in 'Offloader.unguarded'}}

    def subscript(self):
        return self.manager[0]  # expect: MF004

    def is_not_none(self):
        if self.manager is not None:
            return self.manager.sum()
        return None

    def truthiness(self):
        if self.manager:
            self.manager.sum()

    def early_return(self):
        if self.manager is None:
            return None
        return self.manager.sum()

    def asserted(self):
        assert self.manager is not None
        return self.manager.sum()

    def by_getattr(self):
        if getattr(self, "manager", None) is not None:
            return self.manager.sum()
        return None

    def conditional_expression(self):
        return self.manager.sum() if self.manager is not None else None

    def short_circuit(self):
        return self.manager is not None and self.manager.sum()

    def predicate(self):
        if self.has_manager():
            return self.manager.sum()
        return None

    def assigned_first(self, x):
        self.start(x)
        return self.manager.sum()

    def assigned_directly(self, x):
        self.manager = x * 2
        return self.manager.sum()

    def guarded_on_one_branch(self, fast):
        if fast:
            if self.manager is None:
                return None
        return self.manager.sum()  # expect: MF004

    def checked_after(self):
        total = self.manager.sum()  # expect: MF004
        if self.manager is not None:
            total += 1
        return total


class Keeper:
    """Never released: a dereference needs no guard."""

    def __init__(self):
        self.buffer = torch.zeros(1)

    def use(self):
        return self.buffer.sum()
