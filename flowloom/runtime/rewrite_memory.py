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
"""

import functools

import numpy as np

MIN_ELEMENTS = 4096
_FRESH_TYPES = frozenset(["_FusedMatMul", "_FusedConv2D", "_FusedElementwise"])


def _into_first(ufunc, x, y):
    return ufunc(x, y, out=x)


def _into_second(ufunc, x, y):
    return ufunc(x, y, out=y)


def _is_ufunc_step(step):
    return isinstance(step.fn, np.ufunc) and not step.derefs


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
            result = s.op._outputs[0]
            shape = _shape(result)
            for j, slot in enumerate(s.ins):
                src = producer.get(slot)
                t = s.op._inputs[j]
                if shape is None or not shape or slot not in s.frees or slot in keep or \
                        src is None or not (_is_ufunc_step(src) or
                                            src.op._type in _FRESH_TYPES) or \
                        not all(_is_ufunc_step(r) for r in readers[slot]) or \
                        _shape(t) != shape or t._dtype is not result._dtype or \
                        int(np.prod(shape)) < min_elements:
                    continue
                fn = functools.partial(_into_first if j == 0 else _into_second, s.fn)
                break
        if fn is None:
            out.append(s)
            continue
        new = Step(s.op, fn, s.ins, s.derefs, s.out, s.nout, s.device)
        new.frees = s.frees
        out.append(new)
        changed += 1
    return out, changed
