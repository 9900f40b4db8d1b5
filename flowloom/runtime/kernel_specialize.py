"""Kernels specialized on their constant inputs when a plan is compiled.

Many ops of a per-example pipeline read constants: a Reshape's shape, a reduction's axes, a
Transpose's perm, a StridedSlice's begin/end/strides. Their kernels check and convert those
inputs on every run (a few microseconds each, per op, per example). A kernel may offer
`kernel_fn.specialize(op, consts, general)`: given the values of its constant inputs
(`consts[i]`, None where input i is not a constant of the plan) and the general bound
kernel, it returns a callable of the same arguments that does the constant part once, or
None. The callable must compute exactly what `general` computes; wherever it cannot tell
(an input of another shape, a value that would fail) it calls `general`, so the errors are
the general kernel's. Only plans on host (NumPy) devices are specialized, and only while the
`constant_folding` rewrite is on (this is partial evaluation over the same constants).
"""


def specialize(op, fn, consts):
    """`fn` (the op's bound kernel), or its specialization on `consts` (see the module)."""
    if all(c is None for c in consts):
        return fn
    spec = getattr(op._opdef.kernel_fn, "specialize", None)
    if spec is None:
        return fn
    fast = spec(op, consts, fn)
    return fn if fast is None else fast
