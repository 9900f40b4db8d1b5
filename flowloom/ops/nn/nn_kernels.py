"""Convolution and pooling kernels on NumPy arrays (NHWC), shared by the nn op types.

Pure functions of arrays. A stride-1 undilated 3x3 or 5x5 convolution with 16+ channels in
and out, and its filter gradient, use Winograd minimal filtering (winograd.py: F(4x4, 5x5),
F(2x2, 3x3)). Other convolutions are one BLAS matmul over a patches view of the padded input
(`as_strided`, copied a cache-sized block of images at a time into a C-contiguous
[rows, kh*kw*c] matrix). The input gradient is a convolution of the gradient with the
flipped filter (so Winograd applies to it too), or, with fewer input than output channels,
a matmul followed by a col2im that adds one strided slice per kernel offset (never
`np.add.at`). Pooling loops over the window offsets on strided slices of cache-sized image
blocks, which beats reducing a 6-D view for small windows. Parallel work runs on the
kernels' worker threads (kernel_threads.py).
"""

import os

import numpy as np
from numpy.lib.stride_tricks import as_strided

from flowloom.framework import errors
from flowloom.ops.nn import kernel_threads, winograd
from flowloom.ops.layout import c_order

# Parallel work (patch copies, pooling slices, convolution image blocks) runs on the kernels'
# worker threads (kernel_threads.py).
_over_batch = kernel_threads.over_batch
_in_groups = kernel_threads.in_groups


def out_size(n, k, s, d, padding, pads=(0, 0)):
    """Output length of one spatial dimension (None when `n` is unknown)."""
    if n is None or k is None:
        return None
    eff = (k - 1) * d + 1
    if padding == "SAME":
        return -(-n // s)
    n = n + pads[0] + pads[1]
    if n < eff:
        # TF's shape inference (GetWindowedOutputSizeFromDims) refuses a window larger
        # than its padded input.
        raise ValueError(f"Negative dimension size caused by subtracting {eff} from {n}")
    return (n - eff) // s + 1


def same_pads(n, k, s, d, padding, explicit=(0, 0)):
    """(before, after) padding of one spatial dimension, TF's rule for SAME."""
    if padding == "EXPLICIT":
        return tuple(explicit)
    if padding != "SAME":
        return 0, 0
    eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def spatial(attr, data_format):
    """The (h, w) entries of a 4-element strides/ksize/dilations attr."""
    return (attr[2], attr[3]) if data_format == "NCHW" else (attr[1], attr[2])


def explicit_pairs(explicit_paddings, data_format):
    if not explicit_paddings:
        return (0, 0), (0, 0)
    p = list(explicit_paddings)
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(4)]
    return (pairs[2], pairs[3]) if data_format == "NCHW" else (pairs[1], pairs[2])


def to_nhwc(x, data_format):
    return np.transpose(x, (0, 2, 3, 1)) if data_format == "NCHW" else x


def from_nhwc(y, data_format):
    return c_order(np, np.transpose(y, (0, 3, 1, 2))) if data_format == "NCHW" else y


