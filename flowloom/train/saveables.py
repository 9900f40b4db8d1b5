"""What a Saver saves: each variable (or slice of a partitioned variable) as a checkpoint
entry with a name, a slice spec, a tensor to write and a way to restore it.

The names are TF's: a variable's op name, or the full name of the partitioned variable a
slice belongs to (its SaveSliceInfo), each slice written with its spec ("10 3 0,4:0,3").
"""

from flowloom.framework.graph import get_default_graph
from flowloom.framework.ops import Tensor
from flowloom.ops.array import array_ops
from flowloom.ops.state import state_ops


class Saveable:
    """One checkpoint entry: `name`, `spec` ("" for a whole tensor), the tensor to save and
    the ref (or resource handle) to assign on restore."""

    def __init__(self, name, variable, spec=""):
        from flowloom.resource_variable import is_resource_target, resource_handle
        from flowloom.variables import Variable

        self.name = name
        self.spec = spec
        self.variable = variable
        self.resource = is_resource_target(variable)
        if self.resource:
            # A resource variable (or its handle): saved through a read, restored through
            # AssignVariableOp on the handle.
            self.ref = resource_handle(variable)
        elif isinstance(variable, Variable):
            self.ref = variable._variable
        elif isinstance(variable, Tensor) and (variable._dtype.is_ref_dtype or
                                               variable._op._type in ("VariableV2", "Identity")):
            self.ref = variable
        else:
            raise TypeError(f"Variable to save is not a Variable: {variable!r}")
        self.op = self.ref._op

    @property
    def device(self):
        return self.ref._op._device

    @property
    def dtype(self):
        if self.resource:
            from flowloom.ops.state.resource_variable_ops import handle_dtype

            return handle_dtype(self.ref)
        return self.ref._dtype.base_dtype

    def tensor(self):
        """What SaveV2 writes: the reference (a slice: the variable's read, as TF), or a read
        of the resource variable."""
        if self.resource:
            from flowloom.ops.state.resource_variable_ops import read_variable_op

            with get_default_graph().device(self.device or None):
                return array_ops.identity(read_variable_op(self.ref, self.dtype))
        if self.spec and hasattr(self.variable, "_snapshot"):
            return self.variable._snapshot
        return self.ref

    def restore(self, tensor, reshape=False):
        """The op that stores the restored `tensor` into the variable (reshaped to the
        variable's shape first when `reshape`, as Saver(reshape=True))."""
        if reshape:
            shape = self.variable.get_shape() if hasattr(self.variable, "get_shape") else \
                self.ref._shape
            tensor = array_ops.reshape(tensor, shape.as_list() if shape.is_fully_defined()
                                       else array_ops.shape(self.tensor()))
        if self.resource:
            from flowloom.ops.state.resource_variable_ops import assign_variable_op

            return assign_variable_op(self.ref, array_ops.identity(tensor))
        return state_ops.assign(self.ref, tensor, validate_shape=not reshape and
                                self.ref._shape.is_fully_defined()).op


def _slice_saveables(name, slices):
    """The Saveables of a list of slices of one partitioned variable `name`."""
    from flowloom.variables import Variable

    out, full_name = [], None
    for var in slices:
        if not isinstance(var, Variable):
            raise ValueError(f"Slices must all be Variables: {var}")
        info = var._get_save_slice_info()
        if not info:
            raise ValueError(f"Slices must all be slices: {var}")
        if full_name is None:
            full_name = info.full_name
        elif full_name != info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {full_name} != "
                             f"{info.full_name}")
        out.append(Saveable(name, var, info.spec))
    return out


def _names_to_variables(var_list):
    """A list of variables -> {checkpoint name: variable, or list of slices}, as TF's
    op_list_to_dict: slices gather under their full name, the others under their op name."""
    from flowloom.partitioned_variables import PartitionedVariable
    from flowloom.variables import Variable

    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {var_list}")
    flat = []
    for var in var_list:
        flat.extend(var if isinstance(var, (list, tuple)) else [var])
    by_name, seen = {}, set()
    for var in sorted(flat, key=lambda v: v.name):
        if id(var) in seen:
            continue
        seen.add(id(var))
        if isinstance(var, PartitionedVariable):
            if var.name in by_name:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            by_name[var.name] = var
        elif isinstance(var, Variable) and var._get_save_slice_info():
            name = var._get_save_slice_info().full_name
            if name in by_name and not isinstance(by_name[name], list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            by_name.setdefault(name, []).append(var)
        elif isinstance(var, (Variable, Tensor)):
            ref = var._variable if isinstance(var, Variable) else var
            name = ref._op._name
            if name in by_name:
                raise ValueError(f"At least two variables have the same name: {name}")
            by_name[name] = var
        else:
            raise TypeError(f"Variable to save is not a Variable: {var!r}")
    return by_name


def saveables(var_list):
    """`var_list` (list or dict) -> [Saveable] sorted by checkpoint name, as TF orders them
    (the slices of one variable in the order listed; a PartitionedVariable's by offset).

    Raises:
      TypeError: for a key that is not a string or an entry that is not a variable.
      ValueError: for two variables of one name, one variable under two names, or slices
        that are not slices of one variable.
    """
    from flowloom.partitioned_variables import PartitionedVariable

    if isinstance(var_list, dict):
        for name in var_list:
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be strings, got {name!r}")
        by_name = dict(var_list)
    else:
        by_name = _names_to_variables(var_list)
    out, seen = [], {}
    for name in sorted(by_name):
        var = by_name[name]
        if isinstance(var, PartitionedVariable):
            var = list(var)
        items = _slice_saveables(name, var) if isinstance(var, (list, tuple)) else \
            [Saveable(name, var)]
        for item in items:
            key = id(item.variable)
            if key in seen:
                raise ValueError(f"The same saveable will be restored with two names: "
                                 f"{seen[key]} and {name}")
            seen[key] = name
            out.append(item)
    return out


def make_concat_for_collections(graph):
    """Builds the full value of each PartitionedVariable in a collection that has none yet
    (a meta graph's collections name it by that op), as TF's Saver does."""
    from flowloom.partitioned_variables import PartitionedVariable

    for key in graph.get_all_collection_keys():
        for item in graph.get_collection(key):
            if isinstance(item, PartitionedVariable):
                try:
                    graph.get_operation_by_name(item.name)
                except KeyError:
                    item.as_tensor()
