"""Colour ops with TF's CPU arithmetic: RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue,
AdjustSaturation (each a float32 pixel formula written out in TF's operation order)."""

import functools
import threading

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.op_def import defop

_F = np.float32
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _rgb_input(images, op_type):
    if images.ndim < 1 or images.shape[-1] != 3:
        raise _bad(f"input must have 3 channels but input only has "
                   f"{images.shape[-1] if images.ndim else 0} channels.")
    return images


def _last_dim_3_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None:
        if shape.ndims == 0:
            raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{op.name}'")
        last = shape.as_list()[-1]
        if last is not None and last != 3:
            raise ValueError(f"Dimension must be 3 but is {last} for '{op.name}' "
                             f"(op: '{op.type}') with input shapes: {shape}.")
    return shape


def rgb_to_hsv_np(images):
    t = images.dtype.type
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, t(0))
        norm = (t(1) / rng) * (t(1) / t(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)))
    h = np.where(rng > 0, h, t(0))
    h = np.where(h < 0, h + t(1), h)
    return np.stack([h, s, v], axis=-1).astype(images.dtype, copy=False)


def hsv_to_rgb_np(images):
    t = images.dtype.type
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_s = -s + t(1)
    return np.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v],
                    axis=-1).astype(images.dtype, copy=False)


def _colour_op(name, fn):
    od = defop(name, inputs=["images: T"], outputs=["output: T"], attrs={"T": dtypes.float32},
               allowed_types={"T": _FLOATS})
    od.shape(_last_dim_3_shape)

    @od.kernel
    def _(xp, images):
        return fn(_rgb_input(images, name))

    return od


RGBToHSV = _colour_op("RGBToHSV", rgb_to_hsv_np)
HSVToRGB = _colour_op("HSVToRGB", hsv_to_rgb_np)


def _image_3d_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.ndims} for "
                         f"'{op.name}' (op: '{op.type}') with input shapes: {shape}.")
    return shape


AdjustContrastv2 = defop("AdjustContrastv2", inputs=["images: T", "contrast_factor: float"],
                         outputs=["output: T"], attrs={"T": dtypes.float32},
                         allowed_types={"T": (dtypes.float16, dtypes.float32)})
@AdjustContrastv2.shape
def _(op):
    factor = op._inputs[1]._shape
    if factor.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {factor.ndims}")
    return _image_3d_shape(op)


@functools.lru_cache(maxsize=64)
def _halvings(pixels):
    """TF's repeated halving of `pixels` values: (left, right) per pass, the right half
    added onto the first `right` values of the left."""
    passes, rest = [], pixels
    while True:
        right = rest // 2
        passes.append((rest - right, right))
        rest -= right
        if rest <= 1:
            return tuple(passes)


