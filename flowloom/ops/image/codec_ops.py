"""Image codecs: DecodeJpeg, DecodeAndCropJpeg, ExtractJpegShape, DecodePng, DecodeGif,
DecodeBmp, DecodeImage, EncodeJpeg, EncodePng (decoding through Pillow, imported when an op
first runs; PNG encoding byte-compatible with TF through flowloom.io.png).

Nothing is decoded before the header's size is checked against a bound, and the file data is
only ever interpreted as pixels.
"""

import io
import zlib

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.layout import c_order

# Decoded images larger than this many values are refused before decoding.
MAX_DECODED_VALUES = 1 << 30


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _pil():
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a dependency
        raise NotImplementedError("image decoding needs Pillow (pip install pillow)") from None
    return Image


def _scalar_bytes(contents, op_type):
    arr = np.asarray(contents, dtype=object)
    if arr.ndim != 0:
        raise _bad(f"contents must be scalar, got shape {list(arr.shape)}")
    value = arr.item()
    return value.encode() if isinstance(value, str) else bytes(value)


def _open(data, kind, expected):
    image_mod = _pil()
    try:
        img = image_mod.open(io.BytesIO(data))
        fmt = img.format
    except Exception:  # noqa: BLE001 - any parse failure is bad data
        img, fmt = None, None
    if img is None or (expected and fmt not in expected):
        raise _bad(f"Invalid {kind} data, size {len(data)}" if kind != "JPEG" else
                   f"Invalid JPEG data or crop window, data size {len(data)}")
    w, h = img.size
    frames = getattr(img, "n_frames", 1)
    if w * h * 4 * frames > MAX_DECODED_VALUES:
        raise _bad(f"{kind} image of {w}x{h} ({frames} frames) is too large to decode")
    return img


def _to_channels(img, channels, kind):
    """Pixels as uint8 [h, w, c]: c from the file when channels == 0, else converted."""
    mode = img.mode
    if channels == 0:
        target = {"L": "L", "LA": "LA", "RGB": "RGB", "RGBA": "RGBA", "CMYK": "CMYK",
                  "1": "L", "I;16": "I;16"}.get(mode)
        if target is None:  # palette and other modes: RGB, or RGBA with transparency
            target = "RGBA" if "transparency" in img.info or mode in ("PA", "RGBa") else "RGB"
    else:
        target = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    try:
        out = img.convert(target) if img.mode != target else img
        arr = np.asarray(out)
    except Exception as e:  # noqa: BLE001 - truncated or corrupt data
        raise _bad(f"Invalid {kind} data: {e}") from None
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if target == "CMYK":
        arr = 255 - arr if img.info.get("adobe") else arr
    return c_order(np, arr)


def _check_channels(channels, allowed):
    if channels not in allowed:
        raise _bad(f"channels must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]}, "
                   f"got {channels}")


def _contents_scalar(op):
    rank = op.inputs[0].shape.ndims
    if rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {rank}")


def _image_shape(channels):
    def fn(op):
        _contents_scalar(op)
        c = op.get_attr("channels")
        return TensorShape([None, None, c if c else None])
    return fn


def _cropped_shape(op):
    """DecodeAndCropJpeg: the crop window's height and width when it is a constant."""
    from flowloom.framework.tensor_util import constant_value

    _contents_scalar(op)
    window = op.inputs[1].shape
    if window.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {window.ndims}")
    if window.ndims == 1 and window.dims[0].value not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {window.dims[0].value}")
    c = op.get_attr("channels")
    value = constant_value(op.inputs[1])
    # A negative window side is an unknown dimension (the kernel refuses it when run).
    h, w = ([int(v) if v >= 0 else None for v in value[2:4]] if value is not None
            else (None, None))
    return TensorShape([h, w, c if c else None])


_JPEG_ATTRS = {"channels": 0, "ratio": 1, "fancy_upscaling": True,
               "try_recover_truncated": False, "acceptable_fraction": 1.0, "dct_method": ""}


