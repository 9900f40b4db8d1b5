"""Data types (`tf.DType`), with TensorFlow's names and DataType enum numbers."""

import numpy as np


class DType:
    """A tensor element type: `tf.float32`, `tf.int64`, ... and their `_ref` variants."""

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name, np_type):
        self._enum = enum
        self._name = name
        self._np = np_type

    @property
    def name(self):
        return self._name

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def is_ref_dtype(self):
        return self._enum > 100

    @property
    def base_dtype(self):
        return _BY_ENUM[self._enum - 100] if self._enum > 100 else self

    @property
    def real_dtype(self):
        b = self.base_dtype
        return {complex64: float32, complex128: float64}.get(b, b)

    @property
    def _as_ref(self):
        return self if self._enum > 100 else _BY_ENUM[self._enum + 100]

    @property
    def as_numpy_dtype(self):
        return self.base_dtype._np

    @property
    def is_floating(self):
        return self.base_dtype in (float16, float32, float64, bfloat16)

    @property
    def is_integer(self):
        return self.base_dtype in _INTEGERS

    @property
    def is_unsigned(self):
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def is_complex(self):
        return self.base_dtype in (complex64, complex128)

    @property
    def is_bool(self):
        return self.base_dtype is bool_

    @property
    def is_numpy_compatible(self):
        return self.base_dtype._np is not None

    @property
    def is_quantized(self):
        return False

    @property
    def size(self):
        if self.base_dtype in (string, resource, variant):
            return 1
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self):
        b = self.base_dtype
        if b.is_floating:
            return float(np.finfo(b._np).min)
        if b.is_integer:
            return int(np.iinfo(b._np).min)
        if b.is_bool:
            return False
        raise TypeError(f"Cannot find minimum value of {b}.")

    @property
    def max(self):
        b = self.base_dtype
        if b.is_floating:
            return float(np.finfo(b._np).max)
        if b.is_integer:
            return int(np.iinfo(b._np).max)
        if b.is_bool:
            return True
        raise TypeError(f"Cannot find maximum value of {b}.")

    def is_compatible_with(self, other):
        other = as_dtype(other)
        return self._enum in (other._enum, other.base_dtype._enum)

    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self._enum == other._enum
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


_specs = [
    (1, "float32", np.float32), (2, "float64", np.float64), (3, "int32", np.int32),
    (4, "uint8", np.uint8), (5, "int16", np.int16), (6, "int8", np.int8),
    (7, "string", np.object_), (8, "complex64", np.complex64), (9, "int64", np.int64),
    (10, "bool", np.bool_), (14, "bfloat16", None), (17, "uint16", np.uint16),
    (18, "complex128", np.complex128), (19, "float16", np.float16), (20, "resource", None),
    (21, "variant", None), (22, "uint32", np.uint32), (23, "uint64", np.uint64),
]
_BY_ENUM = {}
for _enum, _name, _np_type in _specs:
    _BY_ENUM[_enum] = DType(_enum, _name, _np_type)
    _BY_ENUM[_enum + 100] = DType(_enum + 100, _name + "_ref", _np_type)

float32 = _BY_ENUM[1]
float64 = double = _BY_ENUM[2]
int32 = _BY_ENUM[3]
uint8 = _BY_ENUM[4]
int16 = _BY_ENUM[5]
int8 = _BY_ENUM[6]
string = _BY_ENUM[7]
complex64 = _BY_ENUM[8]
int64 = _BY_ENUM[9]
bool_ = _BY_ENUM[10]
bfloat16 = _BY_ENUM[14]
uint16 = _BY_ENUM[17]
complex128 = _BY_ENUM[18]
float16 = half = _BY_ENUM[19]
resource = _BY_ENUM[20]
variant = _BY_ENUM[21]
uint32 = _BY_ENUM[22]
uint64 = _BY_ENUM[23]
float32_ref = _BY_ENUM[101]
float64_ref = _BY_ENUM[102]
int32_ref = _BY_ENUM[103]
int64_ref = _BY_ENUM[109]
bool_ref = _BY_ENUM[110]

_INTEGERS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

_BY_NAME = {d.name: d for d in _BY_ENUM.values()}
_BY_NAME["double"] = float64
_BY_NAME["half"] = float16
_BY_NP = {np.dtype(d._np): d for e, d in _BY_ENUM.items() if e < 100 and d._np is not None}
_BY_NP[np.dtype(np.str_)] = string
_BY_NP[np.dtype(np.bytes_)] = string


def as_dtype(type_value):
    """Converts a DType, name, numpy dtype or DataType enum to a `DType`."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, int) and not isinstance(type_value, bool):
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
    elif isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
    else:
        if type_value is bool:
            return bool_
        if type_value is float:
            return float32
        if type_value is int:
            return int32
        if type_value in (str, bytes):
            return string
        try:
            npd = np.dtype(type_value)
        except TypeError:
            npd = None
        if npd is not None:
            if npd.kind in ("U", "S"):
                return string
            if npd in _BY_NP:
                return _BY_NP[npd]
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
