"""The run-time state of a TensorArray: its elements, written and read by the TensorArray
kernels (ops/control_flow/tensor_array_ops.py). Errors carry TF's wording."""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape


def _err(msg, array=None):
    if array is not None:
        msg = f"TensorArray {array.name}: {msg}"
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class TensorArrayResource:
    """The run-time state of one TensorArray."""

    __slots__ = ("name", "dtype", "elements", "dynamic_size", "clear_after_read",
                 "element_shape", "identical_shapes", "grads", "aggregate", "cleared",
                 "written_shapes", "closed", "marked_size")

    def __init__(self, name, dtype, size, dynamic_size, clear_after_read, element_shape,
                 identical_shapes, aggregate=False):
        self.name = name
        self.dtype = dtype
        self.elements = [None] * size
        self.written_shapes = [None] * size
        self.cleared = [False] * size
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.element_shape = element_shape        # a TensorShape, possibly partial
        self.identical_shapes = identical_shapes
        self.aggregate = aggregate                # gradient arrays sum repeated writes
        self.grads = {}
        self.closed = False
        # The size after the last split (-1: none); a gradient array takes its forward
        # array's, and its concat covers that many elements (TF's marked size).
        self.marked_size = -1

    def size(self):
        return len(self.elements)

    def concat_size(self):
        """How many elements a concat of this array joins: a gradient array's marked size
        (elements written after the forward split are not the split's gradient)."""
        if self.aggregate and self.marked_size >= 0:
            return self.marked_size
        return self.size()

    def write(self, index, value):
        index = int(index)
        value = np.asarray(value)
        if _dtype_of(value) != self.dtype.base_dtype:
            raise _err(f"TensorArray dtype is {_dtype_name(self.dtype)} but Op is trying to "
                       f"write dtype {_dtype_name(_dtype_of(value))} ", self)
        if index < 0:
            raise _err(f"Tried to write to index {index} but array size is: {self.size()}", self)
        if index >= self.size():
            if not self.dynamic_size:
                raise _err(f"Tried to write to index {index} but array is not resizeable and "
                           f"size is: {self.size()}", self)
            grow = index + 1 - self.size()
            self.elements.extend([None] * grow)
            self.written_shapes.extend([None] * grow)
            self.cleared.extend([False] * grow)
        value = np.asarray(value)
        if not self.element_shape.is_compatible_with(tensor_shape.TensorShape(value.shape)):
            raise _err(
                f"Could not write to TensorArray index {index} because the value shape is "
                f"{_shape_str(value.shape)} which is incompatible with the TensorArray's "
                f"inferred element shape: {_partial_str(self.element_shape)} (consider "
                "setting infer_shape=False).", self)
        if self.identical_shapes:
            self.element_shape = self.element_shape.merge_with(
                tensor_shape.TensorShape(value.shape))
        old = self.elements[index]
        if old is not None or self.cleared[index]:
            if not self.aggregate:
                raise _err(f"Could not write to TensorArray index {index} because it has "
                           "already been written to.", self)
            if old is not None:
                if old.shape != value.shape:
                    raise _err(
                        f"Could not aggregate to TensorArray index {index} because the "
                        f"existing shape is {_shape_str(old.shape)} but the new input shape "
                        f"is {_shape_str(value.shape)}.", self)
                value = old + value
        self.elements[index] = value
        self.written_shapes[index] = value.shape
        self.cleared[index] = False

    def read(self, index):
        index = int(index)
        if index < 0 or index >= self.size():
            raise _err(f"Tried to read from index {index} but array size is: {self.size()}", self)
        v = self.elements[index]
        if v is None:
            if self.cleared[index]:
                raise _err(
                    f"Could not read index {index} twice because it was cleared after a "
                    "previous read (perhaps try setting clear_after_read = false?).", self)
            shape = self._zeros_shape(index)
            if shape is None:
                raise _err(
                    f"Could not read from TensorArray index {index}.  Furthermore, the element "
                    f"shape is not fully defined: {_partial_str(self.element_shape)}.  It is "
                    "possible you are working with a resizeable TensorArray and "
                    "stop_gradients is not allowing the gradients to be written.  If you set "
                    "the full element_shape property on the forward TensorArray, the proper "
                    "all-zeros tensor will be returned instead of incurring this error.", self)
            return np.zeros(shape, self.dtype.as_numpy_dtype)
        if self.clear_after_read and not self.aggregate:
            self.elements[index] = None
            self.cleared[index] = True
        return v

    def _zeros_shape(self, index):
        if self.written_shapes[index] is not None:
            return self.written_shapes[index]
        if self.element_shape.is_fully_defined():
            return tuple(self.element_shape.as_list())
        return None


def _dtype_of(value):
    """The TF dtype of an array (any bytes, str or object array is a string)."""
    if value.dtype.kind in "OSU":
        return dtypes.string
    return dtypes.as_dtype(value.dtype)


def _dtype_name(dt):
    return {"float32": "float", "float64": "double"}.get(dt.name, dt.name)


def _partial_str(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
