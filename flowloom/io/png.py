"""PNG encoding of 8- and 16-bit images, byte-identical to TensorFlow's (libpng 1.6 + zlib).

TF's `png::WriteImageToBuffer` drives libpng with its defaults for grey/RGB/RGBA images
(16-bit samples stored big-endian): every row gets the adaptive filter choice (the filter whose output has the
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
    """Encodes an 8- or 16-bit image as PNG bytes, as TensorFlow's PNG writer does.

    Args:
      image: a uint8 or uint16 array [height, width, channels] with 1 (grey), 2
        (grey+alpha), 3 (RGB) or 4 (RGBA) channels.
      compression: zlib level, -1 for zlib's default (what TF's summaries use).

    Returns:
      The PNG file as bytes.

    Raises:
      ValueError: if the image is not 3-D uint8/uint16 with 1 to 4 channels.
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.dtype not in (np.uint8, np.uint16) or \
            image.shape[2] not in _COLOR_TYPES:
        raise ValueError(f"encode_png needs a uint8 or uint16 [h, w, 1..4] image, got "
                         f"{image.dtype} {image.shape}")
    h, w, depth = image.shape
    sample_bytes = image.dtype.itemsize
    rows = np.ascontiguousarray(image.astype(">u2") if sample_bytes == 2 else image)
    rows = rows.view(np.uint8).reshape(h, w * depth * sample_bytes)
    raw = bytearray()
    if rows.size:
        candidates = _filtered_rows(rows, depth * sample_bytes)
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
           _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8 * sample_bytes, _COLOR_TYPES[depth],
                                      0, 0, 0))]
    for start in range(0, len(stream), _IDAT_SIZE):
        out.append(_chunk(b"IDAT", stream[start:start + _IDAT_SIZE]))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)


def _unfilter(raw, h, rowbytes, bpp):
    """Undoes the per-row PNG filters of the inflated image data."""
    out = np.zeros((h, rowbytes), dtype=np.int32)
    data = np.frombuffer(raw, dtype=np.uint8)
    prior = np.zeros(rowbytes, dtype=np.int32)
    for y in range(h):
        start = y * (rowbytes + 1)
        kind = int(data[start])
        line = data[start + 1:start + 1 + rowbytes].astype(np.int32)
        if kind == 0:
            row = line
        elif kind == 1:
            row = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) & 0xFF
        elif kind == 2:
            row = (line + prior) & 0xFF
        elif kind in (3, 4):
            row = line.copy()
            for i in range(0, rowbytes, bpp):
                up = prior[i:i + bpp]
                left = row[i - bpp:i] if i else np.zeros(bpp, np.int32)
                if kind == 3:
                    pred = (left + up) >> 1
                else:
                    upleft = prior[i - bpp:i] if i else np.zeros(bpp, np.int32)
                    pred = _paeth(left, up, upleft)
                row[i:i + bpp] = (row[i:i + bpp] + pred) & 0xFF
        else:
            raise ValueError(f"bad PNG filter type {kind}")
        out[y] = row
        prior = row
    return out.astype(np.uint8)


def decode_png16(data, max_values):
    """Decodes a 16-bit grey, grey+alpha, RGB or RGBA PNG (not interlaced) to a uint16
    array [height, width, channels].

    Raises:
      ValueError: malformed data, or more than `max_values` samples.
      NotImplementedError: an interlaced 16-bit image.
    """
    if data[:8] != _SIGNATURE:
        raise ValueError("not a PNG file")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise ValueError("truncated PNG chunk")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise ValueError("PNG without IHDR")
    w, h, depth, color_type, _, _, interlace = header
    channels = {v: k for k, v in _COLOR_TYPES.items()}.get(color_type)
    if depth != 16 or channels is None:
        raise ValueError("not a 16-bit grey/RGB(A) PNG")
    if interlace:
        raise NotImplementedError("decoding interlaced 16-bit PNG images")
    if w * h * channels > max_values:
        raise ValueError(f"PNG image of {w}x{h}x{channels} is too large to decode")
    rowbytes = w * channels * 2
    inflater = zlib.decompressobj()
    raw = inflater.decompress(b"".join(idat), h * (rowbytes + 1))
    if len(raw) != h * (rowbytes + 1):
        raise ValueError("truncated PNG image data")
    rows = _unfilter(raw, h, rowbytes, channels * 2)
    return rows.view(">u2").astype(np.uint16).reshape(h, w, channels)


def with_channels(image, channels):
    """A grey(+alpha) / RGB(A) image [h, w, c] as 3 or 4 channels: grey repeated, alpha
    dropped, or an opaque alpha added (the largest value of the dtype)."""
    have = image.shape[2]
    colour = image[:, :, :3] if have >= 3 else np.repeat(image[:, :, :1], 3, axis=2)
    if channels == 3:
        return colour
    alpha = image[:, :, -1:] if have in (2, 4) else \
        np.full_like(image[:, :, :1], np.iinfo(image.dtype).max)
    return np.concatenate([colour, alpha], axis=2)
