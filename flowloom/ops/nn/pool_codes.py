"""Max pooling that records where each maximum is, and a first conv layer's backward pass
computed from that record: the two ops the `remapping` rewrite puts in a training plan in
place of a ReLU output kept alive for MaxPoolGrad (runtime/rewrite_pool_codes.py).

`_MaxPoolCodes` is MaxPool that also returns, per output, the offset `i * kw + j` of its
window's first maximum in window order (one byte; the first NaN in a window holding one):
the position MaxPoolGrad routes that output's gradient to. `_FusedPoolConvGrad` computes
what `_FusedMaxPoolGrad` (MaxPoolGrad + ReluGrad), BiasAddGrad and Conv2DBackpropFilter
compute from the ReLU's output, from those codes and the pooled values instead;
`_FusedConvPoolCodes` is `_FusedConv2D` (conv + bias + ReLU) and `_MaxPoolCodes` a block of
images at a time. The ReLU's
mask is only needed where a gradient lands, and a position where one lands holds its
window's maximum, so the mask there is `pooled > 0`; elsewhere the routed gradient is a zero,
which the mask multiplies into itself. The ReLU's output (as large as the convolution's)
then dies at the pooling, and the backward pass makes its gradient a block of images at a
time: each block is routed, masked, added into the bias gradient and multiplied into the
filter gradient while it is in cache.

The values are bit for bit the separate ops': the same routing arithmetic per image, the
bias gradient's rows summed in the same order (NumPy sums a [rows, c] array over its rows
one after the other, and each block's sum starts from the previous blocks' sum), the filter
gradient over the same image blocks as Conv2DBackpropFilter's patches kernel. Where that
kernel would take another path (Winograd, worker threads), where a value is not finite and
for a single channel, the kernel makes the whole gradient and runs the separate kernels.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.op_def import defop, get
from flowloom.ops.nn import kernel_threads
from flowloom.ops.nn import nn_kernels as K

_MAX_OFFSETS = 255  # window offsets a one-byte code can name


def max_pool_codes(x, ksize, strides, padding, out=None, codes=None):
    """(max_pool(x, ...), codes) for NHWC `x` (into `out` and `codes` when given): the pooled
    values are max_pool's own."""
    ph, pw, oh, ow = K._pool_geometry(x.shape, ksize, strides, padding)
    if out is None:
        out = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)
        codes = np.zeros(out.shape, np.uint8)
    else:
        codes[...] = 0
    kw = ksize[1]

    def run(s):
        xs, o, c = K._pad(x[s], ph, pw, K._lowest(x.dtype)), out[s], codes[s]
        greater = np.empty(o.shape, bool)
        code = np.empty(o.shape, np.uint8)
        for i in range(ksize[0]):
            for j in range(kw):
                win = K._window(xs, i, j, oh, ow, strides, (1, 1))
                if i == j == 0:
                    o[...] = win
                    continue
                # A strictly greater value is a new first maximum; offsets only grow, so
                # the code is the largest offset that was one.
                np.greater(win, o, out=greater)
                np.multiply(greater.view(np.uint8), np.uint8(i * kw + j), out=code)
                np.maximum(c, code, out=c)
                np.maximum(o, win, out=o)
        if o.dtype.kind == "f" and np.isnan(o).any():
            _nan_codes(xs, o, c, ksize, strides, oh, ow)
    K._over_image_blocks(run, x)
    return out, codes


