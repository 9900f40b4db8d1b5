"""`PreventGradient`: an identity whose gradient is an error (`array_ops.prevent_gradient`)."""

from flowloom.framework import common_shapes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

PreventGradient = defop("PreventGradient", inputs=["input: T"], outputs=["output: T"],
                        attrs={"message": ""})
PreventGradient.shape(common_shapes.unchanged)


@PreventGradient.kernel
def _(xp, x):
    return x


@PreventGradient.gradient
def _(op, grad):
    message = op._attrs["message"]
    message = message.decode() if isinstance(message, bytes) else message
    raise LookupError(f"Gradient explicitly disabled. Reason: {message}")


def prevent_gradient(input, message="", name=None):  # noqa: A002 - TF's argument name
    """`input`, unchanged; `tf.gradients` through it raises LookupError with `message`."""
    return apply_op("PreventGradient", (input,), name=name, message=message).outputs[0]
