"""tf.data's optionals: a variant holding an element or nothing (IteratorGetNextAsOptional,
OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue, TF 1.15's ops)."""

import numpy as np

from flowloom.framework import common_shapes, errors, tensor_shape
from flowloom.framework.op_def import defop


class OptionalValue:
    """An optional at run time: `components` (a tuple of arrays) or None."""

    __slots__ = ("components",)

    def __init__(self, components):
        self.components = components


def _optional_op(type_name, inputs, attrs=None, stateful=False):
    op = defop(type_name, inputs=inputs, outputs=["optional: variant"], attrs=attrs,
               stateful=stateful)
    op.shape(common_shapes.scalar_shape)
    op.no_gradient()
    return op


IteratorGetNextAsOptional = _optional_op(
    "IteratorGetNextAsOptional", ["iterator: resource"],
    {"output_types": None, "output_shapes": None}, stateful=True)


@IteratorGetNextAsOptional.kernel
def _(xp, iterator, *, output_types, output_shapes, ctx):
    try:
        return OptionalValue(tuple(iterator.get_next(ctx.op)))
    except errors.OutOfRangeError:
        return OptionalValue(None)


OptionalFromValue = _optional_op("OptionalFromValue", ["components: list(Toutput_types)"])


@OptionalFromValue.kernel
def _(xp, *components, **_):
    return OptionalValue(tuple(components))


OptionalNone = _optional_op("OptionalNone", [])


@OptionalNone.kernel
def _(xp):
    return OptionalValue(None)


def _optional(value, op):
    if not isinstance(value, OptionalValue):
        raise errors.InvalidArgumentError(None, op, "Input tensor must be an optional.")
    return value


OptionalHasValue = defop("OptionalHasValue", inputs=["optional: variant"],
                         outputs=["has_value: bool"])
OptionalHasValue.shape(common_shapes.scalar_shape)
OptionalHasValue.no_gradient()


@OptionalHasValue.kernel
def _(xp, optional, *, ctx):
    return np.array(_optional(optional, ctx.op).components is not None)


OptionalGetValue = defop("OptionalGetValue", inputs=["optional: variant"],
                         outputs=["components: list(output_types)"],
                         attrs={"output_types": None, "output_shapes": None})
OptionalGetValue.no_gradient()


@OptionalGetValue.shape
def _(op):
    return [tensor_shape.as_shape(s) for s in op._attrs["output_shapes"]]


@OptionalGetValue.kernel
def _(xp, optional, *, output_types, output_shapes, ctx):
    components = _optional(optional, ctx.op).components
    if components is None:
        raise errors.InvalidArgumentError(None, ctx.op,
                                          "The given optional does not have a value.")
    if len(components) != len(output_types):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"The optional holds {len(components)} components, "
            f"{len(output_types)} expected.")
    return list(components)