def conv_relu_pool_codes(x, w, bias, strides, padding, ksize, pool_strides, pool_padding):
    """max_pool_codes(relu(conv2d(x, w) + bias)) as `_FusedConv2D` and `_MaxPoolCodes`
    compute it, a block of images at a time where their values come out of that (the patches
    kernel on one kernel worker), so the ReLU output never exists whole."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = w.shape
    st = (strides[1], strides[2])
    ks, ps = (ksize[1], ksize[2]), (pool_strides[1], pool_strides[2])
    ph, pw, oh, ow = K._geometry(h, wd, kh, kw, st, (1, 1), padding, ((0, 0), (0, 0)))
    per_image = oh * ow * kh * kw * c * x.itemsize
    blocks = K._image_blocks(n, per_image, K._BLOCK_BYTES)
    if ci != c or n * oh * ow == 0 or x.dtype != w.dtype or x.dtype != bias.dtype or \
            x.dtype not in (np.float32, np.float64) or tuple(bias.shape) != (co,) or \
            K._winograd_tile(x, kh, kw, c, co, st, (1, 1), oh, ow) is not None or \
            (kh == kw == 1 and st == (1, 1) and not (any(ph) or any(pw))) or \
            kernel_threads.POOL is not None:
        r = get("_FusedConv2D").kernel_fn(
            np, x, w, bias, strides=strides, padding=padding, data_format="NHWC",
            dilations=[1, 1, 1, 1], explicit_paddings=[], fused_ops=[b"BiasAdd", b"Relu"])
        return max_pool_codes(r, ks, ps, pool_padding)
    poh, pow_ = K._pool_geometry((n, oh, ow, co), ks, ps, pool_padding)[2:]
    pooled = np.empty((n, poh, pow_, co), x.dtype)
    codes = np.empty(pooled.shape, np.uint8)
    xpad = K._pad(x, ph, pw)
    w2 = w.reshape(kh * kw * c, co)
    for part in blocks:  # conv2d's own blocks and matmuls, bias and ReLU in place
        r = np.empty((part.stop - part.start, oh, ow, co), x.dtype)
        np.matmul(K._patch_matrix(xpad[part], kh, kw, oh, ow, st, (1, 1)), w2,
                  out=r.reshape(-1, co))
        np.add(r, bias, out=r)
        np.maximum(r, 0, out=r)
        max_pool_codes(r, ks, ps, pool_padding, out=pooled[part], codes=codes[part])
    return pooled, codes


def _nan_codes(xs, ys, codes, ksize, strides, oh, ow):
    """Codes by MaxPoolGrad's rule itself: the first position equal to the maximum, or the
    first NaN where the maximum is NaN."""
    nan_out = np.isnan(ys)
    claimed = np.zeros(ys.shape, bool)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            xw = K._window(xs, i, j, oh, ow, strides, (1, 1))
            take = ((xw == ys) | (nan_out & np.isnan(xw))) & ~claimed
            codes[take] = i * ksize[1] + j
            claimed |= take


def _route(codes, ys, dys, padded_shape, ksize, strides, oh, ow, finite):
    """(routed gradient, mask) of a block of images, both padded: the gradient with
    max_pool_grad's arithmetic, the mask True where a window whose maximum is > 0 sends
    its gradient."""
    sh, sw = strides
    direct = ksize[0] >= sh and ksize[1] >= sw and finite
    if direct:  # as in max_pool_grad: offsets (i < sh, j < sw) write, the rest add
        dxs = np.empty(padded_shape, dys.dtype)
        dxs[:, sh * oh:] = 0
        dxs[:, :, sw * ow:] = 0
    else:
        dxs = np.zeros(padded_shape, dys.dtype)
    mask = np.zeros(padded_shape, bool)
    positive = ys > 0
    unclaimed = np.array(dys)
    hit = np.empty(ys.shape, bool)
    sent = np.empty(ys.shape, bool)
    part = np.empty(ys.shape, dys.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            np.equal(codes, i * ksize[1] + j, out=hit)
            np.logical_and(hit, positive, out=sent)
            m = K._window(mask, i, j, oh, ow, strides, (1, 1))
            np.logical_or(m, sent, out=m)
            win = K._window(dxs, i, j, oh, ow, strides, (1, 1))
            if not finite:  # max_pool_grad's selects (0 * inf is nan)
                win += np.where(hit, dys, 0)
            elif direct and i < sh and j < sw:
                np.multiply(unclaimed, hit, out=win)
                np.subtract(unclaimed, win, out=unclaimed)
            else:
                np.multiply(unclaimed, hit, out=part)
                np.add(win, part, out=win)
                np.subtract(unclaimed, part, out=unclaimed)
    return dxs, mask


def relu_pool_grad(codes, y, dy, shape, ksize, strides, padding):
    """`_FusedMaxPoolGrad(r, y, dy)` (MaxPoolGrad then ReluGrad) of an NHWC `r` of `shape`,
    from the codes of `r`'s pooling: the whole [n, h, w, c] gradient."""
    ph, pw, oh, ow = K._pool_geometry(shape, ksize, strides, padding)
    h, w = shape[1], shape[2]
    dx = np.empty(shape, dy.dtype)
    padded = (h + ph[0] + ph[1], w + pw[0] + pw[1], shape[3])

    def run(s):
        ys, dys = y[s], dy[s]
        # max_pool_grad decides per block of images whether its values are finite.
        finite = bool(np.isfinite(ys).all() and np.isfinite(dys).all())
        dxs, mask = _route(codes[s], ys, dys, (ys.shape[0],) + padded, ksize, strides, oh, ow,
                           finite)
        np.multiply(dxs[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w],
                    mask[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w], out=dx[s])
    # The same image blocks as max_pool_grad's over `r`.
    K._over_image_blocks(run, np.broadcast_to(np.zeros((), dy.dtype), shape))
    return dx