def _geometry(h, w, kh, kw, strides, dilations, padding, explicit):
    sh, sw = strides
    dh, dw = dilations
    ph = same_pads(h, kh, sh, dh, padding, explicit[0])
    pw = same_pads(w, kw, sw, dw, padding, explicit[1])
    oh = (h + ph[0] + ph[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (w + pw[0] + pw[1] - (kw - 1) * dw - 1) // sw + 1
    return ph, pw, max(oh, 0), max(ow, 0)


def _pad(x, ph, pw, value=0):
    if not (any(ph) or any(pw)):
        return x
    out = np.full((x.shape[0], x.shape[1] + ph[0] + ph[1], x.shape[2] + pw[0] + pw[1],
                   x.shape[3]), value, dtype=x.dtype)
    out[:, ph[0]:ph[0] + x.shape[1], pw[0]:pw[0] + x.shape[2]] = x
    return out


def _patches(xpad, kh, kw, oh, ow, strides, dilations):
    """A read-only [n, oh, ow, kh, kw, c] view of the windows of `xpad`."""
    s0, s1, s2, s3 = xpad.strides
    n, _, _, c = xpad.shape
    return as_strided(xpad, (n, oh, ow, kh, kw, c),
                      (s0, s1 * strides[0], s2 * strides[1], s1 * dilations[0],
                       s2 * dilations[1], s3), writeable=False)


def _window(a, i, j, oh, ow, strides, dilations):
    """The slice of `a` that kernel offset (i, j) sees, for all outputs."""
    r, q = i * dilations[0], j * dilations[1]
    return a[:, r:r + (oh - 1) * strides[0] + 1:strides[0], q:q + (ow - 1) * strides[1] + 1:
             strides[1]]


def _check_depth(c, ci):
    if c != ci:
        raise errors.InvalidArgumentError(
            None, None, f"input depth must be evenly divisible by filter depth: {c} vs {ci}"
            if c % ci else "Grouped convolution is not supported on CPU "
            f"(input depth {c}, filter depth {ci})")


# Patch matrices are built a few images at a time: a block of ~1 MB stays in L2 between the
# copy that makes it and the matmul that reads it (measured on the bench shapes: 10-25% faster
# than 8 MB blocks, about 2x faster than one big copy).
_BLOCK_BYTES = 1 << 20


def _image_blocks(n, per_image_bytes, block_bytes):
    step = max(1, block_bytes // max(per_image_bytes, 1))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def _patch_matrix(xpad, kh, kw, oh, ow, strides, dilations):
    """The [n*oh*ow, kh*kw*c] patch matrix of (a block of) padded images."""
    view = _patches(xpad, kh, kw, oh, ow, strides, dilations)
    cols = np.empty(view.shape, xpad.dtype)
    np.copyto(cols, view)
    return cols.reshape(-1, kh * kw * xpad.shape[3])


# Output tile size m of Winograd F(m x m, r x r) per kernel size r. F(4x4, 5x5) does 6.25x
# fewer multiplies than im2col at ~1e-5 relative error in float32; for 3x3, F(2x2, 3x3) keeps
# im2col's accuracy (F(4x4, 3x3) would be faster but 10x less exact).
# FLOWLOOM_WINOGRAD=0 turns it off (im2col everywhere), to compare.
_WINOGRAD_TILE = {3: 2, 5: 4} if os.environ.get("FLOWLOOM_WINOGRAD", "1") != "0" else {}
# Below this many input or output channels the alpha^2 small matmuls lose to one im2col matmul.
_WINOGRAD_MIN_CHANNELS = 16


def _winograd_tile(x, kh, kw, c, co, strides, dilations, oh, ow):
    """The Winograd output tile for this convolution, or None to use im2col."""
    if (kh != kw or strides != (1, 1) or dilations != (1, 1) or x.dtype.kind != "f"
            or min(c, co) < _WINOGRAD_MIN_CHANNELS):
        return None
    m = _WINOGRAD_TILE.get(kh)
    return m if m is not None and min(oh, ow) >= m else None


def conv2d(x, w, strides, dilations, padding, explicit=((0, 0), (0, 0))):
    """NHWC forward convolution: [n,h,w,c] * [kh,kw,c,co] -> [n,oh,ow,co]."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = w.shape
    _check_depth(c, ci)
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    if n * oh * ow == 0:
        return np.zeros((n, oh, ow, co), x.dtype)
    m = _winograd_tile(x, kh, kw, c, co, strides, dilations, oh, ow)
    if m is not None and x.dtype == w.dtype:
        return winograd.conv2d(x, w, ph, pw, oh, ow, m, _in_groups)
    w2 = w.reshape(kh * kw * c, co)
    if kh == kw == 1 and strides == (1, 1) and not (any(ph) or any(pw)):
        return (x.reshape(-1, c) @ w2).reshape(n, oh, ow, co)
    out = np.empty((n, oh, ow, co), np.result_type(x, w))
    xpad = _pad(x, ph, pw)
    per_image = oh * ow * kh * kw * c * x.itemsize

    def run(blocks):
        for part in blocks:
            np.matmul(_patch_matrix(xpad[part], kh, kw, oh, ow, strides, dilations), w2,
                      out=out[part].reshape(-1, co))
    _in_groups(run, _image_blocks(n, per_image, _BLOCK_BYTES), n * per_image, big_matmuls=True)
    return out


def conv2d_backprop_filter(x, filter_shape, dy, strides, dilations, padding,
                           explicit=((0, 0), (0, 0))):
    """Gradient of `conv2d` with respect to its filter."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = filter_shape
    _check_depth(c, ci)
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    _check_out(dy, (n, oh, ow, co))
    if dy.size == 0 or x.size == 0:
        return np.zeros(tuple(filter_shape), np.result_type(x, dy))  # nothing flows back
    m = _winograd_tile(x, kh, kw, c, co, strides, dilations, oh, ow)
    if m is not None and x.dtype == dy.dtype:
        return winograd.conv2d_backprop_filter(x, filter_shape, dy, ph, pw, m, _in_groups)
    xpad = _pad(x, ph, pw)
    per_image = oh * ow * kh * kw * c * x.itemsize

    def run(blocks):
        dw = np.zeros((kh * kw * c, co), np.result_type(x, dy))
        for part in blocks:
            dw += _patch_matrix(xpad[part], kh, kw, oh, ow, strides, dilations).T @ \
                dy[part].reshape(-1, co)
        return dw
    return sum(_in_groups(run, _image_blocks(n, per_image, _BLOCK_BYTES), n * per_image,
                          big_matmuls=True)).reshape(kh, kw, c, co)


def conv2d_backprop_input(input_shape, w, dy, strides, dilations, padding,
                          explicit=((0, 0), (0, 0))):
    """Gradient of `conv2d` with respect to its input (also `conv2d_transpose`).

    With fewer input than output channels (a first layer on RGB images): one matmul to
    [rows, kh*kw*c] columns, then col2im, adding one strided slice per kernel offset. Otherwise
    a stride-1 VALID convolution of the zero-dilated, padded gradient with the flipped,
    transposed filter: one patches matmul, like the forward pass.
    """
    n, h, wd, c = input_shape
    kh, kw, ci, co = w.shape
    _check_depth(c, ci)
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    _check_out(dy, (n, oh, ow, co))
    if c < co:
        return _backprop_input_col2im(input_shape, w, dy, strides, dilations, ph, pw, oh, ow)
    sh, sw = strides
    dh, dw = dilations
    flipped = c_order(np, w[::-1, ::-1].transpose(0, 1, 3, 2))
    # Pad so that a VALID correlation gives exactly h x w outputs (crop when negative).
    eff_h, eff_w = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    dyd_h, dyd_w = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    top, left = eff_h - 1 - ph[0], eff_w - 1 - pw[0]
    bottom, right = h + eff_h - 1 - top - dyd_h, wd + eff_w - 1 - left - dyd_w
    if sh == sw == 1 and min(top, left, bottom, right) >= 0:
        # The padding is the convolution's own (no copy; Winograd pads tile by tile).
        return conv2d(dy, flipped, (1, 1), (dh, dw), "EXPLICIT",
                      ((top, bottom), (left, right)))
    if sh == sw == 1:
        dyd = dy
    else:
        dyd = np.zeros((n, dyd_h, dyd_w, co), dy.dtype)
        dyd[:, ::sh, ::sw] = dy
    # Negative pads crop the (dilated) gradient first, positive ones pad it.
    src = dyd[:, max(-top, 0):dyd.shape[1] - max(-bottom, 0),
              max(-left, 0):dyd.shape[2] - max(-right, 0)]
    padded = np.zeros((n, src.shape[1] + max(top, 0) + max(bottom, 0),
                       src.shape[2] + max(left, 0) + max(right, 0), co), dy.dtype)
    padded[:, max(top, 0):max(top, 0) + src.shape[1],
           max(left, 0):max(left, 0) + src.shape[2]] = src
    return conv2d(padded, flipped, (1, 1), (dh, dw), "VALID")


def _backprop_input_col2im(input_shape, w, dy, strides, dilations, ph, pw, oh, ow):
    """Columns by one matmul, then col2im in channels-first layout: each kernel offset adds
    [c, images, oh, ow] planes whose rows are contiguous (an NHWC col2im with 3 channels
    would add runs of 3 floats)."""
    n, h, wd, c = input_shape
    kh, kw, _, co = w.shape
    w_rows = w.transpose(2, 0, 1, 3).reshape(c * kh * kw, co)
    out = np.empty((n, h, wd, c), np.result_type(w, dy))
    per_image = oh * ow * kh * kw * c * out.itemsize
    step = max(1, _BLOCK_BYTES // max(per_image, 1))
    sh, sw = strides
    for start in range(0, n, step):
        part = slice(start, start + step)
        block = dy[part]
        b = block.shape[0]
        dcols = (w_rows @ block.reshape(-1, co).T).reshape(c, kh, kw, b, oh, ow)
        dxt = np.zeros((c, b, h + ph[0] + ph[1], wd + pw[0] + pw[1]), out.dtype)

        def add_offsets(s, dxt=dxt, dcols=dcols, start=start):
            for i in range(kh):
                for j in range(kw):
                    r, q = i * dilations[0], j * dilations[1]
                    dxt[:, s, r:r + (oh - 1) * sh + 1:sh, q:q + (ow - 1) * sw + 1:sw] += \
                        dcols[:, i, j, s]
            out[start + s.start:start + s.stop] = dxt[:, s, ph[0]:ph[0] + h,
                                                      pw[0]:pw[0] + wd].transpose(1, 2, 3, 0)
        _over_batch(add_offsets, b, dcols.nbytes)
    return out


def _check_out(dy, want):
    if tuple(dy.shape) != tuple(want):
        raise errors.InvalidArgumentError(
            None, None, "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
            f"actual = {list(dy.shape)}, computed = {list(want)}")


def depthwise_conv2d(x, w, strides, dilations, padding, explicit=((0, 0), (0, 0))):
    """[n,h,w,c] * [kh,kw,c,m] -> [n,oh,ow,c*m]: each channel with its own m filters."""
    n, h, wd, c = x.shape
    kh, kw, ci, m = w.shape
    if c != ci:
        raise errors.InvalidArgumentError(
            None, None, f"input and filter must have the same depth: {c} vs {ci}")
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    xpad = _pad(x, ph, pw)
    out = np.zeros((n, oh, ow, c, m), x.dtype)
    for i in range(kh):
        for j in range(kw):
            out += _window(xpad, i, j, oh, ow, strides, dilations)[..., None] * w[i, j]
    return out.reshape(n, oh, ow, c * m)


def depthwise_backprop_input(input_shape, w, dy, strides, dilations, padding,
                             explicit=((0, 0), (0, 0))):
    n, h, wd, c = input_shape
    kh, kw, _, m = w.shape
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    dy5 = dy.reshape(n, oh, ow, c, m)
    dxpad = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dy.dtype)
    for i in range(kh):
        for j in range(kw):
            _window(dxpad, i, j, oh, ow, strides, dilations)[...] += \
                np.einsum("nhwcm,cm->nhwc", dy5, w[i, j])
    return dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd]


def depthwise_backprop_filter(x, filter_shape, dy, strides, dilations, padding,
                              explicit=((0, 0), (0, 0))):
    n, h, wd, c = x.shape
    kh, kw, _, m = filter_shape
    ph, pw, oh, ow = _geometry(h, wd, kh, kw, strides, dilations, padding, explicit)
    dy5 = dy.reshape(n, oh, ow, c, m)
    xpad = _pad(x, ph, pw)
    dw = np.empty((kh, kw, c, m), x.dtype)
    for i in range(kh):
        for j in range(kw):
            dw[i, j] = np.einsum("nhwc,nhwcm->cm",
                                 _window(xpad, i, j, oh, ow, strides, dilations), dy5)
    return dw


def _pool_geometry(shape, ksize, strides, padding):
    n, h, w, c = shape
    ph, pw, oh, ow = _geometry(h, w, ksize[0], ksize[1], strides, (1, 1), padding,
                               ((0, 0), (0, 0)))
    return ph, pw, oh, ow


# Pooling runs a few images at a time so that the input, its gradient and the masks of all
# window offsets stay in L2 across the offset loop (each offset re-reads the whole block).
_POOL_BLOCK_BYTES = 1 << 20


def _over_image_blocks(fn, x):
    """Calls fn(batch_slice) over cache-sized blocks of images, on the workers when large."""
    n = x.shape[0]
    per_image = max(x[:1].nbytes, 1)
    step = max(1, _POOL_BLOCK_BYTES // per_image)
    blocks = [slice(a, min(a + step, n)) for a in range(0, n, step)]
    kernel_threads.in_groups(lambda group: [fn(b) for b in group], blocks, x.nbytes)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def depth_max_pool(x, window, axis):
    """Max over consecutive groups of `window` channels along `axis` (pooling across depth)."""
    x = np.moveaxis(x, axis, -1)
    y = x.reshape(x.shape[:-1] + (x.shape[-1] // window, window)).max(axis=-1)
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))


def max_pool(x, ksize, strides, padding):
    """NHWC max pooling; SAME padding never wins (it is -inf)."""
    ph, pw, oh, ow = _pool_geometry(x.shape, ksize, strides, padding)
    out = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)

    def run(s):
        xs, o = _pad(x[s], ph, pw, _lowest(x.dtype)), out[s]
        for i in range(ksize[0]):
            for j in range(ksize[1]):
                win = _window(xs, i, j, oh, ow, strides, (1, 1))
                if i == j == 0:
                    o[...] = win
                else:
                    np.maximum(o, win, out=o)
    _over_image_blocks(run, x)
    return out


def max_pool_grad(x, y, dy, ksize, strides, padding, relu=False, out=None):
    """Routes each output's gradient to the first maximum of its window (TF's CPU order).

    With `relu`, each image's gradient is then multiplied by `x > 0` (ReluGrad, when `x` is a
    ReLU's output): the products ReluGrad computes, without a second input-sized array.
    `out` receives the result; it may be `x` itself (each block of images is read whole
    before its gradient is written there, and pooling never crosses images).
    """
    ph, pw, oh, ow = _pool_geometry(x.shape, ksize, strides, padding)
    h, w = x.shape[1], x.shape[2]
    dx = np.empty(x.shape, dy.dtype) if out is None else out

    def finish(s, dxs):
        crop = dxs[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w]
        if relu:
            np.multiply(crop, x[s] > 0, out=dx[s])
        else:
            dx[s] = crop

    sh, sw = strides
    # Offsets (i < sh, j < sw) land on disjoint input positions, and each is the first offset
    # in window order to reach its positions: those write instead of add, so dx needs zeros
    # only where none of them reaches.
    direct = ksize[0] >= sh and ksize[1] >= sw

    def run(s):
        xs, ys = _pad(x[s], ph, pw, _lowest(x.dtype)), y[s]
        if direct:
            dxs = np.empty(xs.shape, dy.dtype)
            dxs[:, sh * oh:] = 0
            dxs[:, :, sw * ow:] = 0
        else:
            dxs = np.zeros(xs.shape, dy.dtype)
        # The gradient no earlier offset has claimed: a hit moves it to dx and zeroes it, so
        # a tie goes to the first maximum in window order.
        unclaimed = np.array(dy[s])
        hit = np.empty(ys.shape, bool)
        part = np.empty(ys.shape, dy.dtype)
        if not (np.isfinite(ys).all() and np.isfinite(unclaimed).all()):
            dxs[...] = 0
            _max_pool_grad_nonfinite(xs, ys, unclaimed, dxs, ksize, strides, oh, ow)
            finish(s, dxs)
            return
        for i in range(ksize[0]):
            for j in range(ksize[1]):
                np.equal(_window(xs, i, j, oh, ow, strides, (1, 1)), ys, out=hit)
                win = _window(dxs, i, j, oh, ow, strides, (1, 1))
                if direct and i < sh and j < sw:
                    np.multiply(unclaimed, hit, out=win)
                    np.subtract(unclaimed, win, out=unclaimed)
                    continue
                np.multiply(unclaimed, hit, out=part)  # ufunc where= is ~10x slower
                np.add(win, part, out=win)
                np.subtract(unclaimed, part, out=unclaimed)
        finish(s, dxs)
    _over_image_blocks(run, x)
    return dx


def _max_pool_grad_nonfinite(xs, ys, dys, dxs, ksize, strides, oh, ow):
    """max_pool_grad where values or gradients are not finite: selects instead of
    multiplying (0 * nan is nan), and a NaN maximum goes to its window's first NaN (TF's CPU
    kernel keeps the first position unless a later one compares greater, which NaN never
    does)."""
    claimed = np.zeros(ys.shape, bool)
    nan_out = np.isnan(ys) if ys.dtype.kind == "f" else np.zeros(ys.shape, bool)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            xw = _window(xs, i, j, oh, ow, strides, (1, 1))
            take = ((xw == ys) | (nan_out & np.isnan(xw))) & ~claimed
            win = _window(dxs, i, j, oh, ow, strides, (1, 1))
            win += np.where(take, dys, 0)
            claimed |= take


def _avg_counts(shape, ksize, strides, padding, dtype):
    """How many real (unpadded) inputs each output window covers."""
    n, h, w, c = shape
    ph, pw, oh, ow = _pool_geometry(shape, ksize, strides, padding)
    ones = _pad(np.ones((1, h, w, 1), dtype), ph, pw)
    count = np.zeros((1, oh, ow, 1), dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            count += _window(ones, i, j, oh, ow, strides, (1, 1))
    return count


def avg_pool(x, ksize, strides, padding):
    ph, pw, oh, ow = _pool_geometry(x.shape, ksize, strides, padding)
    xpad = _pad(x, ph, pw)
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            out += _window(xpad, i, j, oh, ow, strides, (1, 1))
    out /= _avg_counts(x.shape, ksize, strides, padding, x.dtype)
    return out


def avg_pool_grad(input_shape, dy, ksize, strides, padding):
    n, h, w, c = input_shape
    ph, pw, oh, ow = _pool_geometry(input_shape, ksize, strides, padding)
    g = dy / _avg_counts(input_shape, ksize, strides, padding, dy.dtype)
    dxpad = np.zeros((n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), dy.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            _window(dxpad, i, j, oh, ow, strides, (1, 1))[...] += g
    return dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w]
