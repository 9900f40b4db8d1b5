"""TF1 summary op types: each kernel outputs a serialized `Summary` proto, as TF's kernels do.

ScalarSummary, HistogramSummary, ImageSummary, AudioSummaryV2, TensorSummaryV2 and
MergeSummary, with TF's names, attrs, validation messages and output bytes (histogram
buckets, PNG and WAV encodings included). The `tf.summary.*` functions that build them live
in `flowloom.summary`.
"""

import numpy as np

from flowloom.framework import common_shapes, dtypes, errors
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.io.png import encode_png
from flowloom.io.wav import encode_wav
from flowloom.proto import summary_pb2
from flowloom.ops.layout import c_order

_REAL = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
         dtypes.int64, dtypes.bfloat16, dtypes.uint16, dtypes.float16, dtypes.uint32,
         dtypes.uint64)
_DBL_MAX = np.finfo(np.float64).max


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _scalar_string(t):
    return _as_bytes(np.asarray(t, dtype=object).reshape(-1)[0])


def _shape_str(a):
    return "[%s]" % ",".join(str(d) for d in np.shape(a))


def _is_legacy_scalar(a):
    return np.ndim(a) == 0 or (np.ndim(a) == 1 and np.shape(a)[0] == 1)


def _output(summary):
    return np.array(summary.SerializeToString(), dtype=object)


# -- ScalarSummary -------------------------------------------------------------------------------
ScalarSummary = defop("ScalarSummary", inputs=["tags: string", "values: T"],
                      outputs=["summary: string"], allowed_types={"T": _REAL})
ScalarSummary.shape(common_shapes.scalar_shape)


@ScalarSummary.kernel
def _(xp, tags, values):
    tags = np.asarray(tags, dtype=object)
    values = np.asarray(values)
    if tags.shape != values.shape:
        single = f" (tag '{_scalar_string(tags).decode('utf-8', 'replace')}')" \
            if tags.size == 1 else ""
        raise _invalid(f"tags and values not the same shape: {_shape_str(tags)} != "
                       f"{_shape_str(values)}{single}")
    s = summary_pb2.Summary()
    for tag, v in zip(tags.reshape(-1), values.reshape(-1).astype(np.float32)):
        s.value.add(tag=_as_bytes(tag).decode("utf-8", "replace"), simple_value=v)
    return _output(s)


# -- HistogramSummary ------------------------------------------------------------------------------
def _default_bucket_limits():
    # TF's default buckets: +-1e-12 growing by 10% up to 1e20, then +-DBL_MAX, and 0.
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    negative = [-x for x in reversed(positive)]
    return np.array(negative + [0.0] + positive, dtype=np.float64)


BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values):
    """A `HistogramProto` of `values` with TF's default buckets (empty runs collapsed).

    Args:
      values: a numeric array of finite values.

    Returns:
      A `summary_pb2.HistogramProto`, equal to what TF's HistogramSummary kernel builds.
    """
    flat = np.asarray(values).reshape(-1).astype(np.float64)
    limits = BUCKET_LIMITS
    index = np.minimum(np.searchsorted(limits, flat, side="right"), len(limits) - 1)
    counts = np.bincount(index, minlength=len(limits)).astype(np.float64)
    h = summary_pb2.HistogramProto()
    if flat.size:
        # TF adds the values one by one: accumulate keeps that order (np.sum would not).
        h.min = flat.min()
        h.max = flat.max()
        h.sum = np.add.accumulate(flat)[-1]
        h.sum_squares = np.add.accumulate(flat * flat)[-1]
    else:
        h.min = _DBL_MAX
        h.max = -_DBL_MAX
    h.num = float(flat.size)
    nonzero = np.flatnonzero(counts > 0)
    # Each non-empty bucket is kept; a run of empty buckets becomes one entry ending at the
    # run's last limit.
    start = 0
    for i in nonzero:
        if i > start:
            h.bucket_limit.append(limits[i - 1])
            h.bucket.append(0.0)
        h.bucket_limit.append(limits[i])
        h.bucket.append(counts[i])
        start = i + 1
    if start < len(limits):
        h.bucket_limit.append(limits[-1])
        h.bucket.append(0.0)
    return h


