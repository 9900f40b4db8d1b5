"""Image standardization fusion, a stage of the `remapping` rewrite: the ops that
`tf.image.per_image_standardization` builds become one `_FusedImageStandardization` op
(ops/image/fused_standardization.py).

    mean = Mean(x, axes)                    centered = Sub(x, mean)
    var = Mean(Square(Abs(centered)), axes)
    y = RealDiv(centered, Maximum(Sqrt(var), min_stddev))

(both Means keep their dims and read the same axes; the RealDiv may read a second Sub of
the same operands, as the graph has before common_subgraph_elimination). The pattern is
fused when every intermediate value is seen only by the pattern's ops (not fetched, not
waited for), all ops run on one device, and the values are float32. The fused op takes the
RealDiv's name (whose output it computes); its values are the separate ops'.
"""

import numpy as np

from flowloom.runtime.rewrite_oplist import OpListPass, is_plain


def _const(t):
    op = t._op
    value = op._attrs.get("value") if op._type == "Const" else None
    return value if isinstance(value, np.ndarray) and not op._control_inputs else None


def _same_axes(a, b):
    if a is b:
        return True
    va, vb = _const(a), _const(b)
    return va is not None and vb is not None and va.dtype == vb.dtype and \
        va.shape == vb.shape and bool((va == vb).all())


def fuse(order, fetch_tensors, target_ops, placement, fed, placed_as):
    """(new op list, placed_as, {fused op: the graph ops it runs})."""
    walk = OpListPass(order, fetch_tensors, target_ops, placement, fed, placed_as)
    fused_at = {}

    def producer(t, type_name, uses=1):
        # The op making `t` when it is a `type_name` whose output only `uses` ops read.
        op = walk.made_by(t)
        if op is None or op._type != type_name or walk.waited_for(op) or \
                len(op._outputs) != 1 or walk.preserved(op) or walk.uses.get(t, 0) != uses:
            return None
        return op

    def visit(op):
        if op._type != "RealDiv" or len(op._inputs) != 2 or walk.waited_for(op):
            return op
        num, den = op._inputs
        if num._dtype.name != "float32" or not is_plain(num) or \
                op._outputs[0]._dtype is not num._dtype:
            return op
        maximum = producer(den, "Maximum")
        sqrt = maximum and producer(maximum._inputs[0], "Sqrt")
        var = sqrt and producer(sqrt._inputs[0], "Mean")
        square = var and producer(var._inputs[0], "Square")
        absolute = square and producer(square._inputs[0], "Abs")
        if absolute is None:
            return op
        centered = walk.made_by(absolute._inputs[0])
        shared = centered is walk.made_by(num)
        centered = producer(absolute._inputs[0], "Sub", 2 if shared else 1)
        second = None if shared else producer(num, "Sub")
        if centered is None or not shared and (
                second is None or list(second._inputs) != list(centered._inputs)):
            return op
        x, mean_t = centered._inputs
        mean = producer(mean_t, "Mean", 1 if shared else 2)
        if mean is None or mean._inputs[0] is not x or \
                not _same_axes(mean._inputs[1], var._inputs[1]):
            return op
        members = [mean, centered, absolute, square, var, sqrt, maximum, op]
        if any(not m._attrs.get("keep_dims") for m in (mean, var)) or \
                any(t._dtype is not num._dtype for m in members for t in m._inputs
                    if m._type != "Mean" or t is m._inputs[0]) or \
                len({walk.device(m) for m in members + ([second] if second else [])}) != 1:
            return op
        from flowloom.ops.image import fused_standardization  # noqa: F401 - the op type

        fused = walk.make("_FusedImageStandardization", op._name,
                          [x, mean._inputs[1], maximum._inputs[1]],
                          {"T": num._dtype, "Tidx": mean._attrs.get("Tidx")},
                          members if second is None else members[:-1] + [second, op])
        for m in members[:-1] + ([second] if second else []):
            walk.drop(m)
        fused_at[fused] = members
        return fused

    new_order = walk.run(visit)
    kept = set(new_order)
    return new_order, walk.placed_as, {f: m for f, m in fused_at.items() if f in kept}
