"""Image resizing ops with TF's CPU sampling: ResizeBilinear, ResizeNearestNeighbor,
ResizeBicubic, ResizeArea and the gradients TF defines for the first three.

Coordinates and weights are computed in float32 exactly as TF's kernels compute them (the
scale in/out as a float, `x * scale` for the legacy grid, `(x + 0.5) * scale - 0.5` for half
pixel centers), and the interpolation sums run in the same order, so values agree bit for bit.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value

_F = np.float32
_REAL = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64,
         dtypes.float16, dtypes.float32, dtypes.float64)


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def resize_scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return _F(in_size - 1) / _F(out_size - 1)
    return _F(in_size) / _F(out_size)


def _check(images, size, align_corners, half_pixel_centers):
    if images.ndim != 4:
        raise _bad(f"input must be 4-dimensional{list(images.shape)}")
    size = np.asarray(size)
    if size.shape != (2,):
        raise _bad(f"shape_t must have two elements{list(size.shape)}")
    if align_corners and half_pixel_centers:
        raise _bad("If half_pixel_centers is True, align_corners must be False.")
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise _bad("output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise _bad(f"input image must be of non-zero size{list(images.shape)}")
    return out_h, out_w


def _grid(n, scale, half_pixel, nn=False):
    pos = np.arange(n, dtype=_F)
    if half_pixel:
        return (pos + _F(0.5)) * scale if nn else (pos + _F(0.5)) * scale - _F(0.5)
    return pos * scale


def _linear_weights(in_size, out_size, align_corners, half_pixel):
    at = _grid(out_size, resize_scale(in_size, out_size, align_corners), half_pixel)
    floor = np.floor(at)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(at).astype(np.int64), in_size - 1)
    return lower, upper, (at - floor).astype(_F)


def bilinear(images, out_h, out_w, align_corners, half_pixel_centers):
    _, in_h, in_w, _ = images.shape
    y0, y1, yl = _linear_weights(in_h, out_h, align_corners, half_pixel_centers)
    x0, x1, xl = _linear_weights(in_w, out_w, align_corners, half_pixel_centers)
    img = images.astype(_F, copy=False)
    top, bottom = img[:, y0], img[:, y1]
    xl = xl[None, None, :, None]
    t = top[:, :, x0] + (top[:, :, x1] - top[:, :, x0]) * xl
    b = bottom[:, :, x0] + (bottom[:, :, x1] - bottom[:, :, x0]) * xl
    return t + (b - t) * yl[None, :, None, None]


def _round_half_away(v):
    t = np.trunc(v)
    return t + np.where(np.abs(v - t) >= 0.5, np.sign(v), 0)


def nearest_index(in_size, out_size, align_corners, half_pixel):
    at = _grid(out_size, resize_scale(in_size, out_size, align_corners), half_pixel, nn=True)
    idx = _round_half_away(at) if align_corners else np.floor(at)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0) if half_pixel else idx


_TABLE = 1024


def _cubic_table(a):
    x = (np.arange(_TABLE + 1) * 1.0 / _TABLE).astype(_F).astype(np.float64)
    near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(_F)
    x = (x.astype(_F) + _F(1.0)).astype(np.float64)
    far = ((((a * x - 5 * a) * x + 8 * a) * x) - 4 * a).astype(_F)
    return near, far


_TABLES = {}


def cubic_weights(in_size, out_size, align_corners, half_pixel):
    """(indices [out, 4], weights [out, 4]) of TF's bicubic kernel (Keys a=-0.5 with
    renormalised borders for half pixel centers, else the legacy a=-0.75 clamped taps)."""
    a = -0.5 if half_pixel else -0.75
    if a not in _TABLES:
        _TABLES[a] = _cubic_table(a)
    near, far = _TABLES[a]
    at = _grid(out_size, resize_scale(in_size, out_size, align_corners), half_pixel)
    loc = np.floor(at).astype(np.int64)
    delta = (at - loc.astype(_F)).astype(_F)
    offset = np.rint(delta * _F(_TABLE)).astype(np.int64)
    w = np.stack([far[offset], near[offset], near[_TABLE - offset], far[_TABLE - offset]], 1)
    raw = loc[:, None] + np.arange(-1, 3)[None, :]
    idx = np.clip(raw, 0, in_size - 1)
    if half_pixel:
        w = np.where(idx == raw, w, _F(0)).astype(_F)
        total = ((w[:, 0] + w[:, 1]) + w[:, 2]) + w[:, 3]
        ok = np.abs(total) >= _F(1000.0) * np.finfo(_F).tiny
        inv = np.where(ok, _F(1.0) / np.where(ok, total, _F(1)), _F(1)).astype(_F)
        w = np.where(ok[:, None], w * inv[:, None], w).astype(_F)
    return idx, w


def bicubic(images, out_h, out_w, align_corners, half_pixel_centers):
    _, in_h, in_w, _ = images.shape
    yi, yw = cubic_weights(in_h, out_h, align_corners, half_pixel_centers)
    xi, xw = cubic_weights(in_w, out_w, align_corners, half_pixel_centers)
    img = images.astype(_F, copy=False)
    # Rows first (per tap column), then the columns, each sum left to right as TF adds.
    cols = None
    for k in range(4):
        term = img[:, yi[:, k]] * yw[None, :, k, None, None]
        cols = term if cols is None else cols + term
    out = None
    for j in range(4):
        term = cols[:, :, xi[:, j]] * xw[None, None, :, j, None]
        out = term if out is None else out + term
    return out


def _area_spans(in_size, out_size, scale):
    """Per output cell: first input index, count, and each contributing input's weight."""
    at = np.arange(out_size, dtype=_F) * scale
    at1 = np.arange(1, out_size + 1, dtype=_F) * scale
    start = np.floor(at).astype(np.int64)
    end = np.ceil(at1).astype(np.int64)
    count = end - start
    k = int(count.max())
    idx = start[:, None] + np.arange(k)[None, :]
    v = idx.astype(_F)
    lo, hi = at[:, None], at1[:, None]
    w = np.where(v < lo, np.where(v + 1 > hi, scale, v + 1 - lo),
                 np.where(v + 1 > hi, hi - v, _F(1.0))).astype(_F)
    valid = np.arange(k)[None, :] < count[:, None]
    return np.clip(idx, 0, in_size - 1), w, valid, count