def pool_conv_grad(x, filter_sizes, codes, y, dy, conv, pool):
    """(BiasAddGrad, Conv2DBackpropFilter) of the gradient `_FusedMaxPoolGrad` makes from the
    ReLU output of conv2d(x, filter) + bias, without that gradient when it can.

    `conv`: the conv's attrs (strides, padding, dilations, explicit_paddings; NHWC);
    `pool`: the pooling's (ksize, strides, padding).
    """
    sizes = tuple(int(d) for d in filter_sizes)
    ks, ps = (pool["ksize"][1], pool["ksize"][2]), (pool["strides"][1], pool["strides"][2])
    n, h, wd, c = x.shape
    st = (conv["strides"][1], conv["strides"][2])
    dil = (conv["dilations"][1], conv["dilations"][2])
    shape = None
    if len(sizes) == 4 and conv["padding"] in ("SAME", "VALID", "EXPLICIT"):
        kh, kw, _, co = sizes
        ph, pw, oh, ow = K._geometry(h, wd, kh, kw, st, dil, conv["padding"], K.explicit_pairs(
            conv["explicit_paddings"], "NHWC"))
        shape = (n, oh, ow, co)
        pooled = (n,) + K._pool_geometry(shape, ks, ps, pool["padding"])[2:] + (co,)
        if not tuple(y.shape) == tuple(dy.shape) == tuple(codes.shape) == pooled:
            shape = None
    if shape is None or dil != (1, 1) or conv["padding"] == "EXPLICIT" or \
            not _blockwise(x, sizes, y, dy, shape, st):
        return _separately(x, filter_sizes, codes, y, dy, conv, (ks, ps, pool["padding"]),
                           shape)
    pph, ppw, poh, pow_ = K._pool_geometry(shape, ks, ps, pool["padding"])
    padded = (oh + pph[0] + pph[1], ow + ppw[0] + ppw[1], co)
    xpad = K._pad(x, ph, pw)
    per_image = oh * ow * kh * kw * c * x.itemsize
    dw = np.zeros((kh * kw * c, co), np.result_type(x, dy))
    bias = None
    for part in K._image_blocks(n, per_image, K._BLOCK_BYTES):
        b = part.stop - part.start
        dxs, mask = _route(codes[part], y[part], dy[part], (b,) + padded, ks, ps, poh, pow_,
                           True)
        # Row 0 holds the bias gradient so far: summing the block continues the sum.
        rows = np.empty((b * oh * ow + 1, co), dy.dtype)
        grad = rows[1:]
        np.multiply(dxs[:, pph[0]:pph[0] + oh, ppw[0]:ppw[0] + ow],
                    mask[:, pph[0]:pph[0] + oh, ppw[0]:ppw[0] + ow],
                    out=grad.reshape(b, oh, ow, co))
        if bias is None:
            bias = grad.sum(axis=0)
        else:
            rows[0] = bias
            bias = rows.sum(axis=0)
        dw += K._patch_matrix(xpad[part], kh, kw, oh, ow, st, (1, 1)).T @ grad
    return bias, sum([dw]).reshape(kh, kw, c, co)  # sum(): as the kernel adds its groups


