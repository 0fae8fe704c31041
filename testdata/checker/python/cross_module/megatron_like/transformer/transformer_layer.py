# The base layer of a package: it clears its offload manager after the terminal call.
from ..offload import OffloadInterface as off_interface


class TransformerLayer:
    def _forward_mlp(self, hidden_states):
        self.mlp_norm_manager = off_interface(hidden_states)
        return hidden_states

    def _forward_post_mlp(self, hidden_states):
        if self.mlp_norm_manager is not None:
            hidden_states = self.mlp_norm_manager.group_offload(hidden_states)
            self.mlp_norm_manager = None
        return hidden_states