def _folded_channel_sums(flat, channels):
    """Sums [batch, pixels * channels] over pixels by TF's repeated halving: each pass adds
    the right half of the pixels onto the left half. The pixels are whole runs of
    `channels` values in the flat rows, so every pass is one contiguous add (a
    [batch, pixels, channels] layout would make NumPy loop over runs of 3)."""
    c = channels
    if flat.shape[0] == 1:
        sums = _one_image_sums(flat.reshape(-1), c)
        if sums is not None:
            return sums
    passes = _halvings(flat.shape[1] // c)
    left, right = passes[0]
    acc = flat[:, :left * c].copy()
    np.add(flat[:, left * c:(left + right) * c], flat[:, :right * c], out=acc[:, :right * c])
    for left, right in passes[1:]:
        acc[:, :right * c] += acc[:, left * c:(left + right) * c]
    return acc[:, :c]


_scratch = threading.local()  # per thread: {(values, channels): a buffer and its pass views}


def _one_image_sums(flat, c):
    """`_folded_channel_sums` of one image's values (1-D): the passes run in a buffer of
    this thread whose views were made the first time (a per-example pipeline's images all
    have one shape); the [1, channels] result is a new array. None past 8 shapes."""
    plans = getattr(_scratch, "plans", None)
    if plans is None:
        plans = _scratch.plans = {}
    plan = plans.get((flat.shape[0], c))
    if plan is None:
        if len(plans) >= 8:
            return None
        passes = _halvings(flat.shape[0] // c)
        left, right = passes[0]
        acc = np.empty(left * c, _F)
        views = [(acc[:r * c], acc[lf * c:(lf + r) * c]) for lf, r in passes[1:]]
        plan = plans[(flat.shape[0], c)] = (acc, left * c, right * c, acc[:right * c], views,
                                            acc[:c].reshape(1, c))
    acc, left, right, first, views, sums = plan
    np.add(flat[left:left + right], flat[:right], out=first)
    if left > right:
        acc[right:left] = flat[right:left]
    add = np.add
    for part, other in views:
        add(part, other, out=part)
    return sums.copy()


@AdjustContrastv2.kernel
def _(xp, images, contrast_factor):
    if images.ndim < 3:
        raise _bad(f"input must be at least 3-D, got shape{list(images.shape)}")
    if np.ndim(contrast_factor) != 0:
        raise _bad(f"contrast_factor must be scalar: {list(np.shape(contrast_factor))}")
    if images.size == 0:
        return images.copy()
    return adjust_contrast(images, _F(contrast_factor))


def adjust_contrast(images, factors):
    """AdjustContrastv2's values for images [..., h, w, c] (checked by the caller): `factors`
    a float32 scalar, or one per image as a [images, 1] array (a stack of examples'
    images, each with its own factor, as train/chunked_enqueue.py runs them)."""
    h, w, c = images.shape[-3:]
    flat = images.reshape(-1, h * w * c)
    if flat.dtype != _F:
        flat = flat.astype(_F)
    mean = _folded_channel_sums(flat, c) * (_F(1.0) / _F(h * w))
    # mean + factor * (x - mean), per value; the channel means laid out as the pixels are
    means = mean[:, None, :].repeat(h * w, axis=1).reshape(flat.shape)
    out = np.subtract(flat, means)
    np.multiply(out, factors, out=out)
    np.add(out, means, out=out)
    return out.reshape(images.shape).astype(images.dtype, copy=False)


def _adjust_checks(images, scalar, scalar_name):
    if images.ndim < 3:
        raise _bad(f"input must be at least 3-D, got shape{list(images.shape)}")
    if np.ndim(scalar) != 0:
        raise _bad(f"{scalar_name} must be scalar: {list(np.shape(scalar))}")
    if images.shape[-1] != 3:
        raise _bad(f"input must have 3 channels but instead has {images.shape[-1]} channels.")


AdjustHue = defop("AdjustHue", inputs=["images: T", "delta: float"], outputs=["output: T"],
                  attrs={"T": dtypes.float32},
                  allowed_types={"T": (dtypes.float16, dtypes.float32)})
AdjustHue.shape(_image_3d_shape)


@AdjustHue.kernel
def _(xp, images, delta):
    _adjust_checks(images, delta, "delta")
    px = images.astype(_F).reshape(-1, 3)
    r, g, b = px[:, 0], px[:, 1], px[:, 2]
    # rgb -> (hue in [0, 6), v_min, v_max) by the ordering of the three channels
    r_lt_g = r < g
    cat = np.where(r_lt_g, np.where(b < r, 1, np.where(b > g, 3, 2)),
                   np.where(b < g, 0, np.where(b > r, 4, 5)))
    vmax = np.choose(cat, [r, g, g, b, b, r])
    vmid = np.choose(cat, [g, r, b, g, r, b])
    vmin = np.choose(cat, [b, b, r, r, g, g])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (vmid - vmin) / (vmax - vmin)
    hue = np.where(cat % 2 == 0, cat.astype(_F) + ratio, cat.astype(_F) + (_F(1) - ratio))
    hue = np.where(vmax == vmin, _F(0), hue).astype(_F)
    hue = hue + _F(delta) * _F(6)
    while (hue < 0).any():
        hue = np.where(hue < 0, hue + _F(6), hue)
    while (hue >= 6).any():
        hue = np.where(hue >= 6, hue - _F(6), hue)
    cat = hue.astype(np.int64)
    frac = hue - cat.astype(_F)
    frac = np.where(cat % 2 == 0, frac, _F(1) - frac)
    vmid = vmin + frac * (vmax - vmin)
    cat = np.minimum(cat, 5)
    out = np.stack([np.choose(cat, [vmax, vmid, vmin, vmin, vmid, vmax]),
                    np.choose(cat, [vmid, vmax, vmax, vmid, vmin, vmin]),
                    np.choose(cat, [vmin, vmin, vmid, vmax, vmax, vmid])], axis=-1)
    return out.reshape(images.shape).astype(images.dtype, copy=False)


AdjustSaturation = defop("AdjustSaturation", inputs=["images: T", "scale: float"],
                         outputs=["output: T"], attrs={"T": dtypes.float32},
                         allowed_types={"T": (dtypes.float16, dtypes.float32)})
AdjustSaturation.shape(_image_3d_shape)


@AdjustSaturation.kernel
def _(xp, images, scale):
    _adjust_checks(images, scale, "scale")
    px = images.astype(_F).reshape(-1, 3)
    r, g, b = px[:, 0], px[:, 1], px[:, 2]
    v = np.maximum(r, np.maximum(g, b))
    rng = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, _F(0))
        norm = _F(1.0) / (_F(6.0) * rng)
        # 2.0 / 6.0 and 4.0 / 6.0 are doubles in TF's formula: the sum is rounded once.
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v,
                              ((norm * (b - r)).astype(np.float64) + 2.0 / 6.0).astype(_F),
                              ((norm * (r - g)).astype(np.float64) + 4.0 / 6.0).astype(_F)))
    h = np.where(rng <= 0, _F(0), h)
    h = np.where(h < 0, h + _F(1), h).astype(_F)
    s = np.minimum(_F(1.0), np.maximum(_F(0.0), s * _F(scale))).astype(_F)
    c = s * v
    m = v - c
    dh = h * _F(6)
    cat = dh.astype(np.int64)
    fmodu = dh.copy()
    while (fmodu <= 0).any():
        fmodu = np.where(fmodu <= 0, fmodu + _F(2), fmodu)
    while (fmodu >= 2).any():
        fmodu = np.where(fmodu >= 2, fmodu - _F(2), fmodu)
    x = c * (_F(1) - np.abs(fmodu - _F(1)))
    zero = np.zeros_like(c)
    cat = np.where((cat >= 0) & (cat <= 5), cat, 6)
    rr = np.choose(cat, [c, x, zero, zero, x, c, zero])
    gg = np.choose(cat, [x, c, c, x, zero, zero, zero])
    bb = np.choose(cat, [zero, zero, x, c, c, x, zero])
    out = np.stack([rr + m, gg + m, bb + m], axis=-1)
    return out.reshape(images.shape).astype(images.dtype, copy=False)
