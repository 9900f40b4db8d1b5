"""SampleDistortedBoundingBox(V2): TF's random crop sampler, drawing from the op's Philox
stream exactly as TF's kernel does (SimplePhilox: RandFloat and the rejection-sampled Uniform),
so a seeded op gives TF's boxes."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.tensor_shape import TensorShape
from flowloom.ops.random import philox
from flowloom.ops.random.random_ops import philox_state

_F = np.float32
_INTS = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


class _Words:
    """TF's SingleSampleAdapter over a PhiloxRandom copy: uint32 words in order."""

    def __init__(self, key, counter):
        self.key, self.counter, self.buf, self.pos = key, counter, [], 0

    def __call__(self):
        if self.pos == len(self.buf):
            self.buf = philox.blocks(self.key, self.counter, 16).ravel().tolist()
            self.counter = (self.counter + 16) & ((1 << 128) - 1)
            self.pos = 0
        self.pos += 1
        return self.buf[self.pos - 1]

    def rand_float(self):
        return philox.uint32_to_float(np.uint32(self()))

    def uniform(self, n):
        """TF's ExactUniformInt over [0, n) for a uint32 n."""
        n &= 0xFFFFFFFF
        if n == 0:
            return (self() * n) & 0xFFFFFFFF
        if n & (n - 1) == 0:
            return self() & (n - 1)
        rem = (0xFFFFFFFF % n) + 1
        while True:
            r = self()
            if r >= rem:
                return r % n


def _area(rect):
    return _F((rect[2] - rect[0]) * (rect[3] - rect[1]))


def _intersect(a, b):
    r = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return (0, 0, 0, 0) if r[0] > r[2] or r[1] > r[3] else r


def _covers(crop, min_covered, boxes):
    if _area(crop) < 1:
        return False
    for box in boxes:
        area = _area(box)
        if area < 1:
            continue
        if _F(_area(_intersect(crop, box)) / area) >= min_covered:
            return True
    return False


def _lrint(v):
    return int(np.rint(_F(v)))


