"""Decoding strings into numbers: DecodeRaw (`tf.decode_raw`) and DecodeCSV (`tf.decode_csv`)."""

import re

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


# -- DecodeRaw -------------------------------------------------------------------------------------
_RAW_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16,
              dtypes.uint8, dtypes.int16, dtypes.int8, dtypes.int64, dtypes.complex64,
              dtypes.complex128, dtypes.bool_, dtypes.bfloat16)
DecodeRaw = defop("DecodeRaw", inputs=["bytes: string"], outputs=["output: out_type"],
                  attrs={"out_type": None, "little_endian": True},
                  allowed_types={"out_type": _RAW_TYPES})
NotDifferentiable("DecodeRaw")


@DecodeRaw.shape
def _(op):
    return op.inputs[0].shape.concatenate([None])


def _type_string(dtype):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                          dtype.name)


@DecodeRaw.kernel
def _(xp, data, *, out_type, little_endian):
    if type(data) is np.ndarray and data.shape == () and data.dtype == object:
        one = data.item()  # one record (a reader's value): no join, no checks across strings
        npt = np.dtype(out_type.as_numpy_dtype)
        if type(one) is bytes and len(one) % npt.itemsize == 0:
            wire = npt.newbyteorder("<" if little_endian else ">") if npt.itemsize > 1 else npt
            return np.frombuffer(one, dtype=wire).astype(npt)
    data = np.asarray(data, dtype=object)
    flat = [bytes(x) for x in data.reshape(-1)]
    npt = np.dtype(out_type.as_numpy_dtype)
    width = npt.itemsize
    if not flat:
        return np.zeros(data.shape + (0,), dtype=npt)
    size = len(flat[0])
    if size % width:
        raise _invalid(f"Input to DecodeRaw has length {size} that is not a multiple of "
                       f"{width}, the size of {_type_string(out_type)}")
    for i, x in enumerate(flat):
        if len(x) != size:
            raise _invalid("DecodeRaw requires input strings to all be the same size, but "
                           f"element {i} has size {size} != {len(x)}")
    order = "<" if little_endian else ">"
    wire = npt.newbyteorder(order) if width > 1 else npt
    out = np.frombuffer(b"".join(flat), dtype=wire).astype(npt)
    return out.reshape(data.shape + (size // width,))


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):
    """Reinterprets the bytes of each string as a vector of numbers (`tf.decode_raw`).

    Args:
      input_bytes: a string tensor; every element must have the same length.
      out_type: the element type (tf.float32, tf.uint8, tf.int64, ...).
      little_endian: the byte order of the input.
      name: name of the op.
      bytes: deprecated spelling of `input_bytes`.

    Returns:
      A tensor of `out_type` with shape `input_bytes.shape + [length / element size]`.

    Raises:
      ValueError: if both or neither of `input_bytes` and `bytes` are given.
    """
    if (input_bytes is None) == (bytes is None):
        raise ValueError("Exactly one of `input_bytes` and `bytes` must be set")
    value = input_bytes if input_bytes is not None else bytes
    return apply_op("DecodeRaw", (value,), name=name, out_type=dtypes.as_dtype(out_type),
                    little_endian=little_endian).outputs[0]


# -- DecodeCSV -------------------------------------------------------------------------------------
_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
DecodeCSV = defop("DecodeCSV", inputs=["records: string", "record_defaults: list(OUT_TYPE)"],
                  outputs=["output: list(OUT_TYPE)"],
                  attrs={"field_delim": ",", "use_quote_delim": True, "na_value": "",
                         "select_cols": []})
NotDifferentiable("DecodeCSV")


@DecodeCSV.shape
def _(op):
    for i, d in enumerate(op.inputs[1:]):
        if d.shape.ndims is not None and d.shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {d.shape.ndims}")
        del i
    return [op.inputs[0].shape] * (len(op.inputs) - 1)


def split_csv_record(record, delim, use_quote_delim):
    """Splits one CSV record into fields as TF's DecodeCSV does (RFC 4180 quotes).

    Raises:
      InvalidArgumentError: for quotes in unquoted fields or an unterminated quote.
    """
    fields = []
    i, n = 0, len(record)
    quote, nl, cr = ord('"'), ord("\n"), ord("\r")
    while i < n:
        if record[i] in (nl, cr):
            i += 1
            continue
        quoted = use_quote_delim and record[i] == quote
        if quoted:
            i += 1
        field = bytearray()
        if not quoted:
            while i < n and record[i] != delim:
                c = record[i]
                if (use_quote_delim and c == quote) or c in (nl, cr):
                    raise _invalid("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(c)
                i += 1
            i += 1
        else:
            while i < n - 1 and (record[i] != quote or record[i + 1] != delim):
                if record[i] != quote:
                    field.append(record[i])
                    i += 1
                else:
                    if record[i + 1] != quote:
                        raise _invalid("Quote inside a string has to be escaped by another "
                                       "quote")
                    field.append(quote)
                    i += 2
            if not (i < n and record[i] == quote and (i == n - 1 or record[i + 1] == delim)):
                raise _invalid("Quoted field has to end with quote followed by delim or end")
            i += 2
        fields.append(bytes(field))
    if record and record[-1] == delim:
        fields.append(b"")
    return fields


_INT_RE = re.compile(rb"^\s*[+-]?\d+\s*$")
_FLOAT_RE = re.compile(rb"^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|"
                       rb"nan)\s*$", re.IGNORECASE)
_INT_RANGE = {dtypes.int32: (-2**31, 2**31 - 1), dtypes.int64: (-2**63, 2**63 - 1)}


def _convert_field(text, dtype, f, i):
    if dtype == dtypes.string:
        return text
    kind = _type_string(dtype)
    if dtype in _INT_RANGE:
        lo, hi = _INT_RANGE[dtype]
        if _INT_RE.match(text) and lo <= int(text) <= hi:
            return int(text)
    elif _FLOAT_RE.match(text):
        return float(text)
    raise _invalid(f"Field {f} in record {i} is not a valid {kind}: "
                   f"{text.decode('utf-8', 'replace')}")


@DecodeCSV.kernel
def _(xp, records, *defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
      select_cols):
    if len(field_delim) != 1:
        raise _invalid("field_delim should be only 1 char")
    delim = field_delim.encode()[0] if isinstance(field_delim, str) else field_delim[0]
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    types = [dtypes.as_dtype(t) for t in OUT_TYPE]
    for f, d in enumerate(defaults):
        if np.size(d) > 1:
            raise _invalid(f"There should only be 1 default per field but field {f} has "
                           f"{np.size(d)}")
    records = np.asarray(records, dtype=object)
    columns = [[] for _ in types]
    for i, record in enumerate(records.reshape(-1)):
        fields = split_csv_record(bytes(record), delim, use_quote_delim)
        if select_cols:
            if len(fields) <= select_cols[-1]:
                # TF counts the selected columns the record has.
                have = sum(1 for c in select_cols if c < len(fields))
                raise _invalid(f"Expect {len(types)} fields but have {have} in record {i}")
            fields = [fields[c] for c in select_cols]
        if len(fields) != len(types):
            raise _invalid(f"Expect {len(types)} fields but have {len(fields)} in record {i}")
        for f, (text, dtype) in enumerate(zip(fields, types)):
            if not text or text == na:
                if np.size(defaults[f]) != 1:
                    raise _invalid(f"Field {f} is required but missing in record {i}!")
                columns[f].append(np.asarray(defaults[f]).reshape(-1)[0])
            else:
                columns[f].append(_convert_field(text, dtype, f, i))
    out = []
    for column, dtype in zip(columns, types):
        arr = np.empty(len(column), dtype=object) if dtype == dtypes.string else \
            np.array(column, dtype=dtype.as_numpy_dtype)
        if dtype == dtypes.string:
            arr[:] = column
        out.append(arr.reshape(records.shape))
    return out


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Converts CSV records to one tensor per column (`tf.decode_csv`).

    Args:
      records: a string tensor; each element is one CSV line.
      record_defaults: one tensor per column: its type, and its default for empty fields
        (`[]` makes the column required). Types: float32, float64, int32, int64, string.
      field_delim: the one-character field separator.
      use_quote_delim: treat double quotes as RFC 4180 quoting.
      name: name of the op.
      na_value: a field equal to this is treated as missing.
      select_cols: optional sorted column indices to keep.

    Returns:
      A list of tensors shaped like `records`, one per column.

    Raises:
      ValueError: for invalid `select_cols`.
    """
    if not isinstance(record_defaults, (list, tuple)):
        raise TypeError(f"Expected list for 'record_defaults' argument to 'DecodeCSV' Op, not "
                        f"{record_defaults}.")
    if select_cols is not None:
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = []
    for d in record_defaults:
        t = convert_to_tensor(d, name="record_defaults")
        if t.dtype.base_dtype not in _CSV_TYPES:
            raise TypeError(f"Value passed to parameter 'record_defaults' has DataType "
                            f"{t.dtype.name} not in list of allowed values: float32, float64, "
                            "int32, int64, string")
        defaults.append(t)
    op = apply_op("DecodeCSV", (records, defaults), name=name, field_delim=field_delim,
                  use_quote_delim=use_quote_delim, na_value=na_value,
                  select_cols=list(select_cols or []))
    return op.outputs

