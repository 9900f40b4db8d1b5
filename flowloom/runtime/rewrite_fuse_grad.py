"""Gradient fusion, a stage of the `remapping` rewrite: MaxPoolGrad + ReluGrad become one
`_FusedMaxPoolGrad` op (ops/nn/fused_ops.py).

The backward pass of `Relu -> MaxPool` is `ReluGrad(MaxPoolGrad(r, pooled, g), r)`: both ops
read the ReLU's output `r`, and MaxPoolGrad's result, as large as `r`, lives only to be
masked. Fused, each block of images is routed and masked at once, and the
`memory_optimization` rewrite lets the fused op write into `r` itself when `r` dies there (as
it does in a training step): the step needs neither of the two `r`-sized arrays it made.

A pair is fused when MaxPoolGrad's result is private (read only by the ReluGrad, not
fetched, not waited for), the ReluGrad's features are MaxPoolGrad's original input, both
run on one device, the layout is NHWC and the dtype a float. The fused op takes the
ReluGrad's name (whose output it computes); the values are the separate ops' own: the same
routing, then the same products with the same mask.
"""

from flowloom.runtime.rewrite_oplist import OpListPass, is_plain

_FLOATS = frozenset(["float16", "float32", "float64", "bfloat16"])


def fuse(order, fetch_tensors, target_ops, placement, fed, placed_as):
    """(new op list, placed_as, {fused op: the graph ops it runs})."""
    from flowloom.ops.nn import fused_ops  # noqa: F401 - registers the fused op type

    walk = OpListPass(order, fetch_tensors, target_ops, placement, fed, placed_as)
    pairs = {}

    def visit(op):
        if op._type != "ReluGrad" or len(op._inputs) != 2 or walk.waited_for(op):
            return op
        grad, features = op._inputs
        pool_grad = walk.made_by(grad)
        if pool_grad is None or pool_grad._type != "MaxPoolGrad" or \
                pool_grad._inputs[0] is not features or not walk.private(grad) or \
                walk.device(pool_grad) is not walk.device(op) or \
                pool_grad._attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC") or \
                not is_plain(features) or features._dtype.name not in _FLOATS or \
                grad._dtype is not features._dtype or op._outputs[0]._dtype is not grad._dtype:
            return op
        attrs = {k: v for k, v in pool_grad._attrs.items()}
        attrs["fused_ops"] = [b"ReluGrad"]
        fused = walk.make("_FusedMaxPoolGrad", op._name, list(pool_grad._inputs), attrs,
                          [pool_grad, op])
        walk.drop(pool_grad)
        pairs[fused] = [pool_grad, op]
        return fused

    new_order = walk.run(visit)
    return new_order, walk.placed_as, pairs
