"""What a storage found by a census is to the program, read from the edges of its shortest path: an
nn.Module's parameter or buffer, a tensor's .grad, an optimizer's state, or anything else."""

from typing import Optional, Tuple

from memfloor.census_edges import ATTR, INDEX, ITEM

OTHER = "other"  # an attribute, container element, local, global or closure
PARAMETER = "parameter"  # in an nn.Module's _parameters
BUFFER = "buffer"  # in an nn.Module's _buffers
GRADIENT = "gradient"  # a tensor's .grad
OPTIMIZER_STATE = "optimizer_state"  # under an optimizer's .state
# In the order of the hook's MEMFLOOR_HELD_* values (include/memfloor/companion.h).
ROLES: Tuple[str, ...] = (OTHER, PARAMETER, BUFFER, GRADIENT, OPTIMIZER_STATE)

_MEMBERS = (("_parameters", PARAMETER), ("_buffers", BUFFER))


class _NoOptimizer:
    """Stands for the optimizer class of a torch without one: nothing is an instance."""


class RoleReader:
    """Roles of the objects of one walk (census_walk.Walk), knowing PyTorch's Tensor, Module and
    Optimizer classes. Like the walk, it reads instance dicts only, and types, not isinstance."""

    def __init__(self, tensor_type: type, module_type: type,
                 optimizer_type: Optional[type]) -> None:
        self._tensor_type = tensor_type
        self._module_type = module_type
        self._optimizer_type = optimizer_type or _NoOptimizer

    def role_of(self, walk, index: int) -> str:
        """The role of the object at `index` by the edge that named it (its parameter's or buffer's
        name in a module, `.grad` of a tensor), else by an optimizer's `.state[...]` on its
        path."""
        parent, kind, label = walk.edge_to(index)
        if parent >= 0 and kind in (ATTR, INDEX):
            owner = walk.objects[parent]
            if kind == ATTR and label == "grad" and issubclass(type(owner), self._tensor_type):
                return GRADIENT
            if issubclass(type(owner), self._module_type):
                role = self._member_role(owner, str(label), walk.objects[index])
                if role is not None:
                    return role
        chain = walk.chain(index)
        for step, value in zip(chain, chain[1:]):  # optimizer.state[key]: a value, not a key
            parent, kind, label = walk.edge_to(step)
            if (kind == ATTR and label == "state" and walk.edge_to(value)[1] == ITEM
                    and parent >= 0
                    and issubclass(type(walk.objects[parent]), self._optimizer_type)):
                return OPTIMIZER_STATE
        return OTHER

    @staticmethod
    def _member_role(module: object, name: str, value: object):
        try:
            mapping = object.__getattribute__(module, "__dict__")
        except Exception:  # noqa: BLE001
            return None
        for structure, role in _MEMBERS:
            members = mapping.get(structure) if type(mapping) is dict else None
            if issubclass(type(members), dict) and dict.get(members, name) is value:
                return role
        return None