def area(images, out_h, out_w, align_corners):
    _, in_h, in_w, _ = images.shape
    hs = resize_scale(in_h, out_h, align_corners)
    ws = resize_scale(in_w, out_w, align_corners)
    yi, yw, yv, _ = _area_spans(in_h, out_h, hs)
    xi, xw, xv, xc = _area_spans(in_w, out_w, ws)
    img = images.astype(_F, copy=False)
    total = np.zeros((images.shape[0], out_h, out_w, images.shape[3]), _F)
    for i in range(yi.shape[1]):
        rows = img[:, yi[:, i]]  # [b, out_h, in_w, c]
        # Along x: first cell scaled, middle cells as they are, last cell scaled.
        row_sum = rows[:, :, xi[:, 0]] * xw[None, None, :, 0, None]
        for j in range(1, xi.shape[1]):
            last = (xc - 1 == j)[None, None, :, None]
            mid = (j < xc - 1)[None, None, :, None]
            cell = rows[:, :, xi[:, j]]
            row_sum = np.where(last, row_sum + cell * xw[None, None, :, j, None],
                               np.where(mid, row_sum + cell, row_sum))
        contrib = row_sum * yw[None, :, i, None, None]
        total = np.where(yv[None, :, i, None, None], total + contrib, total)
    return total * _F(_F(1.0) / (hs * ws))


