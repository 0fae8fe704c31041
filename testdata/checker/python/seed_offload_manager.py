# Seed 000 in Python: the hyper-connection layer's fused post-MLP step calls group_offload() on the
# layer's MLP-norm manager and, unlike the base class, never clears it (MF001). The replay path
# that resumes the post-MLP step dereferences it unguarded too: MF001, no fix-it (it says the guard).
import torch


class FineGrainedActivationOffloadingInterface:
    """Used as a context manager around a norm; stores the tensor even when not offloading."""

    def __init__(self, offload, tensor, name):
        self.offload = offload
        self.tensor = tensor
        self.name = name

    def __enter__(self):
        return self.tensor

    def __exit__(self, *exc):
        return False

    def group_offload(self, tensor, forced_released_tensors=None):
        return tensor


off_interface = FineGrainedActivationOffloadingInterface


class TransformerLayer(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.offload_mlp_norm = config.offload_mlp_norm
        self.mlp_norm_manager = None

    def forward(self, hidden_states):
        residual, hidden_states = self._forward_mlp(hidden_states)
        return self._forward_post_mlp(hidden_states, residual)

    def _forward_mlp(self, hidden_states):
        residual = hidden_states
        self.mlp_norm_manager = off_interface(self.offload_mlp_norm, hidden_states, "mlp_norm")
        with self.mlp_norm_manager as hidden_states:
            pre_mlp_layernorm_output = self.pre_mlp_layernorm(hidden_states)
        return residual, self.mlp(pre_mlp_layernorm_output)

    def _forward_post_mlp(self, hidden_states, residual):
        if self.mlp_norm_manager is not None:
            hidden_states = self.mlp_norm_manager.group_offload(
                hidden_states, forced_released_tensors=[residual])
            self.mlp_norm_manager = None
        return hidden_states


class HyperConnectionTransformerLayer(TransformerLayer):
    def forward(self, hidden_states):
        residual, hidden_states = self._forward_mlp(hidden_states)
        return self._forward_post_mlp_with_fused_hyper_connection(hidden_states, residual)

    def _forward_post_mlp_with_fused_hyper_connection(self, hidden_states, residual):
        if self.mlp_norm_manager is not None:
            hidden_states = self.mlp_norm_manager.group_offload(hidden_states)  # expect: MF001{{'self.mlp_norm_manager' keeps its device memory after 'group_offload' in 'HyperConnectionTransformerLayer._forward_post_mlp_with_fused_hyper_connection'}}
        return hidden_states + residual

    # A CUDA-graph replay that resumes the post-MLP step without re-running the pre-MLP step.
    def replay_post_mlp(self, hidden_states):
        return self.mlp_norm_manager.group_offload(hidden_states)  # expect: MF001{{'TransformerLayer._forward_post_mlp' releases it}}


class FixedHyperConnectionTransformerLayer(TransformerLayer):
    """The one-line fix: clear after the terminal call (no finding)."""

    def _forward_post_mlp_with_fused_hyper_connection(self, hidden_states, residual):
        if self.mlp_norm_manager is not None:
            hidden_states = self.mlp_norm_manager.group_offload(hidden_states)
            self.mlp_norm_manager = None
        return hidden_states + residual
