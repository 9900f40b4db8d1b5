"""CRC32C (Castagnoli) and TensorFlow's masked form of it.

TF stores checksums "masked" so that a CRC computed over data that itself
contains CRCs does not degenerate (see `mask`). A C implementation from
`google-crc32c` or `crc32c` is used when installed; otherwise a table-driven
pure-Python one, slower but identical in result.
"""

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