def _decode_jpeg_array(data, channels, ratio, crop=None, fancy_upscaling=True,
                       dct_method=""):
    """TF's JPEG decode through Pillow's libjpeg.

    TF decodes with the fast integer IDCT unless dct_method is INTEGER_ACCURATE, and with
    libjpeg's fancy upsampling unless told otherwise. Pillow's draft mode gives the fast IDCT
    without fancy upsampling, its normal mode the accurate IDCT with it: so flowloom matches TF
    exactly wherever no chroma upsampling happens (grayscale, 4:4:4, channels=1) or the two
    settings agree; a subsampled colour image with TF's defaults is up to a few levels off.
    """
    from PIL import JpegImagePlugin

    _check_channels(channels, (0, 1, 3))
    if ratio not in (1, 2, 4, 8):
        raise _bad(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    img = _open(data, "JPEG", ("JPEG",))
    w, h = img.size
    gray_out = channels == 1 or (channels == 0 and img.mode == "L")
    size = (max(1, w // ratio), max(1, h // ratio)) if ratio > 1 else None
    img.draft("L" if channels == 1 and img.mode != "L" else None, size)
    scale = img.decoderconfig[0] if img.decoderconfig else 1
    upsampled = not gray_out and JpegImagePlugin.get_sampling(img) not in (-1, 0)
    fast_idct = dct_method != "INTEGER_ACCURATE"
    if fast_idct and (not upsampled or not fancy_upscaling):
        img.decoderconfig = (scale, 1)  # fast IDCT, plain upsampling: TF's exact output
    if img.mode == "CMYK" and channels in (0, 3):
        arr = _cmyk_to_rgb(_to_channels(img, 0, "JPEG"), bool(img.info.get("adobe")))
    else:
        arr = _to_channels(img, channels, "JPEG")
    if crop is not None:
        y, x, ch, cw = (int(v) for v in crop)
        if y < 0 or x < 0 or ch <= 0 or cw <= 0 or y + ch > arr.shape[0] or x + cw > arr.shape[1]:
            raise _bad(f"Invalid JPEG data or crop window, data size {len(data)}")
        arr = arr[y:y + ch, x:x + cw]
    return arr


def _cmyk_to_rgb(cmyk, adobe):
    """TF's CMYK -> RGB for a JPEG decoded to 3 (or as-encoded) channels, from libjpeg's
    CMYK samples (inverted in Adobe files), in integer arithmetic."""
    c, m, y, k = (cmyk[:, :, i].astype(np.int32) for i in range(4))
    if adobe:
        rgb = [k * c // 255, k * m // 255, k * y // 255]
    else:
        rgb = [(255 - k) * (255 - v) // 255 for v in (c, m, y)]
    return np.stack(rgb, axis=2).astype(np.uint8)


DecodeJpeg = defop("DecodeJpeg", inputs=["contents: string"], outputs=["image: uint8"],
                   attrs=dict(_JPEG_ATTRS))
DecodeJpeg.shape(_image_shape(0))


@DecodeJpeg.kernel
def _(xp, contents, *, channels, ratio, fancy_upscaling, try_recover_truncated,
      acceptable_fraction, dct_method):
    return _decode_as("jpeg", _scalar_bytes(contents, "DecodeJpeg"), channels,
                      jpeg=dict(ratio=ratio, fancy_upscaling=fancy_upscaling,
                                dct_method=dct_method))


DecodeAndCropJpeg = defop("DecodeAndCropJpeg", inputs=["contents: string", "crop_window: int32"],
                          outputs=["image: uint8"], attrs=dict(_JPEG_ATTRS))
DecodeAndCropJpeg.shape(_cropped_shape)


@DecodeAndCropJpeg.kernel
def _(xp, contents, crop_window, *, channels, ratio, fancy_upscaling, try_recover_truncated,
      acceptable_fraction, dct_method):
    crop = np.asarray(crop_window)
    if crop.ndim != 1:
        raise _bad(f"crop_window must be 1-D, got shape {list(crop.shape)}")
    if crop.shape != (4,):
        raise _bad(f"crop_size must have four elements {list(crop.shape)}")
    return _decode_as("jpeg", _scalar_bytes(contents, "DecodeAndCropJpeg"), channels,
                      jpeg=dict(ratio=ratio, fancy_upscaling=fancy_upscaling,
                                dct_method=dct_method, crop=crop))


ExtractJpegShape = defop("ExtractJpegShape", inputs=["contents: string"],
                         outputs=["image_shape: output_type"],
                         attrs={"output_type": dtypes.int32},
                         allowed_types={"output_type": (dtypes.int32, dtypes.int64)})
ExtractJpegShape.shape(lambda op: TensorShape([3]))


@ExtractJpegShape.kernel
def _(xp, contents, *, output_type):
    img = _open(_scalar_bytes(contents, "ExtractJpegShape"), "JPEG", ("JPEG",))
    c = {"L": 1, "CMYK": 4}.get(img.mode, 3)
    return np.array([img.size[1], img.size[0], c], output_type.as_numpy_dtype)


DecodePng = defop("DecodePng", inputs=["contents: string"], outputs=["image: dtype"],
                  attrs={"channels": 0, "dtype": dtypes.uint8},
                  allowed_types={"dtype": (dtypes.uint8, dtypes.uint16)})
DecodePng.shape(_image_shape(0))


def _decode_png16_colour(data, channels, dtype):
    """16-bit grey+alpha / RGB / RGBA PNGs (Pillow keeps only 8 bits of these)."""
    from flowloom.io.png import decode_png16, with_channels

    try:
        arr = decode_png16(data, MAX_DECODED_VALUES)
    except (ValueError, zlib.error):
        raise _bad(f"Invalid PNG data, size {len(data)}") from None
    if channels and channels != arr.shape[2]:
        if channels == 1:
            raise NotImplementedError("DecodePng of a 16-bit colour image to 1 channel")
        arr = with_channels(arr, channels)
    return arr if dtype == dtypes.uint16 else (arr >> 8).astype(np.uint8)


def _decode_png_array(data, channels, dtype):
    _check_channels(channels, (0, 1, 3, 4))
    if data[12:16] == b"IHDR" and data[24:25] == b"\x10" and data[25:26] in (b"\x02", b"\x04",
                                                                             b"\x06"):
        return _decode_png16_colour(data, channels, dtype)
    img = _open(data, "PNG", ("PNG",))
    sixteen = img.mode.startswith("I") or img.info.get("bitdepth", 8) == 16
    if sixteen and img.mode.startswith("I"):
        arr = np.asarray(img).astype(np.uint16)[:, :, None]
        if channels in (3, 4):
            arr = np.concatenate([arr] * 3 + ([np.full_like(arr, 65535)] if channels == 4
                                              else []), axis=2)
        elif channels == 2:
            arr = np.concatenate([arr, np.full_like(arr, 65535)], axis=2)
        return arr if dtype == dtypes.uint16 else (arr >> 8).astype(np.uint8)
    colour = img.mode not in ("L", "LA", "1", "I", "I;16")
    if channels == 1 and colour:
        arr = _png_gray(_to_channels(img, 4, "PNG"))
    else:
        arr = _to_channels(img, channels, "PNG")
    if dtype == dtypes.uint16:
        return arr.astype(np.uint16) * 257
    return arr


def _png_gray(rgba):
    """libpng's rgb_to_gray with TF's 0.299/0.587 weights (fixed point, truncated; grey
    pixels pass unchanged); the alpha is dropped."""
    r, g, b = (rgba[:, :, i].astype(np.uint32) for i in range(3))
    red, green = 29900 * 32768 // 100000, 58700 * 32768 // 100000
    mixed = (red * r + green * g + (32768 - red - green) * b) >> 15
    return np.where((r == g) & (r == b), r, mixed).astype(np.uint8)[:, :, None]


@DecodePng.kernel
def _(xp, contents, *, channels, dtype):
    return _decode_as("png", _scalar_bytes(contents, "DecodePng"), channels, dtype)


DecodeGif = defop("DecodeGif", inputs=["contents: string"], outputs=["image: uint8"])
DecodeGif.shape(lambda op: _contents_scalar(op) or TensorShape([None, None, None, 3]))


def _decode_gif_array(data):
    img = _open(data, "GIF", ("GIF",))
    frames = []
    for i in range(getattr(img, "n_frames", 1)):
        img.seek(i)
        frames.append(np.asarray(img.convert("RGB")))
    return np.stack(frames).astype(np.uint8)


@DecodeGif.kernel
def _(xp, contents):
    return _decode_as("gif", _scalar_bytes(contents, "DecodeGif"), 3)


_KINDS = {"jpeg": "JPEG", "png": "PNG", "gif": "GIF"}


def _c_escape(data):
    """Bytes as C source text (TF's CEscape): \\n \\r \\t \\" \\' \\\\ and octal escapes."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _decode_as(op_kind, data, channels, dtype=dtypes.uint8, jpeg=None):
    """TF's one kernel behind DecodeJpeg, DecodeAndCropJpeg, DecodePng and DecodeGif: the
    format comes from the bytes (JPEG, PNG or GIF, whichever op runs); the op only sets the
    output layout (DecodeGif: [1, h, w, 3] for a still image; the others refuse animations)
    and, for JPEG data in a JPEG op, the decoding options (ratio, crop window, ...)."""
    if op_kind != "gif" and channels not in (0, 1, 3, 4):
        raise _bad(f"channels must be 0, 1, 3, or 4, got {channels}")
    kind = "gif" if data[:4] == b"GIF8" else sniff(data)
    if kind not in _KINDS:
        what = "empty file" if not data else \
            f"unknown format starting with '{_c_escape(data[:16])}'"
        raise _bad(f"Expected image (JPEG, PNG, or GIF), got {what}")
    if kind != "png" and dtype == dtypes.uint16:
        raise _bad(f"{_KINDS[kind]} does not support uint16 output")
    if kind == "jpeg":
        if channels not in (0, 1, 3):
            raise _bad(f"channels must be 0, 1, or 3 for JPEG, got {channels}")
        options = dict(jpeg or {}) if op_kind == "jpeg" else {}
        arr = _decode_jpeg_array(data, channels, options.pop("ratio", 1), **options)
    elif kind == "png":
        arr = _decode_png_array(data, channels, dtype)
    else:
        if channels not in (0, 3):
            raise _bad(f"channels must be 0 or 3 for GIF, got {channels}")
        arr = _decode_gif_array(data)
        if op_kind != "gif":
            if arr.shape[0] != 1:
                raise _bad(f"Got {arr.shape[0]} frames, but animated gifs can only be "
                           "decoded by tf.image.decode_gif or tf.image.decode_image")
            arr = arr[0]
    return arr[None] if op_kind == "gif" and kind != "gif" else arr


DecodeBmp = defop("DecodeBmp", inputs=["contents: string"], outputs=["image: uint8"],
                  attrs={"channels": 0})
DecodeBmp.shape(_image_shape(0))


@DecodeBmp.kernel
def _(xp, contents, *, channels):
    _check_channels(channels, (0, 1, 3, 4))
    return _to_channels(_open(_scalar_bytes(contents, "DecodeBmp"), "BMP", ("BMP", "DIB")),
                        channels, "BMP")


DecodeImage = defop("DecodeImage", inputs=["contents: string"], outputs=["image: dtype"],
                    attrs={"channels": 0, "dtype": dtypes.uint8, "expand_animations": True},
                    allowed_types={"dtype": (dtypes.uint8, dtypes.uint16, dtypes.float32)})


@DecodeImage.shape
def _(op):
    if op.get_attr("expand_animations"):
        return unknown_shape()
    c = op.get_attr("channels")
    return TensorShape([None, None, c if c else None])


def sniff(data):
    """The image format of `data` from its first bytes (as TF's decode_image checks)."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


@DecodeImage.kernel
def _(xp, contents, *, channels, dtype, expand_animations):
    data = _scalar_bytes(contents, "DecodeImage")
    kind = sniff(data)
    if kind == "jpeg":
        arr = _decode_jpeg_array(data, channels, 1)
    elif kind == "png":
        # TF decodes PNGs for uint16 and float32 outputs at 16 bits
        arr = _decode_png_array(data, channels, dtypes.uint8 if dtype == dtypes.uint8
                                else dtypes.uint16)
    elif kind == "gif":
        if channels not in (0, 3):
            raise _bad(f"channels must be 0 or 3 for GIF, got {channels}")
        arr = _decode_gif_array(data)
        if not expand_animations:
            arr = arr[0]
    elif kind == "bmp":
        arr = _to_channels(_open(data, "BMP", ("BMP", "DIB")), channels, "BMP")
    else:
        raise _bad("Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    if dtype == dtypes.float32:
        scale = 65535.0 if arr.dtype == np.uint16 else 255.0
        return arr.astype(np.float32) * np.float32(1.0 / scale)
    if dtype == dtypes.uint16 and arr.dtype == np.uint8:  # as convert_image_dtype: * 256
        return arr.astype(np.uint16) * 256
    return arr


EncodePng = defop("EncodePng", inputs=["image: T"], outputs=["contents: string"],
                  attrs={"compression": -1, "T": dtypes.uint8},
                  allowed_types={"T": (dtypes.uint8, dtypes.uint16)})
EncodePng.shape(lambda op: TensorShape([]))


@EncodePng.kernel
def _(xp, image, *, compression):
    from flowloom.io.png import encode_png as _encode

    if image.ndim != 3 or image.shape[2] not in (1, 2, 3, 4):
        raise _bad(f"image must be 3-dimensional with 1-4 channels, got {list(image.shape)}")
    return np.array(_encode(image, compression), dtype=object)


EncodeJpeg = defop("EncodeJpeg", inputs=["image: uint8"], outputs=["contents: string"],
                   attrs={"format": "", "quality": 95, "progressive": False,
                          "optimize_size": False, "chroma_downsampling": True,
                          "density_unit": "in", "x_density": 300, "y_density": 300,
                          "xmp_metadata": ""})
EncodeJpeg.shape(lambda op: TensorShape([]))


@EncodeJpeg.kernel
def _(xp, image, *, format, quality, progressive, optimize_size,  # noqa: A002 - TF's attr
      chroma_downsampling, density_unit, x_density, y_density, xmp_metadata):
    return _encode_jpeg(image, format, quality, progressive, optimize_size,
                        chroma_downsampling, density_unit, x_density, y_density)


def _encode_jpeg(image, format, quality, progressive=False,  # noqa: A002 - TF's attr
                 optimize_size=False, chroma_downsampling=True, density_unit="in",
                 x_density=300, y_density=300):
    if image.ndim != 3:
        raise _bad(f"image must be 3-dimensional{list(image.shape)}")
    c = image.shape[2]
    mode = {"grayscale": "L", "rgb": "RGB"}.get(format, {1: "L", 3: "RGB"}.get(c))
    if mode is None or (format == "grayscale" and c != 1) or (format == "rgb" and c != 3):
        raise _bad(f"image must have 1 or 3 channels, got {list(image.shape)}")
    if not 0 <= quality <= 100:
        raise _bad(f"quality must be in [0,100], got {quality}")
    pixels = image[:, :, 0] if mode == "L" else image
    buf = io.BytesIO()
    dpi = (x_density, y_density) if density_unit == "in" else (x_density * 2.54,
                                                               y_density * 2.54)
    _pil().fromarray(c_order(np, pixels), mode).save(
        buf, "JPEG", quality=int(quality), progressive=bool(progressive),
        optimize=bool(optimize_size), subsampling=2 if chroma_downsampling else 0, dpi=dpi)
    return np.array(buf.getvalue(), dtype=object)


EncodeJpegVariableQuality = defop("EncodeJpegVariableQuality",
                                  inputs=["images: uint8", "quality: int32"],
                                  outputs=["contents: string"])
EncodeJpegVariableQuality.shape(lambda op: TensorShape([]))


@EncodeJpegVariableQuality.kernel
def _(xp, images, quality):
    if np.ndim(quality) != 0:
        raise _bad(f"quality must be a scalar: {list(np.shape(quality))}")
    return _encode_jpeg(images, "", int(quality))


NotDifferentiable("EncodeJpegVariableQuality")
NotDifferentiable("DecodeJpeg", "DecodeAndCropJpeg", "ExtractJpegShape", "DecodePng",
                  "DecodeGif", "DecodeBmp", "DecodeImage", "EncodePng", "EncodeJpeg")


# -- Python API ---------------------------------------------------------------------------------

def _op(op_type, inputs, name, **attrs):
    return apply_op(op_type, inputs, name=name, **attrs).outputs[0]


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """Decodes a JPEG image to uint8 [height, width, channels] (channels 0: as encoded)."""
    return _op("DecodeJpeg", (contents,), name, channels=channels, ratio=ratio,
               fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
               acceptable_fraction=float(acceptable_fraction), dct_method=dct_method)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """Decodes the [y, x, height, width] window of a JPEG image."""
    return _op("DecodeAndCropJpeg", (contents, crop_window), name, channels=channels,
               ratio=ratio, fancy_upscaling=fancy_upscaling,
               try_recover_truncated=try_recover_truncated,
               acceptable_fraction=float(acceptable_fraction), dct_method=dct_method)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """[height, width, channels] of a JPEG image, read from its header."""
    return _op("ExtractJpegShape", (contents,), name, output_type=dtypes.as_dtype(output_type))


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a PNG image to uint8 or uint16 [height, width, channels]."""
    return _op("DecodePng", (contents,), name, channels=channels, dtype=dtypes.as_dtype(dtype))


def decode_gif(contents, name=None):
    """Decodes a GIF to uint8 [frames, height, width, 3]."""
    return _op("DecodeGif", (contents,), name)


def decode_bmp(contents, channels=0, name=None):
    """Decodes a BMP image to uint8 [height, width, channels]."""
    return _op("DecodeBmp", (contents,), name, channels=channels)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Decodes a JPEG, PNG, GIF or BMP image, whichever the bytes are.

    Args:
      contents: a scalar string tensor.
      channels: 0/None (as encoded), 1, 3 or 4.
      dtype: uint8, uint16 or float32 (floats scaled to [0, 1]).
      expand_animations: GIFs give [frames, h, w, 3] (else the first frame).

    Returns:
      The decoded image; its rank is unknown at graph time when animations expand.
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "decode_image"):
        op_dtype = dtype if dtype in (dtypes.uint8, dtypes.uint16, dtypes.float32) else \
            dtypes.float32
        out = _op("DecodeImage", (contents,), None, channels=channels or 0, dtype=op_dtype,
                  expand_animations=expand_animations)
        if dtype != op_dtype:
            from flowloom.ops.image.adjust_ops import convert_image_dtype

            out = convert_image_dtype(out, dtype)
        return out


def is_jpeg(contents, name=None):
    """True where `contents` starts with the JPEG marker."""
    from flowloom.ops.strings import string_ops

    with name_scope(name, "is_jpeg"):
        head = string_ops.substr(contents, 0, 3)
        from flowloom.ops.math import math_ops

        return math_ops.equal(head, b"\xff\xd8\xff", name="is_jpeg")


def encode_png(image, compression=-1, name=None):
    """PNG-encodes a uint8/uint16 [height, width, channels] image (a scalar string)."""
    image = convert_to_tensor(image, name="image")
    return _op("EncodePng", (image,), name, compression=compression)


def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002 - TF's name
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """JPEG-encodes a uint8 [height, width, 1 or 3] image (a scalar string)."""
    return _op("EncodeJpeg", (image,), name, format=format, quality=quality,
               progressive=progressive, optimize_size=optimize_size,
               chroma_downsampling=chroma_downsampling, density_unit=density_unit,
               x_density=x_density, y_density=y_density, xmp_metadata=xmp_metadata)



def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """Re-encodes `image` as JPEG at `jpeg_quality` (0-100) and decodes it (TF 2.x's recipe:
    saturating conversions to uint8 and back; under FLOWLOOM_SEED_RULES=1, TF 1.15's graph,
    which does not saturate, so that later default op seeds agree with TF 1.15's)."""
    from flowloom.ops.image.adjust_ops import convert_image_dtype
    from flowloom.ops.random.random_ops import seed_rules

    tf1 = seed_rules() == "1"
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image._shape.as_list()[-1] if image._shape.ndims and not tf1 else 0
        orig = image.dtype.base_dtype
        image = convert_image_dtype(image, dtypes.uint8, saturate=not tf1)
        quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        data = apply_op("EncodeJpegVariableQuality", (image, quality)).outputs[0]
        image = _op("DecodeJpeg", (data,), None, channels=channels or 0, ratio=1,
                    fancy_upscaling=True, try_recover_truncated=False,
                    acceptable_fraction=1.0, dct_method=dct_method)
        return convert_image_dtype(image, orig, saturate=not tf1)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """adjust_jpeg_quality at a quality drawn uniformly from [min, max)."""
    from flowloom.ops.random import random_ops

    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100
            or max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                                        dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)
