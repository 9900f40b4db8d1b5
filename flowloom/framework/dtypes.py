"""Data types (`tf.DType`), with TensorFlow's names and DataType enum numbers."""

import sys

import numpy as np


class DType:
    """A tensor element type: `tf.float32`, `tf.int64`, ... and their `_ref` variants."""

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name=None, np_type=None):
        if name is None:  # TF's DType(types_pb2 enum): the registered type of that enum
            known = _BY_ENUM.get(enum)
            if known is None:
                raise TypeError(f"types_pb2.DataType {enum} is not a DataType flowloom knows")
            name, np_type = known._name, known._np
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
        np_type = self.base_dtype._np
        if np_type is None and self._enum % 100 == 14:
            np_type = _load_bfloat16()  # ml_dtypes' bfloat16, imported on first use
        return np_type

    @property
    def is_floating(self):
        return self._enum % 100 in _FLOATING_ENUMS  # a set of enums: no DType.__eq__ calls

    @property
    def is_integer(self):
        return self._enum % 100 in _INTEGER_ENUMS

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
        return self.as_numpy_dtype is not None

    @property
    def is_quantized(self):
        return self.base_dtype in _QUANTIZED

    @property
    def size(self):
        if self.base_dtype in (string, resource, variant):
            return 1
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self):
        b = self.base_dtype
        if b._enum in _NO_NUMPY_LIMITS:
            return _NO_NUMPY_LIMITS[b._enum][0]
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
        if b._enum in _NO_NUMPY_LIMITS:
            return _NO_NUMPY_LIMITS[b._enum][1]
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


# TF's structured NumPy stand-ins for the quantized types (tf.qint8.as_numpy_dtype).
_np_qint8 = np.dtype([("qint8", np.int8)])
_np_quint8 = np.dtype([("quint8", np.uint8)])
_np_qint16 = np.dtype([("qint16", np.int16)])
_np_quint16 = np.dtype([("quint16", np.uint16)])
_np_qint32 = np.dtype([("qint32", np.int32)])

