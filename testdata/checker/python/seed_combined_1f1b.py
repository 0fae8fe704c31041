# Seed 003 in Python: a schedule node's own backward reads the input gradients and then releases its
# state; the combined 1F1B step reads the loss node's gradient directly and never releases it
# (MF001, learned from the node's own backward and from the fixed step).
import torch


class ScheduleNode:
    def __init__(self, forward_func, stream, event, free_input=False, name="schedule_node"):
        self.name = name
        self.forward_func = forward_func
        self.stream = stream
        self.event = event
        self.free_input = free_input
        self.inputs = None
        self.output = None

    def forward(self, inputs=()):
        self.inputs = [e.detach() if e is not None else None for e in inputs]
        self.output = self.forward_func(*self.inputs)
        if self.free_input:
            for tensor in inputs:
                if tensor is not None:
                    tensor.record_stream(self.stream)
                    tensor.untyped_storage().resize_(0)
        return self.output

    def backward(self, output_grad):
        torch.autograd.backward(self.output, grad_tensors=output_grad)
        grads = self.get_grad()
        self._release_state()
        return grads

    def get_grad(self):
        return tuple(e.grad if e is not None else None for e in self.inputs)

    def _release_state(self):
        self.inputs = None
        self.output = None


def _release_tensor_storage(tensors):
    """Release tensor storage after all backward users are done."""
    if tensors is None:
        return
    for tensor in tensors:
        if isinstance(tensor, torch.Tensor) and tensor.is_cuda:
            tensor.record_stream(torch.cuda.current_stream())
            tensor.untyped_storage().resize_(0)


def combined_forward_backward_step(output_tensor, model_nodes, loss):
    """As shipped: the loss node keeps its inputs through the whole combined backward."""
    loss_node = output_tensor.loss_node
    torch.autograd.backward(loss)
    grads = loss_node.get_grad()  # expect: MF001{{'output_tensor.loss_node' keeps its device memory after 'get_grad'}}
    for node in reversed(model_nodes):
        grads = node.backward(grads)
    return grads


def combined_forward_backward_step_fixed(output_tensor, model_nodes, loss):
    """The fix: keep the inputs, release the node's state, free the storage after the backward."""
    loss_node = output_tensor.loss_node
    torch.autograd.backward(loss)
    grads = loss_node.get_grad()
    loss_inputs = loss_node.inputs
    loss_node._release_state()
    for node in reversed(model_nodes):
        grads = node.backward(grads)
    _release_tensor_storage(loss_inputs)
    return grads


def combined_step_flagged(output_tensor, keep_loss_inputs):
    """Behind a flag: released on some paths only."""
    loss_node = output_tensor.loss_node
    grads = loss_node.get_grad()  # expect: MF001
    if not keep_loss_inputs:
        loss_node._release_state()
    return grads


def local_node(forward_func, stream, event):
    """A node made here dies with the function: not a retention."""
    node = ScheduleNode(forward_func, stream, event)
    return node.get_grad()