def _resize_shape(op):
    images = op._inputs[0]._shape
    if images.ndims is not None and images.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.ndims} for '{op.name}' "
                         f"(op: '{op.type}') with input shapes: {images}.")
    size = constant_value(op._inputs[1])
    dims = images.as_list() if images.ndims == 4 else [None] * 4
    if size is not None:
        size = np.asarray(size).reshape(-1)
        if size.shape != (2,):
            raise ValueError(f"Dimension must be 2 but is {size.shape[0]} for '{op.name}'")
        return TensorShape([dims[0], int(size[0]), int(size[1]), dims[3]])
    return TensorShape([dims[0], None, None, dims[3]])


def _resize_op(type_name, out, kernel, with_half_pixel=True):
    attrs = {"align_corners": False}
    if with_half_pixel:
        attrs["half_pixel_centers"] = False
    od = defop(type_name, inputs=["images: T", "size: int32"], outputs=[f"resized_images: {out}"],
               attrs=attrs, allowed_types={"T": _REAL})
    od.shape(_resize_shape)
    od.kernel(kernel)
    return od


def _bilinear_kernel(xp, images, size, *, align_corners, half_pixel_centers):
    h, w = _check(images, size, align_corners, half_pixel_centers)
    return bilinear(images, h, w, align_corners, half_pixel_centers)


def _nearest_kernel(xp, images, size, *, align_corners, half_pixel_centers):
    h, w = _check(images, size, align_corners, half_pixel_centers)
    yi = nearest_index(images.shape[1], h, align_corners, half_pixel_centers)
    xi = nearest_index(images.shape[2], w, align_corners, half_pixel_centers)
    return images[:, yi][:, :, xi]


def _bicubic_kernel(xp, images, size, *, align_corners, half_pixel_centers):
    h, w = _check(images, size, align_corners, half_pixel_centers)
    return bicubic(images, h, w, align_corners, half_pixel_centers)


def _area_kernel(xp, images, size, *, align_corners):
    h, w = _check(images, size, align_corners, False)
    return area(images, h, w, align_corners)


ResizeBilinear = _resize_op("ResizeBilinear", "float", _bilinear_kernel)
ResizeNearestNeighbor = _resize_op("ResizeNearestNeighbor", "T", _nearest_kernel)
ResizeBicubic = _resize_op("ResizeBicubic", "float", _bicubic_kernel)
ResizeArea = _resize_op("ResizeArea", "float", _area_kernel, with_half_pixel=False)


# -- gradients -----------------------------------------------------------------------------------

ResizeBilinearGrad = defop("ResizeBilinearGrad", inputs=["grads: float", "original_image: T"],
                           outputs=["output: T"],
                           attrs={"align_corners": False, "half_pixel_centers": False},
                           allowed_types={"T": (dtypes.float16, dtypes.float32, dtypes.float64)})
ResizeBilinearGrad.shape(lambda op: op._inputs[1]._shape)


@ResizeBilinearGrad.kernel
def _(xp, grads, original_image, *, align_corners, half_pixel_centers):
    _check(original_image, grads.shape[1:3], align_corners, half_pixel_centers)
    _, h, w, _ = original_image.shape
    gh, gw = grads.shape[1:3]
    y0, y1, yl = _linear_weights(h, gh, align_corners, half_pixel_centers)
    x0, x1, xl = _linear_weights(w, gw, align_corners, half_pixel_centers)
    one = _F(1)
    ys = np.broadcast_to(np.stack([y0, y0, y1, y1], 1)[:, None, :], (gh, gw, 4))
    xs = np.broadcast_to(np.stack([x0, x1, x0, x1], 1)[None, :, :], (gh, gw, 4))
    wy = np.stack([one - yl, one - yl, yl, yl], 1)[:, None, :]
    wx = np.stack([one - xl, xl, one - xl, xl], 1)[None, :, :]
    out = _accumulate_ordered(grads, (h, w), ys, xs, wy, wx)
    return out.astype(original_image.dtype, copy=False)


