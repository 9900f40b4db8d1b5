"""Box ops: NonMaxSuppression V2-V5, CropAndResize and its gradients, DrawBoundingBoxes(V2),
with TF's CPU arithmetic (float32 coordinates, the same selection order)."""

import heapq

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value

_F = np.float32
_REAL = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64,
         dtypes.float16, dtypes.float32, dtypes.float64)


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


# -- non-max suppression ---------------------------------------------------------------------

def _iou_matrix(boxes):
    b = boxes.astype(_F)
    ymin, xmin = np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3])
    ymax, xmax = np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    ih = np.maximum(np.minimum(ymax[:, None], ymax[None]) - np.maximum(ymin[:, None], ymin[None]),
                    _F(0))
    iw = np.maximum(np.minimum(xmax[:, None], xmax[None]) - np.maximum(xmin[:, None], xmin[None]),
                    _F(0))
    inter = ih * iw
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    bad = (area[:, None] <= 0) | (area[None] <= 0)
    return np.where(bad, _F(0), iou).astype(_F)


def nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_sigma=0.0,
        overlaps=None):
    """TF's greedy (soft) NMS: (selected indices, their scores). With `overlaps` (a square
    matrix) the given similarities replace the boxes' IoU."""
    if overlaps is not None:
        if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
            raise _bad(f"overlaps must be square, got shape {list(overlaps.shape)}")
        boxes = np.zeros((overlaps.shape[0], 4), _F)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise _bad(f"boxes must be 2-D with 4 columns, got shape {list(boxes.shape)}")
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise _bad(f"scores has incompatible shape {list(scores.shape)}")
    if np.ndim(max_output_size) != 0:
        raise _bad(f"max_output_size must be 0-D, got shape {list(np.shape(max_output_size))}")
    thr = float(iou_threshold)
    if overlaps is None and not 0 <= thr <= 1:
        raise _bad("iou_threshold must be in [0, 1]")
    st = scores.dtype.type(score_threshold)
    if overlaps is not None:
        iou = np.asarray(overlaps, _F)
    else:
        iou = _iou_matrix(boxes) if len(boxes) else np.zeros((0, 0), _F)
    soft = soft_sigma > 0
    scale = scores.dtype.type(-0.5) / scores.dtype.type(soft_sigma) if soft else 0
    # heap of (-score, index, suppress_begin): highest score first, ties by lower index
    heap = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > st]
    heapq.heapify(heap)
    selected, kept = [], []
    limit = int(max_output_size)
    while len(selected) < limit and heap:
        neg, i, begin = heapq.heappop(heap)
        original = score = -neg
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = iou[i, selected[j]]
            weight = scores.dtype.type(np.exp(scale * sim * sim)) if soft else 1
            score = score * weight if soft or sim <= thr else scores.dtype.type(0)
            if not soft and sim > thr:
                hard = True
                break
            if score <= st:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            kept.append(score)
        elif score > st:
            heapq.heappush(heap, (-score, i, len(selected)))
    return np.array(selected, np.int32), np.array(kept, scores.dtype)


def _with_rank(shape, rank):
    if shape.ndims not in (None, rank):
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")


def _nms_shape(op):
    """TF's NMS shape checks: boxes [n, 4], scores [n], the other inputs scalars."""
    boxes, scores = op._inputs[0]._shape, op._inputs[1]._shape
    _with_rank(boxes, 2)
    _with_rank(scores, 1)
    for tensor in op._inputs[2:]:
        _with_rank(tensor._shape, 0)
    if boxes.ndims == 2 and boxes.dims[1].value not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes.dims[1].value}")
    if boxes.ndims == 2 and scores.ndims == 1 and None not in (
            boxes.dims[0].value, scores.dims[0].value) and \
            boxes.dims[0].value != scores.dims[0].value:
        raise ValueError(f"Dimensions must be equal, but are {boxes.dims[0].value} and "
                         f"{scores.dims[0].value}")
    return TensorShape([None])


NonMaxSuppressionV2 = defop("NonMaxSuppressionV2",
                            inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                    "iou_threshold: T_threshold"],
                            outputs=["selected_indices: int32"],
                            attrs={"T": dtypes.float32, "T_threshold": dtypes.float32})
NonMaxSuppressionV2.shape(_nms_shape)


