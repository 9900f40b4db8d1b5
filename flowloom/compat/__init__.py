"""`tf.compat`: `tf.compat.v1` (flowloom itself) and the bytes/text helpers.

This package also maps the `tensorflow` modules onto flowloom for `flowloom run` and
`flowloom.install_as_tensorflow()` (flowloom/compat/importer.py, module_map.py).
"""

import collections.abc as collections_abc  # noqa: F401  (TF 1.15's compat.collections_abc)
import sys as _sys

import numpy as _np

from flowloom.compat.forward_compat import (forward_compatibility_horizon,  # noqa: F401
                                            forward_compatible)

v1 = _sys.modules["flowloom"]
_sys.modules[__name__ + ".v1"] = v1

integral_types = (int, _np.integer)
real_types = (int, float, _np.integer, _np.floating)
complex_types = (int, float, complex, _np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """Converts `bytes_or_text` (bytes, bytearray or str) to bytes, encoding str."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """Converts `bytes_or_text` (bytes or str) to str, decoding bytes."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % bytes_or_text)


as_str = as_text
as_str_any = lambda value: as_str(value) if isinstance(value, bytes) else str(value)  # noqa: E731
