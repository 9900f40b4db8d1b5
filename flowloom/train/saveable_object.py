"""What a Saver writes and restores, as TF's SaveableObject protocol.

A `SaveableObject` is one object to checkpoint (a variable, a slice of a partitioned
variable, a lookup table, anything with state): it lists `SaveSpec`s, one per tensor it
writes (each with its checkpoint key and slice spec), and `restore(restored_tensors,
restored_shapes)` builds the op that puts the restored tensors back. Custom objects subclass
`SaveableObject` and add themselves to the `saveable_objects` collection or pass themselves
in a Saver's `var_list`, as in TF:

    class TableSaveable(tf.train.Saver.SaveableObject):   # BaseSaverBuilder.SaveableObject
        def __init__(self, table, name):
            keys, values = table.export()
            specs = [SaveSpec(keys, "", name + "-keys"), SaveSpec(values, "", name + "-values")]
            super().__init__(table, specs, name)
        def restore(self, restored_tensors, restored_shapes):
            return table.import_(*restored_tensors)
"""

from flowloom.framework import device as device_lib
from flowloom.framework.graph import get_default_graph


def set_cpu0(device_string):
    """`device_string` with its device type and index replaced by CPU:0 (same task)."""
    spec = device_lib.DeviceSpec.from_string(device_string or "")
    spec.device_type = "CPU"
    spec.device_index = 0
    return spec.to_string()


class SaveSpec:
    """One tensor a SaveableObject writes: `tensor` (or a callable making it, which then
    needs `dtype` and `device`), its `slice_spec` ("" for a whole tensor) and its checkpoint
    key `name`."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        if callable(tensor):
            if dtype is None or device is None:
                raise AssertionError("When passing a callable `tensor` to a SaveSpec, an "
                                     "explicit dtype and device must be provided.")
            self.dtype = dtype
            self.device = device
        else:
            self.dtype = tensor.dtype
            self.device = tensor.device

    @property
    def tensor(self):
        """The tensor to save (a callable makes a new one each time, as TF's)."""
        return self._tensor() if callable(self._tensor) else self._tensor


class SaveableObject:
    """Base class of the objects a Saver saves: `op` (the object saved), `specs` (its
    SaveSpecs, all on one device) and `name` (its checkpoint name)."""

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def optional_restore(self):
        """Whether restoring may skip this object (never, by default)."""
        return False

    @property
    def device(self):
        """The device of the tensors saved."""
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        """The op that restores the object from `restored_tensors` (one per spec), reshaped
        to `restored_shapes` when those are given (Saver(reshape=True))."""
        raise ValueError("Calling an abstract method.")


class ReferenceVariableSaveable(SaveableObject):
    """A reference variable (or one slice of a partitioned one)."""

    def __init__(self, var, slice_spec, name):
        from flowloom.variables import Variable

        ref = var._variable if isinstance(var, Variable) else var
        self._ref = ref
        if slice_spec and hasattr(var, "_snapshot"):
            tensor = var._snapshot  # a slice is saved through its read, as TF
        else:
            tensor = ref
        spec = SaveSpec(tensor, slice_spec, name, dtype=ref._dtype.base_dtype,
                        device=ref._op._device)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        from flowloom.ops.array import array_ops
        from flowloom.ops.state import state_ops

        tensor = restored_tensors[0]
        with get_default_graph().device(self._ref._op._device or None):
            if restored_shapes is not None:
                tensor = array_ops.reshape(tensor, restored_shapes[0])
            return state_ops.assign(
                self._ref, tensor,
                validate_shape=restored_shapes is None and self._ref._shape.is_fully_defined())


class ResourceVariableSaveable(SaveableObject):
    """A resource variable (or a `ReadVariableOp` tensor of one, or its handle): saved as a
    read copied to its task's CPU, restored with AssignVariableOp on its handle."""

    def __init__(self, var, slice_spec, name):
        from flowloom.framework.ops import Tensor
        from flowloom.ops.array import array_ops
        from flowloom.ops.state.resource_variable_ops import handle_dtype, read_variable_op
        from flowloom.resource_variable import ResourceVariable

        if isinstance(var, ResourceVariable):
            handle = var._handle
            dtype = var.dtype.base_dtype
            self._var_shape = var.get_shape()
            device = var.device

            def tensor():
                graph = get_default_graph()
                with graph.device(device or None):
                    value = read_variable_op(handle, dtype)
                    with graph.device("/device:CPU:0"):
                        return array_ops.identity(value)
        elif isinstance(var, Tensor) and var._op._type == "ReadVariableOp":
            handle = var._op._inputs[0]
            dtype = var._dtype.base_dtype
            self._var_shape = var._shape
            device = var._op._device
            tensor = var
        elif isinstance(var, Tensor) and var._dtype.base_dtype.name == "resource":
            handle = var
            dtype = handle_dtype(var)
            from flowloom.framework import tensor_shape

            self._var_shape = tensor_shape.unknown_shape()
            device = var._op._device

            def tensor():
                with get_default_graph().device(device or None):
                    return array_ops.identity(read_variable_op(handle, dtype))
        else:
            raise ValueError("Saveable is neither a resource variable nor a read operation. "
                             f"Got: {var!r}")
        self.handle_op = handle
        self._var_device = device
        super().__init__(var, [SaveSpec(tensor, slice_spec, name, dtype=dtype,
                                        device=device)], name)

    def restore(self, restored_tensors, restored_shapes):
        from flowloom.ops.array import array_ops
        from flowloom.ops.state.resource_variable_ops import assign_variable_op

        tensor = restored_tensors[0]
        if restored_shapes is not None:
            tensor = array_ops.reshape(tensor, restored_shapes[0])
        with get_default_graph().device(self._var_device or None):
            tensor = array_ops.identity(tensor)
            return assign_variable_op(self.handle_op, tensor)