HistogramSummary = defop("HistogramSummary", inputs=["tag: string", "values: T"],
                         outputs=["summary: string"], attrs={"T": dtypes.float32},
                         allowed_types={"T": _REAL})
HistogramSummary.shape(common_shapes.scalar_shape)


@HistogramSummary.kernel
def _(xp, tag, values, *, ctx):
    if np.ndim(tag) != 0:
        raise _invalid("tags must be scalar")
    flat = np.asarray(values).reshape(-1).astype(np.float64)
    if flat.size and not np.isfinite(flat).all():
        first_bad = flat[~np.isfinite(flat)][0]
        what = "Nan" if np.isnan(first_bad) else "Infinity"
        raise _invalid(f"{what} in summary histogram for: {ctx.op.name}")
    s = summary_pb2.Summary()
    v = s.value.add(tag=_scalar_string(tag).decode("utf-8", "replace"))
    v.histo.CopyFrom(histogram_proto(flat))
    return _output(s)


# -- ImageSummary ---------------------------------------------------------------------------------
_BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)
ImageSummary = defop("ImageSummary", inputs=["tag: string", "tensor: T"],
                     outputs=["summary: string"],
                     attrs={"max_images": 3, "bad_color": _BAD_COLOR, "T": dtypes.float32},
                     allowed_types={"T": (dtypes.uint8, dtypes.float32, dtypes.float16,
                                          dtypes.float64)})
ImageSummary.shape(common_shapes.scalar_shape)


