# A subclass in another module, imported through the package's re-export, forgets the release.
from megatron_like.transformer import TransformerLayer


class HyperConnectionTransformerLayer(TransformerLayer):
    def _forward_post_mlp(self, hidden_states):
        return self.mlp_norm_manager.group_offload(hidden_states)  # expect: MF001{{while 'TransformerLayer._forward_post_mlp' releases it after the same call}}
