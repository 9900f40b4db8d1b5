"""`tf.data.experimental.Optional` and `get_next_as_optional`: an element or nothing, as a
variant tensor (ops/data/optional_ops.py).

    optional = tf.data.experimental.get_next_as_optional(iterator)
    value = tf.cond(optional.has_value(), optional.get_value, lambda: default)
"""

from flowloom.data import structure
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.ops.data import optional_ops  # noqa: F401 - registers the ops


class Optional:
    """A value that may be missing: `has_value()` (a bool tensor), `get_value()` (the
    value's tensors; InvalidArgumentError at run time when it is missing) and
    `value_structure` (the value's nested TensorSpecs)."""

    def __init__(self, variant, value_structure):
        self._variant_tensor = variant
        self._value_structure = value_structure

    @property
    def value_structure(self):
        return self._value_structure

    def has_value(self, name=None):
        """A scalar bool tensor: whether the optional holds a value."""
        with name_scope(name, "OptionalHasValue", [self._variant_tensor]) as scope:
            return apply_op("OptionalHasValue", (self._variant_tensor,), name=scope).outputs[0]

    def get_value(self, name=None):
        """The value's tensors, in `value_structure`'s structure."""
        with name_scope(name, "OptionalGetValue", [self._variant_tensor]) as scope:
            flat = apply_op("OptionalGetValue", (self._variant_tensor,), name=scope,
                            **structure.op_attrs(self._value_structure)).outputs
        return structure.pack(self._value_structure, flat)

    @staticmethod
    def from_value(value):
        """An optional holding `value` (a nested structure of tensors)."""
        from flowloom.data.dataset import _spec_of

        with name_scope("optional") as scope:
            with name_scope("value"):
                spec, flat = _spec_of(value)
            variant = apply_op("OptionalFromValue", (flat,), name=scope).outputs[0]
        return Optional(variant, spec)

    @staticmethod
    def none_from_structure(value_structure):
        """An optional with no value, of `value_structure` (another optional's)."""
        return Optional(apply_op("OptionalNone", ()).outputs[0], value_structure)


def get_next_as_optional(iterator):
    """The iterator's next element as an Optional: without a value at the end of the
    dataset (instead of an OutOfRangeError)."""
    spec = iterator.element_spec
    variant = apply_op("IteratorGetNextAsOptional", (iterator._handle,),
                       **structure.op_attrs(spec)).outputs[0]
    return Optional(variant, spec)
