"""Pooling codes, a stage of the `remapping` rewrite: a conv layer's ReLU output dies at its
max pooling instead of living through the whole backward pass (ops/nn/pool_codes.py).

In a training step of `conv2d -> bias -> relu -> max_pool`, the ReLU output r (as large as
the convolution's output, the largest array of a first layer) lives from the forward pass to
the layer's last backward op: `_FusedMaxPoolGrad(r, pooled, grad)` (MaxPoolGrad + ReluGrad)
reads it, and BiasAddGrad and Conv2DBackpropFilter read the r-sized gradient it makes. When
nothing else reads r, that gradient or the Identity ops between it and
Conv2DBackpropFilter, the MaxPool becomes `_MaxPoolCodes` (the pooled values, and one byte
per output naming where its window's maximum is) and the four backward ops one
`_FusedPoolConvGrad` that computes the bias and filter gradients from the codes, the pooled
values and the incoming gradient a block of images at a time, where the
`_FusedMaxPoolGrad` ran. When r comes from a `_FusedConv2D` (conv + BiasAdd + Relu) that
nothing else sees, it and the MaxPool become one `_FusedConvPoolCodes` that convolves, adds,
rectifies and pools a block of images at a time, so r never exists whole. The values are
the separate ops' own, bit for bit.

The pair is rewritten when: every op runs on one host device, in a plan without kernel worker
threads (with them the separate kernels split their work in groups the fused kernel does not
reproduce); r is a float32/float64 NHWC array of known shape, at least `MIN_BYTES` (smaller,
one block holds it and nothing is saved), not fed or fetched; the pooling has at most 255
window offsets; the convolution is NHWC with unit dilations and SAME or VALID padding; no op
of the pattern is a target or waited for, and the convolution's input and filter sizes are
computed before the `_FusedMaxPoolGrad` runs.
"""

import numpy as np

from flowloom.runtime.rewrite_oplist import static_shape
from flowloom.runtime.rewrite_remap import RewrittenOp

MIN_BYTES = 1 << 20
_FLOATS = frozenset(["float32", "float64"])


def _nhwc(op):
    return op._attrs.get("data_format", "NHWC") in ("NHWC", b"NHWC")


def _window_attr(values):
    values = list(values or ())
    return len(values) == 4 and values[0] == 1 and values[3] == 1