def _accumulate_ordered(grads, out_shape, ys, xs, wy, wx):
    """out[b, ys, xs, c] += wx * (wy * grads[b, y, x, c]), in TF's (y, x, tap) order."""
    b, gh, gw, c = grads.shape
    g = grads.astype(_F)[:, :, :, None, :]
    vals = (wx[None, :, :, :, None] * (wy[None, :, :, :, None] * g)).astype(_F)
    out = np.zeros((b, out_shape[0] * out_shape[1], c), _F)
    flat = (ys * out_shape[1] + xs).reshape(-1)
    np.add.at(out, (slice(None), flat, slice(None)), vals.reshape(b, gh * gw * ys.shape[-1], c))
    return out.reshape(b, out_shape[0], out_shape[1], c)


@ResizeBilinear.gradient
def _(op, grad):
    return [apply_op("ResizeBilinearGrad", (grad, op._inputs[0]),
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")).outputs[0], None]


ResizeNearestNeighborGrad = defop(
    "ResizeNearestNeighborGrad", inputs=["grads: T", "size: int32"], outputs=["output: T"],
    attrs={"align_corners": False, "half_pixel_centers": False},
    allowed_types={"T": (dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.float16,
                         dtypes.float32, dtypes.float64)})
ResizeNearestNeighborGrad.shape(_resize_shape)


@ResizeNearestNeighborGrad.kernel
def _(xp, grads, size, *, align_corners, half_pixel_centers):
    h, w = _check(grads, size, align_corners, half_pixel_centers)
    b, gh, gw, c = grads.shape
    # TF maps each resized pixel back with the scale of original over resized.
    yi = nearest_index(h, gh, align_corners, half_pixel_centers)
    xi = nearest_index(w, gw, align_corners, half_pixel_centers)
    out = np.zeros((b, h * w, c), grads.dtype)
    flat = (yi[:, None] * w + xi[None, :]).reshape(-1)
    np.add.at(out, (slice(None), flat, slice(None)), grads.reshape(b, gh * gw, c))
    return out.reshape(b, h, w, c)


@ResizeNearestNeighbor.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    size = array_ops.shape(op._inputs[0])[1:3]
    return [apply_op("ResizeNearestNeighborGrad", (grad, size),
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")).outputs[0], None]


ResizeBicubicGrad = defop("ResizeBicubicGrad", inputs=["grads: float", "original_image: T"],
                          outputs=["output: T"],
                          attrs={"align_corners": False, "half_pixel_centers": False},
                          allowed_types={"T": (dtypes.float32, dtypes.float64)})
ResizeBicubicGrad.shape(lambda op: op._inputs[1]._shape)


@ResizeBicubicGrad.kernel
def _(xp, grads, original_image, *, align_corners, half_pixel_centers):
    _check(original_image, grads.shape[1:3], align_corners, half_pixel_centers)
    _, h, w, _ = original_image.shape
    gh, gw = grads.shape[1:3]
    yi, yw = cubic_weights(h, gh, align_corners, half_pixel_centers)
    xi, xw = cubic_weights(w, gw, align_corners, half_pixel_centers)
    ys = np.broadcast_to(yi[:, None, :, None], (gh, gw, 4, 4)).reshape(gh, gw, 16)
    xs = np.broadcast_to(xi[None, :, None, :], (gh, gw, 4, 4)).reshape(gh, gw, 16)
    wy = np.broadcast_to(yw[:, None, :, None], (gh, gw, 4, 4)).reshape(gh, gw, 16)
    wx = np.broadcast_to(xw[None, :, None, :], (gh, gw, 4, 4)).reshape(gh, gw, 16)
    b, _, _, c = grads.shape
    g = grads.astype(_F)[:, :, :, None, :]
    vals = ((g * wy[None, ..., None]) * wx[None, ..., None]).astype(_F)
    out = np.zeros((b, h * w, c), _F)
    np.add.at(out, (slice(None), (ys * w + xs).reshape(-1), slice(None)),
              vals.reshape(b, gh * gw * 16, c))
    return out.reshape(b, h, w, c).astype(original_image.dtype, copy=False)


@ResizeBicubic.gradient
def _(op, grad):
    return [apply_op("ResizeBicubicGrad", (grad, op._inputs[0]),
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")).outputs[0], None]
