"""PNG encoding of 8-bit images, byte-identical to TensorFlow's (libpng 1.6 + zlib).

TF's `png::WriteImageToBuffer` drives libpng with its defaults for 8-bit grey/RGB/RGBA
images: every row gets the adaptive filter choice (the filter whose output has the
smallest sum of absolute signed bytes; ties go to the earlier filter), zlib level 6 with
memLevel 9 and the Z_FILTERED strategy, IDAT chunks of at most 8192 bytes, and the zlib
header's window size shrunk to fit small images. Reproducing those choices gives the same
bytes, so summaries flowloom writes equal TF's.
"""

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
_IDAT_SIZE = 8192  # libpng's PNG_ZBUF_SIZE in TF's build
_Z_FILTERED = 1
_MEM_LEVEL = 9


def _chunk(kind, data):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _paeth(a, b, c):
    a = a.astype(np.int32)
    b = b.astype(np.int32)
    c = c.astype(np.int32)
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filtered_rows(image, bpp):
    """The five PNG filters of every row: an array [height, 5, rowbytes] (uint8)."""
    h, rowbytes = image.shape
    cur = image.astype(np.int32)
    prior = np.zeros_like(cur)
    prior[1:] = cur[:-1]
    left = np.zeros_like(cur)
    left[:, bpp:] = cur[:, :-bpp]
    upleft = np.zeros_like(cur)
    upleft[:, bpp:] = prior[:, :-bpp]
    out = np.empty((h, 5, rowbytes), dtype=np.uint8)
    out[:, 0] = image
    out[:, 1] = (cur - left) & 0xFF
    out[:, 2] = (cur - prior) & 0xFF
    out[:, 3] = (cur - ((left + prior) >> 1)) & 0xFF
    out[:, 4] = (cur - _paeth(left, prior, upleft)) & 0xFF
    return out


def _optimize_cmf(stream, data_size):
    """Shrinks the window size claimed by the zlib header for small images, as libpng does."""
    if data_size > 16384:
        return stream
    cmf = stream[0]
    if (cmf & 0x0F) != 8 or (cmf & 0xF0) > 0x70:
        return stream
    cinfo = cmf >> 4
    half_window = 1 << (cinfo + 7)
    if data_size > half_window:
        return stream
    while True:
        half_window >>= 1
        cinfo -= 1
        if not (cinfo > 0 and data_size <= half_window):
            break
    cmf = (cmf & 0x0F) | (cinfo << 4)
    flg = stream[1] & 0xE0
    flg += 0x1F - ((cmf << 8) + flg) % 0x1F
    return bytes([cmf, flg]) + stream[2:]


def encode_png(image, compression=-1):
    """Encodes an 8-bit image as PNG bytes, as TensorFlow's PNG writer does.

    Args:
      image: a uint8 array [height, width, channels] with 1 (grey), 2 (grey+alpha),
        3 (RGB) or 4 (RGBA) channels.
      compression: zlib level, -1 for zlib's default (what TF's summaries use).

    Returns:
      The PNG file as bytes.

    Raises:
      ValueError: if the image is not 3-D uint8 with 1 to 4 channels.
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.dtype != np.uint8 or image.shape[2] not in _COLOR_TYPES:
        raise ValueError(f"encode_png needs a uint8 [h, w, 1..4] image, got {image.dtype} "
                         f"{image.shape}")
    h, w, depth = image.shape
    rows = image.reshape(h, w * depth)
    raw = bytearray()
    if rows.size:
        candidates = _filtered_rows(rows, depth)
        v = candidates.astype(np.int32)
        costs = np.minimum(v, 256 - v).sum(axis=2)
        best = np.argmin(costs, axis=1)  # first minimum: libpng keeps the earlier filter
        for i in range(h):
            raw.append(int(best[i]))
            raw += candidates[i, best[i]].tobytes()
    else:
        raw = bytearray(b"\x00" * h)
    compressor = zlib.compressobj(compression, zlib.DEFLATED, 15, _MEM_LEVEL, _Z_FILTERED)
    stream = compressor.compress(bytes(raw)) + compressor.flush()
    stream = _optimize_cmf(stream, len(raw))
    out = [_SIGNATURE,
           _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPES[depth], 0, 0, 0))]
    for start in range(0, len(stream), _IDAT_SIZE):
        out.append(_chunk(b"IDAT", stream[start:start + _IDAT_SIZE]))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)