@NonMaxSuppressionV2.kernel
def _(xp, boxes, scores, max_output_size, iou_threshold):
    return nms(boxes, scores, max_output_size, iou_threshold, -np.inf)[0]


NonMaxSuppressionV3 = defop("NonMaxSuppressionV3",
                            inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                    "iou_threshold: T_threshold",
                                    "score_threshold: T_threshold"],
                            outputs=["selected_indices: int32"],
                            attrs={"T": dtypes.float32, "T_threshold": dtypes.float32})
NonMaxSuppressionV3.shape(_nms_shape)


@NonMaxSuppressionV3.kernel
def _(xp, boxes, scores, max_output_size, iou_threshold, score_threshold):
    return nms(boxes, scores, max_output_size, iou_threshold, score_threshold)[0]


NonMaxSuppressionV4 = defop("NonMaxSuppressionV4",
                            inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                    "iou_threshold: T_threshold",
                                    "score_threshold: T_threshold"],
                            outputs=["selected_indices: int32", "valid_outputs: int32"],
                            attrs={"T": dtypes.float32, "T_threshold": dtypes.float32,
                                   "pad_to_max_output_size": False})


@NonMaxSuppressionV4.shape
def _(op):
    _nms_shape(op)
    n = constant_value(op._inputs[2])
    pad = op.get_attr("pad_to_max_output_size")
    return [TensorShape([int(n) if pad and n is not None else None]), TensorShape([])]


@NonMaxSuppressionV4.kernel
def _(xp, boxes, scores, max_output_size, iou_threshold, score_threshold, *,
      pad_to_max_output_size):
    idx = nms(boxes, scores, max_output_size, iou_threshold, score_threshold)[0]
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        idx = np.concatenate([idx, np.zeros(int(max_output_size) - len(idx), np.int32)])
    return idx, valid


NonMaxSuppressionV5 = defop("NonMaxSuppressionV5",
                            inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                    "iou_threshold: T", "score_threshold: T",
                                    "soft_nms_sigma: T"],
                            outputs=["selected_indices: int32", "selected_scores: T",
                                     "valid_outputs: int32"],
                            attrs={"T": dtypes.float32, "pad_to_max_output_size": False})


@NonMaxSuppressionV5.shape
def _(op):
    _nms_shape(op)
    n = constant_value(op._inputs[2])
    pad = op.get_attr("pad_to_max_output_size")
    dim = int(n) if pad and n is not None else None
    return [TensorShape([dim]), TensorShape([dim]), TensorShape([])]


@NonMaxSuppressionV5.kernel
def _(xp, boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, *,
      pad_to_max_output_size):
    if float(soft_nms_sigma) < 0:
        raise _bad("soft_nms_sigma must be non-negative")
    idx, kept = nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                    float(soft_nms_sigma))
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        pad = int(max_output_size) - len(idx)
        idx = np.concatenate([idx, np.zeros(pad, np.int32)])
        kept = np.concatenate([kept, np.zeros(pad, kept.dtype)])
    return idx, kept, valid


NonMaxSuppressionWithOverlaps = defop(
    "NonMaxSuppressionWithOverlaps",
    inputs=["overlaps: float", "scores: float", "max_output_size: int32",
            "overlap_threshold: float", "score_threshold: float"],
    outputs=["selected_indices: int32"])


@NonMaxSuppressionWithOverlaps.shape
def _(op):
    overlaps, scores = op._inputs[0]._shape, op._inputs[1]._shape
    _with_rank(overlaps, 2)
    _with_rank(scores, 1)
    for tensor in op._inputs[2:]:
        _with_rank(tensor._shape, 0)
    if overlaps.ndims == 2 and None not in (overlaps.dims[0].value, overlaps.dims[1].value) \
            and overlaps.dims[0].value != overlaps.dims[1].value:
        raise ValueError(f"Dimensions must be equal, but are {overlaps.dims[0].value} and "
                         f"{overlaps.dims[1].value}")
    return TensorShape([None])