def fuse(order, fetch_tensors, target_ops, placement, fed, placed_as, min_bytes=MIN_BYTES):
    """(new op list, placed_as, {made op: the ops it runs})."""
    from flowloom.ops.nn import kernel_threads, pool_codes

    if kernel_threads.POOL is not None:
        return order, placed_as, {}
    fetched, fed = set(fetch_tensors), set(fed)
    targets = set(target_ops)
    readers = {}
    control_users = set()
    for op in order:
        for t in op._inputs:
            readers.setdefault(t, []).append(op)
        control_users.update(op._control_inputs)
    producer = {t: op for op in order for t in op._outputs}
    position = {op: k for k, op in enumerate(order)}
    placed_as = dict(placed_as)

    def device(op):
        return placement.get(placed_as.get(op, op))

    def hidden(op):
        return op not in targets and op not in control_users and \
            placed_as.get(op, op) not in control_users

    def before(t, k):
        op = producer.get(t)
        return t in fed if op is None else position[op] < k

    def match(g):
        """(pool, bias_grad, identities, filter_grad) of the pattern at `g`, else None."""
        if g._type != "_FusedMaxPoolGrad" or not _nhwc(g) or not hidden(g) or \
                [f.decode() if isinstance(f, bytes) else f
                 for f in g._attrs.get("fused_ops", ())] != ["ReluGrad"]:
            return None
        r, pooled, _ = g._inputs
        dc = g._outputs[0]
        shape = static_shape(r)
        if r in fetched or r in fed or dc in fetched or r._dtype.name not in _FLOATS or \
                shape is None or len(shape) != 4 or \
                int(np.prod(shape)) * r._dtype.as_numpy_dtype().itemsize < min_bytes:
            return None
        pool = producer.get(pooled)
        if pool is None or pool._type != "MaxPool" or pool._inputs[0] is not r or \
                not hidden(pool) or not _nhwc(pool) or \
                sorted(map(id, readers.get(r, ()))) != sorted([id(pool), id(g)]) or \
                any(list(pool._attrs.get(a) or ()) != list(g._attrs.get(a) or ())
                    for a in ("ksize", "strides")) or \
                pool._attrs.get("padding") != g._attrs.get("padding") or \
                pool._attrs.get("padding") not in ("SAME", "VALID") or \
                not _window_attr(pool._attrs.get("ksize")) or \
                not _window_attr(pool._attrs.get("strides")) or \
                pool._attrs["ksize"][1] * pool._attrs["ksize"][2] > 255:
            return None
        bias, chain, filt = None, [], None
        for op in readers.get(dc, ()):
            if op._type == "BiasAddGrad" and bias is None:
                bias = op
                continue
            t = dc
            while op._type == "Identity" and len(readers.get(op._outputs[0], ())) == 1 and \
                    op._outputs[0] not in fetched and hidden(op) and op._inputs[0] is t:
                chain.append(op)
                t = op._outputs[0]
                op = readers[t][0]
            if filt is not None or op._type != "Conv2DBackpropFilter" or op._inputs[2] is not t:
                return None
            filt = op
        if bias is None or filt is None or not _nhwc(bias) or not _nhwc(filt) or \
                not hidden(bias) or not hidden(filt) or len(readers[dc]) != 2:
            return None
        a = filt._attrs
        x, sizes = filt._inputs[0], filt._inputs[1]
        ops = [pool, g, bias, filt] + chain
        k = position[g]
        if list(a.get("dilations") or [1, 1, 1, 1]) != [1, 1, 1, 1] or \
                a.get("padding") not in ("SAME", "VALID") or list(a.get("explicit_paddings") or
                                                                   ()) or \
                not _window_attr(a.get("strides")) or x._dtype is not r._dtype or \
                bias._outputs[0]._dtype is not r._dtype or not before(x, k) or \
                not before(sizes, k) or len({id(device(op)) for op in ops}) != 1 or \
                getattr(device(g), "xp", None) is not np or \
                any(c in position and position[c] >= k for op in ops[2:]
                    for c in op._control_inputs):
            return None
        return pool, bias, chain, filt, forward(producer.get(r), pool)

    def forward(conv, pool):
        """The `_FusedConv2D` (+ bias + ReLU) computing the pooled input, when it can run
        a block of images at a time with the pooling, else None."""
        if conv is None or conv._type != "_FusedConv2D" or len(conv._inputs) != 3 or \
                not hidden(conv) or not _nhwc(conv) or device(conv) is not device(pool) or \
                [f.decode() if isinstance(f, bytes) else f
                 for f in conv._attrs.get("fused_ops", ())] != ["BiasAdd", "Relu"]:
            return None
        a = conv._attrs
        if list(a.get("dilations") or [1, 1, 1, 1]) != [1, 1, 1, 1] or \
                a.get("padding") not in ("SAME", "VALID") or \
                list(a.get("explicit_paddings") or ()) or not _window_attr(a.get("strides")):
            return None
        return conv

    new_at, dropped, made = {}, set(), {}
    for g in order:
        found = match(g) if g not in dropped else None
        if found is None:
            continue
        pool, bias, chain, filt, conv = found
        if conv is None:
            codes_op = RewrittenOp("_MaxPoolCodes", pool._name, list(pool._inputs),
                                   dict(pool._attrs), [pool])
        else:
            c = conv._attrs
            codes_op = RewrittenOp("_FusedConvPoolCodes", pool._name, list(conv._inputs), {
                "strides": c["strides"], "padding": c["padding"], "dilations": [1, 1, 1, 1],
                "explicit_paddings": [], "data_format": "NHWC",
                "use_cudnn_on_gpu": c.get("use_cudnn_on_gpu", True),
                "ksize": pool._attrs["ksize"], "pool_strides": pool._attrs["strides"],
                "pool_padding": pool._attrs["padding"], "T": c.get("T")}, [conv, pool])
            dropped.add(conv)
        codes = pool_codes.codes_tensor(codes_op, pool._outputs[0])
        codes_op._outputs = [pool._outputs[0], codes]
        a = filt._attrs
        attrs = {"strides": a["strides"], "padding": a["padding"],
                 "dilations": a.get("dilations") or [1, 1, 1, 1],
                 "explicit_paddings": a.get("explicit_paddings") or [],
                 "data_format": "NHWC", "use_cudnn_on_gpu": a.get("use_cudnn_on_gpu", True),
                 "ksize": g._attrs["ksize"], "pool_strides": g._attrs["strides"],
                 "pool_padding": g._attrs["padding"], "T": g._attrs.get("T")}
        grad_op = RewrittenOp("_FusedPoolConvGrad", filt._name,
                              [filt._inputs[0], filt._inputs[1], codes, g._inputs[1],
                               g._inputs[2]], attrs, [g, bias] + chain + [filt])
        grad_op._outputs = [bias._outputs[0], filt._outputs[0]]
        for op, like in ((codes_op, pool), (grad_op, filt)):
            placed_as[op] = placed_as.get(like, like)
        new_at[pool], new_at[g] = codes_op, grad_op
        dropped.update([bias, filt] + chain)
        made[codes_op] = [pool] if conv is None else [conv, pool]
        made[grad_op] = [g, bias] + chain + [filt]
    if not made:
        return order, placed_as, {}
    return [new_at.get(op, op) for op in order if op not in dropped], placed_as, made
