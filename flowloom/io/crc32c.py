"""CRC32C (Castagnoli) and TensorFlow's masked form of it.

TF stores checksums "masked" so that a CRC computed over data that itself
contains CRCs does not degenerate (see `mask`). A C implementation from
`google-crc32c` or `crc32c` is used when installed; otherwise a table-driven
pure-Python one, slower but identical in result.
"""

import numpy as np

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_POLY_REVERSED = 0x82F63B78


def _make_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REVERSED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def _extend_python(crc, data):
    """Pure-Python CRC32C: extends `crc` (of earlier bytes) over `data`."""
    table = _TABLE
    crc ^= _U32
    for byte in memoryview(data).cast("B"):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ _U32


def _find_c_extend():
    try:
        import google_crc32c

        if getattr(google_crc32c, "implementation", "c") == "c":
            return lambda crc, data: google_crc32c.extend(crc, bytes(data))
    except ImportError:
        pass
    try:
        import crc32c as crc32c_package

        return lambda crc, data: crc32c_package.crc32c(bytes(data), crc)
    except ImportError:
        pass
    return None


_extend_c = _find_c_extend()
_extend = _extend_c or _extend_python
IMPLEMENTATION = "c" if _extend_c else "python"


def crc32c(data, crc=0):
    """Computes the CRC32C of `data`, or extends a previous one.

    Args:
      data: bytes-like object.
      crc: the CRC32C of the bytes preceding `data` (0 to start fresh).

    Returns:
      The CRC32C as an unsigned 32-bit int.

    Example: `crc32c(b"123456789") == 0xE3069283`.
    """
    return _extend(crc & _U32, data)


def mask(crc):
    """Masks a CRC the way TF stores it: rotate right by 15, add a constant.

    Args:
      crc: unsigned 32-bit CRC.

    Returns:
      The masked CRC, an unsigned 32-bit int.
    """
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def unmask(masked_crc):
    """Inverts `mask`.

    Args:
      masked_crc: a CRC as returned by `mask`.

    Returns:
      The original CRC.
    """
    rotated = (masked_crc - _MASK_DELTA) & _U32
    return ((rotated >> 17) | (rotated << 15)) & _U32


def _find_value():
    try:
        import google_crc32c

        if getattr(google_crc32c, "implementation", "c") == "c":
            return google_crc32c.value
    except ImportError:
        pass
    return lambda data: _extend(0, data)


# crc32c(data) of a bytes object, with the least overhead (framing checks per record).
value = _find_value()


def masked_crc32c(data):
    """Returns `mask(crc32c(data))`, the checksum TFRecord and SSTable files hold."""
    return mask(crc32c(data))


# -- The CRC32C of records of one length laid end to end, from their own CRCs --------------
#
# CRC32C is linear over GF(2): crc(A + B) = Z(crc(A)) ^ crc(B), where Z is the (invertible)
# linear map of the CRC register through len(B) zero bytes (zlib's crc32_combine). For k
# records of length L, crc(m_0 + ... + m_{k-1}) = XOR_i Z_L^(k-1-i)(crc(m_i)). A map is held
# as its 32 columns (the images of the 32 one-bit registers); the powers of Z_L are held as
# byte tables (the image of each byte value at each of a CRC's 4 byte positions), so that
# combining is one gather and one XOR reduction.

# The most records `concatenated_value` combines at once.
MAX_COMBINED = 128
_TABLES = {}  # L -> uint32 [MAX_COMBINED * 4 * 256], Z_L^(MAX_COMBINED-1-j) in block j
_TABLES_KEPT = 8  # 512 KiB each
_BASE = ((np.arange(MAX_COMBINED * 4) * 256).astype(np.intp))


def _apply(columns, values):
    """The maps with `columns` (uint32 [..., 32]) applied to `values` (uint32 [...])."""
    bits = (values[..., None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)
    return np.bitwise_xor.reduce(np.where(bits.astype(bool), columns, np.uint32(0)), axis=-1)


def _byte_tables(length):
    """The byte tables of Z_length^j, j = MAX_COMBINED-1 down to 0 (see above)."""
    table = np.array(_TABLE, np.uint32)
    one = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    step = (one >> np.uint32(8)) ^ table[one & np.uint32(0xFF)]  # Z_1: one zero byte
    z, n = one, length  # the columns of Z_length, by squaring
    while n:
        if n & 1:
            z = _apply(step, z)
        step = _apply(step, step)
        n >>= 1
    powers = one[None, :]  # the columns of Z^j for j < len(powers), doubled each round
    while len(powers) < MAX_COMBINED:
        top = _apply(z, powers[-1])  # Z^len(powers)
        powers = np.concatenate([powers, _apply(top, powers)])
    powers = powers[:MAX_COMBINED][::-1]
    # byte value v at byte position p: the XOR of the columns 8p + t of v's set bits t,
    # built up one bit at a time
    cols = powers.reshape(MAX_COMBINED * 4, 8)
    out = np.zeros((MAX_COMBINED * 4, 256), np.uint32)
    for t in range(8):
        out[:, 1 << t:2 << t] = out[:, :1 << t] ^ cols[:, t:t + 1]
    return out.reshape(-1)


def concatenated_value(crcs, length):
    """The CRC32C of records laid end to end, from each record's own CRC32C.

    Args:
      crcs: uint32 array of the records' CRC32Cs (unmasked), 1 to MAX_COMBINED of them.
      length: the length in bytes of every record (the same for all).

    Returns:
      `crc32c(b"".join(records))` as an int. Checking it against the CRC32C of the joined
      bytes finds any single bad record (data or stored CRC) the per-record checks find: the
      difference a bad record makes is its own error moved through an invertible map.

    Example: `concatenated_value(np.array([value(b"ab"), value(b"cd")], np.uint32), 2) ==
    value(b"abcd")`.
    """
    k = len(crcs)
    if not 0 < k <= MAX_COMBINED:
        raise ValueError(f"concatenated_value combines 1 to {MAX_COMBINED} CRCs, not {k}")
    tables = _TABLES.get(length)
    if tables is None:
        if len(_TABLES) >= _TABLES_KEPT:
            _TABLES.clear()
        tables = _TABLES[length] = _byte_tables(length)
    at = _BASE[(MAX_COMBINED - k) * 4:] + np.asarray(crcs, "<u4").view(np.uint8)
    return int(np.bitwise_xor.reduce(tables.take(at)))