def _random_crop(width, height, min_rel, max_rel, aspect, words):
    """TF's GenerateRandomCrop: (x0, y0, x1, y1) or None."""
    if max_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = _F(_F(min_rel * _F(width)) * _F(height))
    max_area = _F(_F(max_rel * _F(width)) * _F(height))
    h = _lrint(np.sqrt(_F(min_area / aspect)))
    max_h = _lrint(np.sqrt(_F(max_area / aspect)))
    if _lrint(_F(max_h) * aspect) > width:
        eps = float(_F(0.0000001))
        max_h = int((width + 0.5 - eps) / float(aspect))
        if _lrint(_F(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    if h >= max_h:
        h = max_h
    if h < max_h:
        h += words.uniform(max_h - h + 1)
    w = _lrint(_F(h) * aspect)
    area = _F(w * h)
    if area < min_area:
        h += 1
        w = _lrint(_F(h) * aspect)
        area = _F(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(_F(h) * aspect)
        area = _F(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = words.uniform(height - h) if h < height else 0
    x = words.uniform(width - w) if w < width else 0
    return (x, y, x + w, y + h)


def sample_box(image_size, boxes, min_covered, attrs, words):
    size = np.asarray(image_size)
    if size.ndim != 1 or size.shape[0] != 3:
        raise _bad(f"image_size must contain 3 elements{list(size.shape)}")
    height, width = int(size[0]), int(size[1])
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        raise _bad("bounding boxes must have shape [4] or [*, 4], got "
                   f"{list(boxes.shape)}")
    if min_covered < 0:
        raise _bad(f"Min object covered must be non-negative: {min_covered}")
    rects = []
    for b in boxes.reshape(-1, 4).astype(_F):
        if ((b < 0) | (b > 1)).any():
            raise _bad(f"All bounding box coordinates must be in [0.0, 1.0]: "
                       f"{b[(b < 0) | (b > 1)][0]}")
        rects.append((int(b[1] * _F(width)), int(b[0] * _F(height)),
                      int(b[3] * _F(width)), int(b[2] * _F(height))))
    image_rect = (0, 0, width, height)
    if not rects:
        if not attrs["use_image_if_no_bounding_boxes"]:
            raise _bad("No bounding boxes provided as input. One must enable "
                       "use_image_if_no_bounding_boxes if you wish to not provide any "
                       "bounding boxes.")
        rects.append(image_rect)
    min_area, max_area = (_F(v) for v in attrs["area_range"])
    min_ar, max_ar = (_F(v) for v in attrs["aspect_ratio_range"])
    crop = None
    for _ in range(attrs["max_attempts"]):
        aspect = _F(words.rand_float() * _F(max_ar - min_ar) + min_ar)
        candidate = _random_crop(width, height, min_area, max_area, aspect, words)
        if candidate is not None and _covers(candidate, _F(min_covered), rects):
            crop = candidate
            break
    x0, y0, x1, y1 = crop or image_rect
    begin = [y0, x0, 0]
    extent = [y1 - y0, x1 - x0, -1]
    box = np.array([[[_F(y0) / _F(height), _F(x0) / _F(width), _F(y1) / _F(height),
                      _F(x1) / _F(width)]]], _F)
    return begin, extent, box


_ATTRS = {"seed": 0, "seed2": 0, "aspect_ratio_range": [0.75, 1.33], "area_range": [0.05, 1.0],
          "max_attempts": 100, "use_image_if_no_bounding_boxes": False}


def _check_attrs(attrs):
    ar, area = attrs["aspect_ratio_range"], attrs["area_range"]
    if len(ar) != 2 or len(area) != 2:
        raise _bad("Aspect ratio range field must specify 2 dimensions")
    if not (ar[0] > 0 and ar[1] > 0):
        raise _bad(f"Aspect ratio range must be non-negative: [{ar[0]}, {ar[1]}]")
    if not (area[0] > 0 and area[1] > 0):
        raise _bad(f"Area range must be non-negative: [{area[0]}, {area[1]}]")
    if area[0] > 1 or area[1] > 1:
        raise _bad(f"Area range must be less then or equal to 1.0: [{area[0]}, {area[1]}]")
    if attrs["max_attempts"] <= 0:
        raise _bad(f"Max attempts must be non-negative: {attrs['max_attempts']}")


def _shape(op):
    return [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])]


def _run(ctx, image_size, boxes, min_covered, attrs, dtype):
    _check_attrs(attrs)
    state = philox_state(ctx, attrs["seed"], attrs["seed2"])
    counter = state.reserve((4 * attrs["max_attempts"] + 3) // 4)
    begin, extent, box = sample_box(image_size, boxes, float(min_covered), attrs,
                                    _Words(state.key, counter))
    t = dtype.as_numpy_dtype
    return np.array(begin, t), np.array(extent, t), box


SampleDistortedBoundingBoxV2 = defop(
    "SampleDistortedBoundingBoxV2",
    inputs=["image_size: T", "bounding_boxes: float", "min_object_covered: float"],
    outputs=["begin: T", "size: T", "bboxes: float"], attrs=dict(_ATTRS), stateful=True,
    allowed_types={"T": _INTS})
SampleDistortedBoundingBoxV2.shape(_shape)


@SampleDistortedBoundingBoxV2.kernel
def _(xp, image_size, bounding_boxes, min_object_covered, *, T, seed, seed2,
      aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes, ctx):
    if np.ndim(min_object_covered) != 0:
        raise _bad(f"min_object_covered must be 0-D, got shape "
                   f"{list(np.shape(min_object_covered))}")
    attrs = dict(seed=seed, seed2=seed2, aspect_ratio_range=list(aspect_ratio_range),
                 area_range=list(area_range), max_attempts=max_attempts,
                 use_image_if_no_bounding_boxes=use_image_if_no_bounding_boxes)
    return _run(ctx, image_size, bounding_boxes, min_object_covered, attrs, T)


SampleDistortedBoundingBox = defop(
    "SampleDistortedBoundingBox", inputs=["image_size: T", "bounding_boxes: float"],
    outputs=["begin: T", "size: T", "bboxes: float"],
    attrs=dict(_ATTRS, min_object_covered=0.1), stateful=True, allowed_types={"T": _INTS})
SampleDistortedBoundingBox.shape(_shape)


@SampleDistortedBoundingBox.kernel
def _(xp, image_size, bounding_boxes, *, T, seed, seed2, min_object_covered,
      aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes, ctx):
    attrs = dict(seed=seed, seed2=seed2, aspect_ratio_range=list(aspect_ratio_range),
                 area_range=list(area_range), max_attempts=max_attempts,
                 use_image_if_no_bounding_boxes=use_image_if_no_bounding_boxes)
    return _run(ctx, image_size, bounding_boxes, min_object_covered, attrs, T)


NotDifferentiable("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2")


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop window that covers at least `min_object_covered` of a box.

    As TF 1.x's, the seeds go to the op as given: with neither seed nor seed2 the op is
    unseeded, whatever the graph seed.

    Args:
      image_size: [height, width, channels], an integer tensor.
      bounding_boxes: float32 [batch, N, 4] normalised (y1, x1, y2, x2).
      seed, seed2: the op's seeds.
      min_object_covered: fraction of some box the crop must cover.
      aspect_ratio_range: [min, max] width / height of the crop.
      area_range: [min, max] fraction of the image's area.
      max_attempts: tries before falling back to the whole image.
      use_image_if_no_bounding_boxes: treat an empty `bounding_boxes` as the whole image.

    Returns:
      (begin, size, bboxes): the Slice arguments and the [1, 1, 4] box.
    """
    attrs = {"seed": seed or 0, "seed2": seed2 or 0}
    for key, value in (("aspect_ratio_range", aspect_ratio_range), ("area_range", area_range),
                       ("max_attempts", max_attempts),
                       ("use_image_if_no_bounding_boxes", use_image_if_no_bounding_boxes)):
        if value is not None:
            attrs[key] = list(value) if isinstance(value, (list, tuple)) else value
    with name_scope(name, "sample_distorted_bounding_box"):
        from flowloom.framework.ops import convert_to_tensor

        covered = convert_to_tensor(min_object_covered, dtypes.float32,
                                    name="min_object_covered")
        return tuple(apply_op("SampleDistortedBoundingBoxV2",
                              (image_size, bounding_boxes, covered), **attrs).outputs)