@NonMaxSuppressionWithOverlaps.kernel
def _(xp, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    return nms(None, scores, max_output_size, overlap_threshold, score_threshold,
               overlaps=overlaps)[0]


NotDifferentiable("NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4",
                  "NonMaxSuppressionV5", "NonMaxSuppressionWithOverlaps")


def non_max_suppression_with_overlaps(overlaps, scores, max_output_size,
                                      overlap_threshold=0.5, score_threshold=float("-inf"),
                                      name=None):
    """Greedily selects boxes by descending score, dropping those whose given overlap with
    a selected box exceeds `overlap_threshold` (op NonMaxSuppressionWithOverlaps).

    Args:
      overlaps: [num_boxes, num_boxes] float32, the pairwise overlaps.
      scores: [num_boxes] float32.
      max_output_size: at most this many indices.
      overlap_threshold: overlap above which a box is dropped.
      score_threshold: boxes scoring at or below it are never selected.

    Returns:
      int32 [M] indices, M <= max_output_size.
    """
    with name_scope(name, "non_max_suppression_overlaps"):
        threshold = convert_to_tensor(overlap_threshold, name="overlap_threshold")
        st = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionWithOverlaps",
                        (overlaps, scores, max_output_size, threshold, st)).outputs[0]


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Greedily selects boxes by descending score, dropping those whose IoU with a selected
    box exceeds `iou_threshold` (op NonMaxSuppressionV3).

    Args:
      boxes: [num_boxes, 4] float (y1, x1, y2, x2; either corner order).
      scores: [num_boxes] float.
      max_output_size: at most this many indices.
      iou_threshold: overlap above which a box is dropped.
      score_threshold: boxes scoring at or below it are never selected.

    Returns:
      int32 [M] indices into `boxes`, M <= max_output_size.
    """
    with name_scope(name, "non_max_suppression"):
        iou = convert_to_tensor(iou_threshold, name="iou_threshold")
        st = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionV3", (boxes, scores, max_output_size, iou, st)
                        ).outputs[0]


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None):
    """non_max_suppression that can pad to max_output_size: (indices, valid count)."""
    with name_scope(name, "non_max_suppression_padded"):
        iou = convert_to_tensor(iou_threshold, name="iou_threshold")
        st = convert_to_tensor(score_threshold, name="score_threshold")
        return tuple(apply_op("NonMaxSuppressionV4", (boxes, scores, max_output_size, iou, st),
                              pad_to_max_output_size=pad_to_max_output_size).outputs)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """Soft-NMS (Gaussian, sigma `soft_nms_sigma`): (indices, their scores)."""
    with name_scope(name, "non_max_suppression_with_scores"):
        scores = convert_to_tensor(scores, name="scores")
        args = [convert_to_tensor(v, dtype=scores.dtype, name=n) for v, n in (
            (iou_threshold, "iou_threshold"), (score_threshold, "score_threshold"),
            (soft_nms_sigma, "soft_nms_sigma"))]
        out = apply_op("NonMaxSuppressionV5", [boxes, scores, max_output_size] + args).outputs
        return out[0], out[1]


# -- crop and resize -------------------------------------------------------------------------

def _crop_checks(image_shape, boxes, box_ind, crop_size):
    if len(image_shape) != 4:
        raise _bad(f"input image must be 4-D{list(image_shape)}")
    batch, h, w, _ = image_shape
    if h <= 0 or w <= 0:
        raise _bad("image dimensions must be positive")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise _bad(f"boxes must be 2-D[{boxes.shape[0] if boxes.ndim else 0},4]")
    if box_ind.ndim != 1 or box_ind.shape[0] != boxes.shape[0]:
        raise _bad(f"box_index has incompatible shape{list(box_ind.shape)}")
    size = np.asarray(crop_size).reshape(-1)
    if size.shape != (2,):
        raise _bad(f"crop_size must be a length-2 vector, got {list(size.shape)}")
    ch, cw = int(size[0]), int(size[1])
    if ch <= 0 or cw <= 0:
        raise _bad("crop dimensions must be positive")
    if box_ind.size and (box_ind.min() < 0 or box_ind.max() >= batch):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")
    return ch, cw


def _crop_coords(lo, hi, size, n, ratio_form=False):
    """Sample positions along one axis: [boxes, n] float32 and an in-image mask (the boxes
    gradient scales by (hi - lo) * ((size - 1) / (n - 1)), the forward by
    (hi - lo) * (size - 1) / (n - 1): the same number up to rounding)."""
    lo, hi = lo.astype(_F), hi.astype(_F)
    span = _F(size - 1)
    if n > 1:
        scale = ((hi - lo) * (span / _F(n - 1)) if ratio_form else
                 (hi - lo) * span / _F(n - 1))
        at = lo[:, None] * span + np.arange(n, dtype=_F)[None, :] * scale[:, None]
    else:
        at = (0.5 * (lo + hi).astype(np.float64) * (size - 1)).astype(_F)[:, None]
    return at.astype(_F), (at >= 0) & (at <= span)


def crop_and_resize_np(image, boxes, box_ind, ch, cw, method, extrapolation_value):
    _, h, w, d = image.shape
    ys, y_ok = _crop_coords(boxes[:, 0], boxes[:, 2], h, ch)
    xs, x_ok = _crop_coords(boxes[:, 1], boxes[:, 3], w, cw)
    img = image.astype(_F)[box_ind]  # [boxes, h, w, d]
    nb = len(boxes)
    bi = np.arange(nb)[:, None, None]
    ok = (y_ok[:, :, None] & x_ok[:, None, :])[..., None]
    if method == "bilinear":
        yc, xc = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        top, bottom = np.floor(yc).astype(np.int64), np.ceil(yc).astype(np.int64)
        left, right = np.floor(xc).astype(np.int64), np.ceil(xc).astype(np.int64)
        yl = (ys - top.astype(_F))[:, :, None, None]
        xl = (xs - left.astype(_F))[:, None, :, None]
        t, b = top[:, :, None], bottom[:, :, None]
        lft, rgt = left[:, None, :], right[:, None, :]
        tl, tr = img[bi, t, lft], img[bi, t, rgt]
        bl, br = img[bi, b, lft], img[bi, b, rgt]
        upper = tl + (tr - tl) * xl
        lower = bl + (br - bl) * xl
        out = upper + (lower - upper) * yl
    else:
        yi = np.clip(_round(ys), 0, h - 1)[:, :, None]
        xi = np.clip(_round(xs), 0, w - 1)[:, None, :]
        out = img[bi, yi, xi]
    return np.where(ok, out, _F(extrapolation_value)).astype(_F)


def _round(v):
    t = np.trunc(v)
    return (t + np.where(np.abs(v - t) >= 0.5, np.sign(v), 0)).astype(np.int64)


CropAndResize = defop("CropAndResize", inputs=["image: T", "boxes: float", "box_ind: int32",
                                               "crop_size: int32"],
                      outputs=["crops: float"],
                      attrs={"method": "bilinear", "extrapolation_value": 0.0},
                      allowed_types={"T": _REAL})


@CropAndResize.shape
def _(op):
    image, boxes = op._inputs[0]._shape, op._inputs[1]._shape
    size = constant_value(op._inputs[3])
    n = boxes.as_list()[0] if boxes.ndims == 2 else None
    d = image.as_list()[3] if image.ndims == 4 else None
    if size is None:
        return TensorShape([n, None, None, d])
    size = np.asarray(size).reshape(-1)
    return TensorShape([n, int(size[0]), int(size[1]), d])


@CropAndResize.kernel
def _(xp, image, boxes, box_ind, crop_size, *, method, extrapolation_value):
    if method not in ("bilinear", "nearest"):
        raise _bad(f"method must be 'bilinear' or 'nearest', got {method}")
    ch, cw = _crop_checks(image.shape, boxes, box_ind, crop_size)
    return crop_and_resize_np(image, boxes, box_ind, ch, cw, method, extrapolation_value)


CropAndResizeGradImage = defop(
    "CropAndResizeGradImage",
    inputs=["grads: float", "boxes: float", "box_ind: int32", "image_size: int32"],
    outputs=["output: T"], attrs={"method": "bilinear"},
    allowed_types={"T": (dtypes.float16, dtypes.float32, dtypes.float64)})


@CropAndResizeGradImage.shape
def _(op):
    size = constant_value(op._inputs[3])
    return TensorShape(None if size is None else [int(v) for v in np.asarray(size)])


@CropAndResizeGradImage.kernel
def _(xp, grads, boxes, box_ind, image_size, *, T, method):
    size = [int(v) for v in np.asarray(image_size).reshape(-1)]
    if len(size) != 4:
        raise _bad(f"image_size must be 1-D with 4 elements, got {len(size)}")
    _crop_checks(size, boxes, box_ind, grads.shape[1:3])
    batch, h, w, d = size
    nb, ch, cw, _ = grads.shape
    ys, y_ok = _crop_coords(boxes[:, 0], boxes[:, 2], h, ch)
    xs, x_ok = _crop_coords(boxes[:, 1], boxes[:, 3], w, cw)
    out = np.zeros((batch * h * w, d), _F)
    g = grads.astype(_F)
    for bx in range(nb):
        base = int(box_ind[bx]) * h * w
        for y in np.nonzero(y_ok[bx])[0]:
            for x in np.nonzero(x_ok[bx])[0]:
                gv = g[bx, y, x]
                if method == "bilinear":
                    iy, ix = ys[bx, y], xs[bx, x]
                    t, b = int(np.floor(iy)), int(np.ceil(iy))
                    lft, rgt = int(np.floor(ix)), int(np.ceil(ix))
                    yl, xl = iy - _F(t), ix - _F(lft)
                    dtop = (_F(1) - yl) * gv
                    out[base + t * w + lft] += (_F(1) - xl) * dtop
                    out[base + t * w + rgt] += xl * dtop
                    dbottom = yl * gv
                    out[base + b * w + lft] += (_F(1) - xl) * dbottom
                    out[base + b * w + rgt] += xl * dbottom
                else:
                    iy, ix = int(_round(ys[bx, y])), int(_round(xs[bx, x]))
                    out[base + iy * w + ix] += gv
    return out.reshape(batch, h, w, d).astype(T.as_numpy_dtype)


CropAndResizeGradBoxes = defop(
    "CropAndResizeGradBoxes",
    inputs=["grads: float", "image: T", "boxes: float", "box_ind: int32"],
    outputs=["output: float"], attrs={"method": "bilinear"}, allowed_types={"T": _REAL})
CropAndResizeGradBoxes.shape(lambda op: op._inputs[2]._shape)


@CropAndResizeGradBoxes.kernel
def _(xp, grads, image, boxes, box_ind, *, method):
    _crop_checks(image.shape, boxes, box_ind, grads.shape[1:3])
    _, h, w, _ = image.shape
    nb, ch, cw, _ = grads.shape
    hr = _F(h - 1) / _F(ch - 1) if ch > 1 else _F(0)
    wr = _F(w - 1) / _F(cw - 1) if cw > 1 else _F(0)
    out = np.zeros((nb, 4), _F)
    img = image.astype(_F)
    g = grads.astype(_F)
    ys, y_ok = _crop_coords(boxes[:, 0], boxes[:, 2], h, ch, ratio_form=True)
    xs, x_ok = _crop_coords(boxes[:, 1], boxes[:, 3], w, cw, ratio_form=True)
    for bx in range(nb):
        im = img[int(box_ind[bx])]
        for y in np.nonzero(y_ok[bx])[0]:
            iy = ys[bx, y]
            t, b = int(np.floor(iy)), int(np.ceil(iy))
            yl = iy - _F(t)
            for x in np.nonzero(x_ok[bx])[0]:
                ix = xs[bx, x]
                lft, rgt = int(np.floor(ix)), int(np.ceil(ix))
                xl = ix - _F(lft)
                tl, tr, bl, br = im[t, lft], im[t, rgt], im[b, lft], im[b, rgt]
                gy = ((_F(1) - xl) * (bl - tl) + xl * (br - tr)) * g[bx, y, x]
                gx = ((_F(1) - yl) * (tr - tl) + yl * (br - bl)) * g[bx, y, x]
                for row, val in ((0, gy), (2, gy), (1, gx), (3, gx)):
                    n, size, ratio, pos = (ch, h, hr, y) if row in (0, 2) else (cw, w, wr, x)
                    if n > 1:
                        factor = _F(size - 1) - _F(pos) * ratio if row < 2 else _F(pos) * ratio
                    else:
                        factor = 0.5 * (size - 1)
                    for c in range(val.shape[0]):
                        out[bx, row] += _F(val[c] * factor)
    return out


@CropAndResize.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    image = op._inputs[0]
    shape = image._shape.as_list() if image._shape.is_fully_defined() else array_ops.shape(image)
    grad0 = None
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad0 = apply_op("CropAndResizeGradImage", (grad, op._inputs[1], op._inputs[2],
                                                    convert_to_tensor(shape, dtypes.int32)),
                         T=image.dtype.base_dtype, method=op._attrs["method"]).outputs[0]
    grad1 = apply_op("CropAndResizeGradBoxes", (grad, image, op._inputs[1], op._inputs[2])
                     ).outputs[0]
    return [grad0, grad1, None, None]


NotDifferentiable("CropAndResizeGradImage", "CropAndResizeGradBoxes")


def crop_and_resize(image, boxes, box_ind, crop_size, method="bilinear",
                    extrapolation_value=0, name=None):
    """Crops boxes (normalised y1, x1, y2, x2) out of a batch and resizes each to crop_size.

    Args:
      image: [batch, height, width, depth].
      boxes: float32 [num_boxes, 4].
      box_ind: int32 [num_boxes], the image of each box.
      crop_size: int32 [crop_height, crop_width].
      method: "bilinear" or "nearest".
      extrapolation_value: value of samples outside the image.

    Returns:
      float32 [num_boxes, crop_height, crop_width, depth].
    """
    return apply_op("CropAndResize", (image, boxes, box_ind, crop_size), name=name,
                    method=method, extrapolation_value=float(extrapolation_value)).outputs[0]


# -- drawing ---------------------------------------------------------------------------------

_COLOURS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
            [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def draw_boxes_np(images, boxes, colours):
    if images.ndim != 4:
        raise _bad("The rank of the images should be 4")
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        raise _bad("The size of the third dimension of the boxes must be 4. Received: "
                   f"{boxes.shape[2] if boxes.ndim == 3 else boxes.shape}")
    batch, h, w, depth = images.shape
    if depth not in (1, 3, 4):
        raise _bad("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if colours is None or len(colours) == 0:
        colours = np.array(_COLOURS, np.float32)
        if depth == 1:
            colours[:, 0] = 1
    canvas = images.copy()
    for b in range(batch):
        for k in range(boxes.shape[1]):
            c = colours[k % len(colours)][:depth].astype(images.dtype)
            rows = (boxes[b, k, [0, 2]].astype(_F) * _F(h - 1)).astype(np.int64)
            cols = (boxes[b, k, [1, 3]].astype(_F) * _F(w - 1)).astype(np.int64)
            r0, r1, c0, c1 = int(rows[0]), int(rows[1]), int(cols[0]), int(cols[1])
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue
            rc0, rc1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                canvas[b, r0, cc0:cc1 + 1] = c
            if r1 < h:
                canvas[b, r1, cc0:cc1 + 1] = c
            if c0 >= 0:
                canvas[b, rc0:rc1 + 1, c0] = c
            if c1 < w:
                canvas[b, rc0:rc1 + 1, c1] = c
    return canvas


DrawBoundingBoxes = defop("DrawBoundingBoxes", inputs=["images: T", "boxes: float"],
                          outputs=["output: T"], attrs={"T": dtypes.float32},
                          allowed_types={"T": (dtypes.float32, dtypes.float16)})
DrawBoundingBoxes.shape(lambda op: op._inputs[0]._shape)
DrawBoundingBoxes.kernel(lambda xp, images, boxes: draw_boxes_np(images, boxes, None))

DrawBoundingBoxesV2 = defop("DrawBoundingBoxesV2",
                            inputs=["images: T", "boxes: float", "colors: float"],
                            outputs=["output: T"], attrs={"T": dtypes.float32},
                            allowed_types={"T": (dtypes.float32, dtypes.float16)})
DrawBoundingBoxesV2.shape(lambda op: op._inputs[0]._shape)


@DrawBoundingBoxesV2.kernel
def _(xp, images, boxes, colors):
    if colors.size and (colors.ndim != 2 or colors.shape[1] < images.shape[-1]):
        raise _bad("Color tensor must be 2-D with at least as many columns as the channels")
    return draw_boxes_np(images, boxes, colors if colors.size else None)


NotDifferentiable("DrawBoundingBoxes", "DrawBoundingBoxesV2")


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """Draws one-pixel box outlines (normalised y1, x1, y2, x2 per image) onto a float batch."""
    if colors is None:
        return apply_op("DrawBoundingBoxes", (images, boxes), name=name).outputs[0]
    return apply_op("DrawBoundingBoxesV2", (images, boxes, colors), name=name).outputs[0]