def normalize_image(image, bad_color):
    """TF's float-to-uint8 image rule, for one image [h*w, depth].

    All non-negative: scaled so the largest value is 255. Any negative: 0 maps to 128 and
    the largest magnitude to 127 away from it. Pixels with a non-finite channel get
    `bad_color`. The arithmetic runs in the image's own float type, as TF's does.
    """
    ftype = image.dtype.type
    finite = np.isfinite(image).all(axis=1)
    good = image[finite].astype(np.float32)
    lo = good.min() if good.size else np.float32(np.inf)
    hi = good.max() if good.size else np.float32(-np.inf)
    zero_threshold = np.float32(1e-6)
    if lo < 0:
        max_val = max(abs(lo), abs(hi))
        scale = np.float32(0.0) if max_val < zero_threshold else np.float32(127.0) / max_val
        offset = np.float32(128.0)
    else:
        scale = np.float32(0.0) if hi < zero_threshold else np.float32(255.0) / hi
        offset = np.float32(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = image * ftype(scale) + ftype(offset)
        out = np.where(finite[:, None], np.nan_to_num(scaled), 0).astype(np.uint8)
    out[~finite] = bad_color
    return out


@ImageSummary.kernel
def _(xp, tag, tensor, *, max_images, bad_color):
    if not _is_legacy_scalar(tag):
        raise _invalid("Tags must be a scalar")
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise _invalid(f"Tensor must be 4-D with last dim 1, 3, or 4, not {_shape_str(tensor)}")
    batch, h, w, depth = tensor.shape
    if max(batch, h, w) >= 1 << 31 or h * w >= 1 << 29:
        raise _invalid(f"Tensor too large for summary {_shape_str(tensor)}")
    base_tag = _scalar_string(tag).decode("utf-8", "replace")
    bad_color = np.asarray(bad_color, dtype=np.uint8).reshape(-1)
    if tensor.dtype != np.uint8 and bad_color.shape[0] < depth:
        raise _invalid(f"expected depth <= bad_color.size, got depth = {depth}, "
                       f"bad_color.size = {bad_color.shape[0]}")
    s = summary_pb2.Summary()
    for i in range(min(max_images, batch)):
        suffix = f"/image/{i}" if max_images > 1 else "/image"
        v = s.value.add(tag=base_tag + suffix)
        image = tensor[i]
        if tensor.dtype != np.uint8:
            image = normalize_image(image.reshape(h * w, depth), bad_color[:depth])
            image = image.reshape(h, w, depth)
        v.image.height = h
        v.image.width = w
        v.image.colorspace = depth
        v.image.encoded_image_string = encode_png(image)
    return _output(s)


# -- AudioSummaryV2 ---------------------------------------------------------------------------------
AudioSummaryV2 = defop("AudioSummaryV2",
                       inputs=["tag: string", "tensor: float32", "sample_rate: float32"],
                       outputs=["summary: string"], attrs={"max_outputs": 3})
AudioSummaryV2.shape(common_shapes.scalar_shape)


@AudioSummaryV2.kernel
def _(xp, tag, tensor, sample_rate, *, max_outputs):
    if max_outputs <= 0:
        raise _invalid("max_outputs must be > 0")
    if not _is_legacy_scalar(tag):
        raise _invalid("Tag must be a scalar")
    tensor = np.asarray(tensor, dtype=np.float32)
    if not 2 <= tensor.ndim <= 3:
        raise _invalid(f"Tensor must be 3-D or 2-D, got: {_shape_str(tensor)}")
    rate = np.float32(np.asarray(sample_rate).reshape(-1)[0])
    if not rate > 0:
        raise _invalid("sample_rate must be > 0")
    base_tag = _scalar_string(tag).decode("utf-8", "replace")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    wav_rate = max(int(np.rint(rate)), 1)  # lrintf: round half to even
    s = summary_pb2.Summary()
    for i in range(min(max_outputs, batch)):
        suffix = f"/audio/{i}" if max_outputs > 1 else "/audio"
        v = s.value.add(tag=base_tag + suffix)
        v.audio.sample_rate = rate
        v.audio.num_channels = channels
        v.audio.length_frames = frames
        v.audio.content_type = "audio/wav"
        try:
            v.audio.encoded_audio_string = encode_wav(tensor[i].reshape(frames, channels),
                                                      wav_rate)
        except ValueError as e:
            raise _invalid(str(e)) from None
    return _output(s)


# -- TensorSummaryV2 ---------------------------------------------------------------------------------
TensorSummaryV2 = defop("TensorSummaryV2",
                        inputs=["tag: string", "tensor: T",
                                "serialized_summary_metadata: string"],
                        outputs=["summary: string"])
TensorSummaryV2.shape(common_shapes.scalar_shape)


def tensor_proto_of(array, dtype):
    """A TensorProto of `array` as TF's summary kernel writes it.

    Strings go to `string_val` (TF's AsProtoField); other types to `tensor_content` in
    little-endian order (AsProtoTensorContent).
    """
    from flowloom.proto import tensor_pb2

    array = np.asarray(array)
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in array.shape:
        proto.tensor_shape.dim.add(size=d)
    if dtype.base_dtype == dtypes.string:
        proto.string_val.extend(_as_bytes(x) for x in array.reshape(-1))
    else:
        proto.tensor_content = c_order(np, 
            array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


@TensorSummaryV2.kernel
def _(xp, tag, tensor, metadata, *, ctx):
    if np.ndim(tag) != 0:
        raise _invalid("tag must be scalar")
    if np.ndim(metadata) != 0:
        raise _invalid("serialized_summary_metadata must be scalar")
    s = summary_pb2.Summary()
    v = s.value.add(tag=_scalar_string(tag).decode("utf-8", "replace"))
    v.tensor.CopyFrom(tensor_proto_of(tensor, ctx.op._inputs[1]._dtype))
    try:
        v.metadata.MergeFromString(_scalar_string(metadata))
    except Exception:  # noqa: BLE001 - TF ignores metadata it cannot parse
        v.ClearField("metadata")
    return _output(s)


# -- MergeSummary -----------------------------------------------------------------------------------
MergeSummary = defop("MergeSummary", inputs=["inputs: N * string"],
                     outputs=["summary: string"])
MergeSummary.shape(common_shapes.scalar_shape)


@MergeSummary.kernel
def _(xp, *inputs):
    merged = summary_pb2.Summary()
    seen = set()
    for value in inputs:
        for serialized in np.asarray(value, dtype=object).reshape(-1):
            part = summary_pb2.Summary()
            try:
                part.MergeFromString(_as_bytes(serialized))
            except Exception:  # noqa: BLE001 - any parse failure is TF's InvalidArgument
                raise _invalid("Could not parse one of the summary inputs") from None
            for v in part.value:
                if v.tag:
                    if v.tag in seen:
                        raise _invalid(f"Duplicate tag {v.tag} found in summary inputs")
                    seen.add(v.tag)
                merged.value.add().CopyFrom(v)
    return _output(merged)


NotDifferentiable("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
                  "TensorSummaryV2", "MergeSummary")
