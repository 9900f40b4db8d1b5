"""The `memory_optimization` rewrite: elementwise arithmetic writes into a dead input's buffer.

A step bound directly to a NumPy ufunc (same-dtype host arithmetic, see `kernel.bind`) whose
input dies at that step (it is the input's last reader) writes its result into that input's
array (`np.add(x, y, out=x)`) instead of a new one, so a chain of elementwise ops over large
arrays reuses one buffer. The buffer is reused only when nothing else can hold it: its
producer is itself a ufunc step or a fused op (which return arrays of their own), every step
that reads it is a ufunc step (none keeps a reference, as an Assign or a queue would), it is
not fed, fetched or folded, and its static shape is fully known, equal to the result's, and
at least `MIN_ELEMENTS` elements (below that, a new array costs less than the extra call).
The values are the same: a ufunc computes the same numbers whichever buffer it writes.

Other kernels offer the same through an attribute next to their definition: `kernel.into =
(j, fn)`, where `fn(xp, *arrays, **attrs)` computes what the kernel computes, writes it into
`arrays[j]` and returns that array (ReluGrad writes into the incoming gradient). Such a step
reuses input j under the same conditions, on the host device.
"""

import functools

import numpy as np

MIN_ELEMENTS = 4096
# Kernels that return an array of their own (never an input or a view of one): a buffer
# they make is held by nothing else.
_FRESH_TYPES = frozenset(["_FusedMatMul", "_FusedConv2D", "_FusedElementwise", "MaxPoolGrad",
                          "ReluGrad", "_FusedMaxPoolGrad", "MaxPool",
                          "_MaxPoolCodes", "_FusedPoolConvGrad"])


def _into_first(ufunc, x, y):
    return ufunc(x, y, out=x)


def _into_second(ufunc, x, y):
    return ufunc(x, y, out=y)


def _is_ufunc_step(step):
    return isinstance(step.fn, np.ufunc) and not step.derefs


def _keeps_nothing(step):
    """Whether the step's results hold no reference to its inputs (so a buffer it read can be
    overwritten once nothing reads it later)."""
    return _is_ufunc_step(step) or (step.op._type in _FRESH_TYPES and not step.derefs)


def _into_kernel(step):
    """(j, fn) when the step's kernel can write its result into input j, else None."""
    into = getattr(step.op._opdef.kernel_fn, "into", None)
    if into is None or step.derefs or step.nout != 1 or step.device is None or \
            step.device.xp is not np:
        return None
    j, fn = into
    op = step.op
    attrs = {a: op._attrs[a] for a in op._opdef.kernel_attrs if a in op._attrs}
    return j, functools.partial(fn, np, **attrs)


def _reusable(s, j, slot, producer, readers, keep, min_elements):
    """Whether step `s` may overwrite the buffer of its input `j` (slot `slot`)."""
    result = s.op._outputs[0]
    shape = _shape(result)
    src = producer.get(slot)
    t = s.op._inputs[j]
    return not (shape is None or not shape or slot not in s.frees or slot in keep or
                src is None or not (_is_ufunc_step(src) or src.op._type in _FRESH_TYPES) or
                not all(_keeps_nothing(r) or r is s for r in readers[slot]) or
                _shape(t) != shape or t._dtype is not result._dtype or
                int(np.prod(shape)) < min_elements)


def _shape(t):
    s = t._shape
    return tuple(s.as_list()) if s.is_fully_defined() else None


def reuse_buffers(steps, keep, min_elements=MIN_ELEMENTS):
    """(steps with in-place kernels where a dead input's buffer can be reused, how many).

    `steps` have their `frees` set; `keep` holds the slots that must survive the run (feeds,
    fetches, folded constants). The steps are new objects where changed.
    """
    from flowloom.runtime.executor import Step

    producer = {}
    readers = {}
    for s in steps:
        for k in range(s.nout):
            producer[s.out + k] = s
        for i in s.ins:
            readers.setdefault(i, []).append(s)
    out = []
    changed = 0
    for s in steps:
        fn = None
        if _is_ufunc_step(s) and len(s.ins) == 2 and s.nout == 1 and s.fn.nout == 1:
            for j, slot in enumerate(s.ins):
                if _reusable(s, j, slot, producer, readers, keep, min_elements):
                    fn = functools.partial(_into_first if j == 0 else _into_second, s.fn)
                    break
        else:
            into = _into_kernel(s)
            if into is not None and \
                    _reusable(s, into[0], s.ins[into[0]], producer, readers, keep, min_elements):
                fn = into[1]
        if fn is None:
            out.append(s)
            continue
        new = Step(s.op, fn, s.ins, s.derefs, s.out, s.nout, s.device)
        new.frees = s.frees
        out.append(new)
        changed += 1
    return out, changed
