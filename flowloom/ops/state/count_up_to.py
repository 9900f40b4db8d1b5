"""CountUpTo: increments a variable until a limit, then raises OutOfRangeError (epochs)."""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

CountUpTo = defop("CountUpTo", inputs=["ref: Ref(T)"], outputs=["output: T"],
                  attrs={"limit": None}, stateful=True)
CountUpTo.shape(lambda op: [op._inputs[0]._shape])
CountUpTo.no_gradient()


@CountUpTo.kernel
def _(xp, ref, *, limit):
    with ref.lock:
        old = ref.value
        if old is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {ref.name}")
        if old >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        ref.value = np.asarray(old + 1, dtype=old.dtype)
        return np.array(old, copy=True)


def count_up_to(ref, limit, name=None):
    """Increments `ref` and returns its old value; OutOfRangeError once it reached `limit`."""
    if callable(getattr(ref, "_ref", None)):  # a Variable: its VariableV2 output
        ref = ref._ref()
    return apply_op("CountUpTo", (ref,), name=name, limit=int(limit)).outputs[0]
