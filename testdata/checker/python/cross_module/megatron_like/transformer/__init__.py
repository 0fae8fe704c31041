from .transformer_layer import *  # noqa: F401,F403
