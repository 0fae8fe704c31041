# MF001 where the call is the member's only use with no None check (the first seed on its real code
# base): the fix-it releases the member after the call and puts the call under the None check the
# teacher has, one edit of two insertions. A call that binds a name it did not read (`y = ...`)
# could not be skipped that way: the fix-it is said in words (front end tests, guard_at).
import torch


class Manager:
    def __init__(self, tensor):
        self.tensor = tensor

    def offload(self, tensor):
        return tensor


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.manager = None

    def pre(self, x):
        self.manager = Manager(x)
        return x

    def post(self, x):
        if self.manager is not None:
            x = self.manager.offload(x)
            self.manager = None
        return x


class FusedLayer(Layer):
    def post_fused(self, x, residual):
        x = self.manager.offload(x)  # expect: MF001{{the fix-it checks it for None before this use}}
        return x + residual