_specs = [
    (1, "float32", np.float32), (2, "float64", np.float64), (3, "int32", np.int32),
    (4, "uint8", np.uint8), (5, "int16", np.int16), (6, "int8", np.int8),
    (7, "string", np.object_), (8, "complex64", np.complex64), (9, "int64", np.int64),
    (10, "bool", np.bool_), (11, "qint8", _np_qint8), (12, "quint8", _np_quint8),
    (13, "qint32", _np_qint32), (14, "bfloat16", None), (15, "qint16", _np_qint16),
    (16, "quint16", _np_quint16), (17, "uint16", np.uint16),
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
qint8 = _BY_ENUM[11]
quint8 = _BY_ENUM[12]
qint32 = _BY_ENUM[13]
bfloat16 = _BY_ENUM[14]
# The range of the types NumPy has no type for (bfloat16: float32's exponent, 8 bits of
# mantissa), as TF 1.15 gives it.
_NO_NUMPY_LIMITS = {14: (float.fromhex("-0x1.FEp127"), float.fromhex("0x1.FEp127"))}
qint16 = _BY_ENUM[15]
quint16 = _BY_ENUM[16]
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

# Every reference type as TF names them (uint8_ref, string_ref, ...), and TF's enum -> name.
for _d in [d for e, d in _BY_ENUM.items() if e > 100]:
    globals().setdefault(_d.name, _d)
double_ref, half_ref = float64_ref, _BY_ENUM[119]
_TYPE_TO_STRING = {e: d.name for e, d in _BY_ENUM.items()}

_INTEGERS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
_INTEGER_ENUMS = frozenset(d._enum for d in _INTEGERS)
_FLOATING_ENUMS = frozenset(d._enum for d in (float16, float32, float64, bfloat16))
_QUANTIZED = (qint8, quint8, qint16, quint16, qint32)
QUANTIZED_DTYPES = frozenset(_QUANTIZED + tuple(_BY_ENUM[d.as_datatype_enum + 100]
                                                for d in _QUANTIZED))

# What `as_dtype` accepts, as TF's `_ANY_TO_TF` table holds it: DataType enums, the type names
# (with TF's aliases "float", "double", "half" and their `_ref` forms), three Python types
# (float, bool, object; TF refuses int, str, bytes and complex) and NumPy scalar types.
_BY_NAME = {d.name: d for d in _BY_ENUM.values()}
for _alias, _canonical in (("float", "float32"), ("double", "float64"), ("half", "float16")):
    _BY_NAME[_alias] = _BY_NAME[_canonical]
    _BY_NAME[_alias + "_ref"] = _BY_NAME[_canonical + "_ref"]
_BY_NP = {}
for _enum, _d in _BY_ENUM.items():
    if _enum < 100 and _d._np is not None:
        _BY_NP[_d._np] = _d
_BY_NP[np.str_] = string
_BY_NP[np.bytes_] = string
_BY_NP_DTYPE = {np.dtype(t): d for t, d in _BY_NP.items() if np.dtype(t).fields is None}
_BY_PYTHON = {float: float32, bool: bool_, object: string}
_ANY = {**_BY_ENUM, **_BY_NAME, **_BY_PYTHON, **_BY_NP}


def as_dtype(type_value):
    """Converts the given `type_value` to a `DType`.

    Args:
      type_value: a `DType`, a DataType enum number, a type name (`"float32"`, `"float"`,
        `"double"`, `"int32"`, `"string"`, `"float32_ref"`, ...), a NumPy type or dtype
        (`np.float32`, `np.dtype("int64")`), or one of the Python types `float`, `bool` and
        `object`, exactly as TensorFlow's `tf.as_dtype` accepts them.

    Returns:
      A `DType` corresponding to `type_value`.

    Raises:
      TypeError: If `type_value` cannot be converted to a `DType`.

    For example, `tf.placeholder("float", [None, 784])` makes a float32 placeholder.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, type) and issubclass(type_value, np.generic):
        type_value = np.dtype(type_value)  # np.longlong and np.int64 are one dtype
    if isinstance(type_value, np.dtype) and type_value.fields is None:
        found = _BY_NP_DTYPE.get(type_value) or _BY_NP.get(type_value.type)
        if found is not None:
            return found
    try:
        return _ANY[type_value]
    except (KeyError, TypeError):
        pass
    if hasattr(type_value, "dtype"):
        try:
            return _BY_NP[np.dtype(type_value.dtype).type]
        except (KeyError, TypeError):
            pass
    if bfloat16._np is None and "ml_dtypes" in sys.modules and _load_bfloat16() is not None:
        return as_dtype(type_value)  # an ml_dtypes.bfloat16 before flowloom first needed it
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


def type_string(dtype):
    """TF's DataTypeString, the type name its C++ messages use: 'float' for float32, 'double'
    for float64, 'half' for float16, a `_ref` suffix for reference types."""
    base = dtype.base_dtype.name
    name = {"float32": "float", "float64": "double", "float16": "half"}.get(base, base)
    return name + "_ref" if dtype.is_ref_dtype else name


_bfloat16_missing = False


def _load_bfloat16():
    """NumPy's bfloat16 type (the `ml_dtypes` package's, as TF's own and JAX's), registered as
    tf.bfloat16's NumPy type on first use so that `import flowloom` does not import it; None
    where ml_dtypes is not installed (bfloat16 tensors then hold float64 values)."""
    global _bfloat16_missing
    if bfloat16._np is not None or _bfloat16_missing:
        return bfloat16._np
    try:
        import ml_dtypes
    except ImportError:
        _bfloat16_missing = True
        return None
    np_type = ml_dtypes.bfloat16
    for enum in (14, 114):
        _BY_ENUM[enum]._np = np_type
    _BY_NP[np_type] = bfloat16
    _BY_NP_DTYPE[np.dtype(np_type)] = bfloat16
    _ANY[np_type] = bfloat16
    return np_type
