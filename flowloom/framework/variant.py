"""The elements of DT_VARIANT tensors that a TensorProto holds (`VariantTensorDataProto`).

A `tf.variant` Const, a GraphDef's variant attr, holds one `Variant` per element: the
encoded `type_name`, `metadata` and `tensors` of its proto, and, for the types TF 1.15's
variant_op_registry.cc registers a decoder, an addition and a zeros-like for (`int`,
`float`, `double`, `bool`: a scalar in the metadata's bytes), the decoded value. A variant
without a decoder stays encoded: TF's Const kernel refuses it when it runs ("Cannot parse
tensor from proto"), so `decode_array` raises where the value is first needed.

Variant tensors that ops produce at run time (datasets, TensorLists) are Python objects of
their own and never pass through here.
"""

import numpy as np

# type_name -> the NumPy scalar type stored in the metadata (TF's REGISTER_VARIANT_*_TYPE).
PRIMITIVES = {"int": np.int32, "float": np.float32, "double": np.float64, "bool": np.bool_}


class Variant:
    """One element of a variant tensor: `Variant<type: int value: 3>`."""

    __slots__ = ("type_name", "metadata", "tensors", "value")

    def __init__(self, type_name="", metadata=b"", tensors=(), value=None):
        self.type_name = type_name
        self.metadata = bytes(metadata)
        self.tensors = tuple(tensors)  # TensorProtos, kept encoded
        self.value = value  # the decoded scalar of a primitive type, else None

    @classmethod
    def from_proto(cls, proto):
        """The Variant of a `VariantTensorDataProto`, decoded where its type has a decoder."""
        var = cls(proto.type_name, proto.metadata, [t for t in proto.tensors])
        np_type = PRIMITIVES.get(var.type_name)
        if np_type is not None and not var.tensors and \
                len(var.metadata) == np.dtype(np_type).itemsize:
            var.value = np.frombuffer(var.metadata, dtype=np.dtype(np_type).newbyteorder("<"))[0]
        return var

    @classmethod
    def of(cls, type_name, value):
        """The Variant holding the scalar `value` of a primitive type ("int", "float", ...)."""
        scalar = PRIMITIVES[type_name](value)
        return cls(type_name, np.asarray(scalar).astype(scalar.dtype.newbyteorder("<")).tobytes(),
                   value=scalar)

    def to_proto(self):
        from flowloom.proto import tensor_pb2

        proto = tensor_pb2.VariantTensorDataProto(type_name=self.type_name,
                                                  metadata=self.metadata)
        for t in self.tensors:
            proto.tensors.add().CopyFrom(t)
        return proto

    @property
    def is_empty(self):
        return not self.type_name and not self.metadata and not self.tensors

    def __add__(self, other):
        """AddN of two variants: TF's registered binary ADD for the primitive types."""
        from flowloom.framework import errors

        if not isinstance(other, Variant):
            return NotImplemented
        if self.type_name != other.type_name:
            raise errors.InternalError(
                None, None, "BianryOpVariants: Variants a and b have different type ids.  Type "
                f"names: '{self.type_name}' vs. '{other.type_name}'")
        if self.value is None or other.value is None:
            raise errors.InternalError(
                None, None, "No unary variant binary_op function found for binary variant op "
                f"enum: 1 Variant type_name: '{self.type_name}' for device type: CPU")
        return Variant.of(self.type_name, self.value + other.value)

    def zeros_like(self):
        """ZerosLike of a variant: TF's registered ZEROS_LIKE for the primitive types."""
        from flowloom.framework import errors

        if self.value is None:
            raise errors.InternalError(
                None, None, "No unary variant unary_op function found for unary variant op enum: "
                f"1 Variant type_name: {self.type_name} for device type: CPU")
        return Variant.of(self.type_name, 0)

    def __eq__(self, other):
        return isinstance(other, Variant) and (self.type_name, self.metadata, self.tensors) == (
            other.type_name, other.metadata, other.tensors)

    def __hash__(self):
        return hash((self.type_name, self.metadata))

    def __str__(self):
        # TF's Variant::DebugString.
        if self.is_empty:
            return "Variant<type:  value: [empty]>"
        if self.value is None:
            return f"Variant<type: {self.type_name} value: {self.metadata!r}>"
        return f"Variant<type: {self.type_name} value: {_str_cat(self.value)}>"

    __repr__ = __str__


def _str_cat(value):
    """A scalar as TF's StrCat writes it: bools as 1/0, floats in the shortest of %.6g /
    %.9g (%.15g / %.17g for doubles) that reads back as the same number."""
    if isinstance(value, np.bool_):
        return "1" if value else "0"
    if isinstance(value, np.floating):
        short, full = (6, 9) if value.dtype == np.float32 else (15, 17)
        text = "%.*g" % (short, value)
        return text if value.dtype.type(text) == value else "%.*g" % (full, value)
    return str(value)


def is_variant_array(value):
    """Whether `value` is a NumPy object array of Variants (a decoded variant TensorProto)."""
    return isinstance(value, np.ndarray) and value.dtype == object and value.size > 0 and \
        isinstance(value.flat[0], Variant)


def array_from_proto(proto, shape, num_elements):
    """The object array of Variants a DT_VARIANT TensorProto holds (missing elements are
    empty Variants, as TF fills them)."""
    values = [Variant.from_proto(v) for v in proto.variant_val]
    if len(values) > num_elements:
        raise ValueError(f"{len(values)} variant values given for shape {list(shape)} "
                         f"({num_elements} elements)")
    out = np.empty(num_elements, dtype=object)
    out[:len(values)] = values
    for i in range(len(values), num_elements):
        out[i] = Variant()
    return out.reshape(shape)


def append_to_proto(proto, flat):
    """Appends an object array's Variants to a TensorProto's variant_val."""
    for v in flat:
        if not isinstance(v, Variant):
            raise TypeError(f"Expected a Variant for a variant tensor, got {v!r} of type "
                            f"'{type(v).__name__}' instead.")
        proto.variant_val.add().CopyFrom(v.to_proto())


def decode_array(array):
    """Checks that every element of a variant Const decodes, as TF's Const kernel parses its
    tensor (InvalidArgumentError naming the proto otherwise); returns the array."""
    from flowloom.framework import errors, tensor_proto

    for v in array.reshape(-1):
        if v.value is None and not v.is_empty:
            raise errors.InvalidArgumentError(
                None, None, "Cannot parse tensor from proto: "
                f"{str(tensor_proto.from_numpy(array)).rstrip()}")
    return array


def zeros_like_array(array):
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        flat[i] = v.zeros_like()
    return out