def _blockwise(x, sizes, y, dy, shape, st):
    """Whether the separate kernels' values come out of the block-by-block computation."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = sizes
    if ci != c or co != shape[3] or co < 2 or n == 0 or dy.size == 0 or \
            x.dtype != dy.dtype or x.dtype not in (np.float32, np.float64) or \
            K._winograd_tile(x, kh, kw, c, co, st, (1, 1), shape[1], shape[2]) is not None:
        return False
    per_image = shape[1] * shape[2] * kh * kw * c * x.itemsize
    blocks = len(K._image_blocks(n, per_image, K._BLOCK_BYTES))
    return kernel_threads.group_count(blocks, n * per_image, big_matmuls=True) == 1 and \
        bool(np.isfinite(dy).all()) and bool(np.isfinite(y).all())


def _separately(x, filter_sizes, codes, y, dy, conv, pool, shape):
    """The whole gradient, then BiasAddGrad's and Conv2DBackpropFilter's own kernels."""
    if shape is None:
        raise errors.InvalidArgumentError(
            None, None, f"_FusedPoolConvGrad: the pooled gradient {list(dy.shape)} does not "
            f"match the convolution of {list(x.shape)} by a {list(filter_sizes)} filter")
    grad = relu_pool_grad(codes, y, dy, shape, *pool)
    bias = get("BiasAddGrad").kernel_fn(np, grad, data_format="NHWC")
    filt = get("Conv2DBackpropFilter").kernel_fn(np, x, filter_sizes, grad, **conv)
    return bias, filt


def codes_tensor(op, pooled):
    """The codes output of `op`, a `_MaxPoolCodes` a rewrite made for the MaxPool of
    `pooled`: one uint8 per pooled value."""
    from flowloom.framework import dtypes
    from flowloom.framework.ops import Tensor

    t = Tensor(op, 1, dtypes.uint8)
    t._shape = pooled._shape
    return t


_POOL = {"ksize": None, "strides": None, "padding": None, "data_format": "NHWC", "T": None}

_MaxPoolCodes = defop("_MaxPoolCodes", inputs=["input: T"], outputs=["output: T",
                                                                     "codes: uint8"],
                      attrs=dict(_POOL, explicit_paddings=[]))


@_MaxPoolCodes.shape
def _(op):
    s = get("MaxPool").shape_fn(op)
    return [s, s]


@_MaxPoolCodes.kernel
def _(xp, x, *, ksize, strides, padding, data_format):
    if xp is not np or data_format not in ("NHWC", b"NHWC"):
        raise errors.UnimplementedError(None, None, "_MaxPoolCodes runs NHWC on the host only")
    if ksize[1] * ksize[2] > _MAX_OFFSETS:
        raise errors.UnimplementedError(None, None, "_MaxPoolCodes: more window offsets than "
                                        "a one-byte code names")
    return max_pool_codes(x, (ksize[1], ksize[2]), (strides[1], strides[2]), padding)


_FusedConvPoolCodes = defop(
    "_FusedConvPoolCodes", inputs=["input: T", "filter: T", "bias: T"],
    outputs=["output: T", "codes: uint8"],
    attrs={"strides": None, "padding": None, "dilations": [1, 1, 1, 1],
           "explicit_paddings": [], "data_format": "NHWC", "use_cudnn_on_gpu": True,
           "ksize": None, "pool_strides": None, "pool_padding": None, "T": None})


@_FusedConvPoolCodes.shape
def _(op):
    return [op._outputs[0]._shape, op._outputs[1]._shape]


@_FusedConvPoolCodes.kernel
def _(xp, x, w, bias, *, strides, padding, ksize, pool_strides, pool_padding, data_format):
    if xp is not np or data_format not in ("NHWC", b"NHWC"):
        raise errors.UnimplementedError(None, None, "_FusedConvPoolCodes runs NHWC on the "
                                        "host only")
    return conv_relu_pool_codes(x, w, bias, strides, padding, ksize, pool_strides,
                                pool_padding)


_FusedPoolConvGrad = defop(
    "_FusedPoolConvGrad",
    inputs=["input: T", "filter_sizes: int32", "codes: uint8", "orig_output: T", "grad: T"],
    outputs=["bias_backprop: T", "filter_backprop: T"],
    attrs={"strides": None, "padding": None, "dilations": [1, 1, 1, 1],
           "explicit_paddings": [], "data_format": "NHWC", "use_cudnn_on_gpu": True,
           "ksize": None, "pool_strides": None, "pool_padding": None, "T": None})


@_FusedPoolConvGrad.shape
def _(op):
    return [op._outputs[0]._shape, op._outputs[1]._shape]


@_FusedPoolConvGrad.kernel
def _(xp, x, filter_sizes, codes, y, dy, *, strides, padding, dilations, explicit_paddings,
      data_format, ksize, pool_strides, pool_padding):
    if xp is not np or data_format not in ("NHWC", b"NHWC"):
        raise errors.UnimplementedError(None, None, "_FusedPoolConvGrad runs NHWC on the "
                                        "host only")
    conv = {"strides": strides, "padding": padding, "dilations": dilations,
            "explicit_paddings": explicit_paddings, "data_format": "NHWC"}
    return pool_conv_grad(x, filter_sizes, codes, y, dy, conv,
                          {"ksize": ksize, "strides": pool_strides, "padding": pool_padding})

