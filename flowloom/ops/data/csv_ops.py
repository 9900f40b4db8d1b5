"""CSVDataset (`tf.data.experimental.CsvDataset`): the records of CSV files, one scalar tensor
per selected column.

As TF 1.15's kernel: each line is a record (a header line skipped per file); fields split at
`field_delim`; with `use_quote_delim` a field may be quoted ("" inside is a quote); an empty
field or one equal to `na_value` takes its column's default, and a column without one (an
empty default) makes the record fail; numbers parse strictly.
"""

import numpy as np

from flowloom.framework import common_shapes, dtypes, errors
from flowloom.framework.op_def import defop
from flowloom.ops.data import dataset_values as dv

CSVDataset = defop("CSVDataset", inputs=[
    "filenames: string", "compression_type: string", "buffer_size: int64", "header: bool",
    "field_delim: string", "use_quote_delim: bool", "na_value: string", "select_cols: int64",
    "record_defaults: list(output_types)"], outputs=["handle: variant"],
    attrs={"output_types": None, "output_shapes": None}, stateful=True)
CSVDataset.shape(common_shapes.scalar_shape)
CSVDataset.no_gradient()

_INT_RANGES = {dtypes.int32: (-(1 << 31), (1 << 31) - 1), dtypes.int64: (-(1 << 63), (1 << 63) - 1)}


def _text(x):
    v = np.asarray(x).item()
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _bytes(x):
    v = np.asarray(x).item()
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


@CSVDataset.kernel
def _(xp, filenames, compression_type, buffer_size, header, field_delim, use_quote_delim,
      na_value, select_cols, *record_defaults, output_types, output_shapes, ctx):
    delim = _bytes(field_delim)
    if len(delim) != 1:
        raise errors.InvalidArgumentError(None, ctx.op, "field_delim should be only 1 char")
    cols = [int(c) for c in np.asarray(select_cols).reshape(-1)]
    if any(b <= a for a, b in zip(cols, cols[1:])):
        raise errors.InvalidArgumentError(None, ctx.op,
                                          "select_cols should be strictly increasing indices")
    if cols and cols[0] < 0:
        raise errors.InvalidArgumentError(None, ctx.op, "select_cols should be non-negative "
                                          "indices")
    if cols and len(cols) != len(record_defaults):
        raise errors.InvalidArgumentError(
            None, ctx.op, "select_cols should have the same length as record_defaults")
    defaults = []
    for i, d in enumerate(record_defaults):
        d = np.asarray(d)
        if d.size > 1:
            raise errors.InvalidArgumentError(
                None, ctx.op, f"There should only be 1 default per field but field {i} has "
                f"{d.size}")
        defaults.append(d.reshape(-1)[0] if d.size else None)
    return CsvValue(dv._filenames(filenames, ctx.op), _text(compression_type), bool(header),
                    delim, bool(use_quote_delim), _bytes(na_value), cols, defaults,
                    list(output_types), ctx.op)


class CsvValue(dv.DatasetValue):
    def __init__(self, files, compression, header, delim, quoted, na_value, cols, defaults,
                 types, op):
        self.files, self.compression, self.header = files, compression, header
        self.delim, self.quoted, self.na_value = delim, quoted, na_value
        self.cols, self.defaults, self.types, self.op = cols, defaults, types, op

    def iterate(self):
        for path in self.files:
            with dv._open(path, self.compression, self.op) as f:
                for k, line in enumerate(f):
                    if k == 0 and self.header:
                        continue
                    line = line[:-1] if line.endswith(b"\n") else line
                    yield self._record(line[:-1] if line.endswith(b"\r") else line)

    def _fail(self, message):
        raise errors.InvalidArgumentError(None, self.op, message)

    def _split(self, line):
        fields, i, n, d = [], 0, len(line), self.delim[0]
        while True:
            if self.quoted and i < n and line[i] == 0x22:  # '"'
                value, i = bytearray(), i + 1
                while True:
                    if i >= n:
                        self._fail("Quoted field has to end with quote followed by delim or "
                                   "end")
                    if line[i] == 0x22:
                        if i + 1 < n and line[i + 1] == 0x22:
                            value.append(0x22)
                            i += 2
                            continue
                        i += 1
                        break
                    value.append(line[i])
                    i += 1
                if i < n and line[i] != d:
                    self._fail("Quote inside a string has to be escaped by another quote")
                fields.append(bytes(value))
            else:
                end = line.find(self.delim, i)
                end = n if end < 0 else end
                value = line[i:end]
                if self.quoted and b'"' in value:
                    self._fail("Unquoted fields cannot have quotes/CRLFs inside")
                fields.append(value)
                i = end
            if i >= n:
                return fields
            i += 1  # past the delimiter

    def _record(self, line):
        # field by field, as TF's kernel: a missing required field fails before a short record
        fields = self._split(line)
        cols = self.cols or range(len(self.types))
        out = []
        for i, c in enumerate(cols):
            if c >= len(fields):
                have = sum(1 for k in cols if k < len(fields))
                self._fail(f"Expect {len(self.types)} fields but have {have} in record")
            out.append(self._value(i, fields[c]))
        if not self.cols and len(fields) > len(self.types):
            self._fail(f"Expect {len(self.types)} fields but have more in record")
        return tuple(out)

    def _value(self, i, field):
        dtype = self.types[i]
        if not field or field == self.na_value:
            if self.defaults[i] is None:
                self._fail(f"Field {i} is required but missing in record!")
            return np.array(self.defaults[i], dtype=dtype.as_numpy_dtype)
        if dtype == dtypes.string:
            return np.array(field, dtype=object)
        text = field.decode("utf-8", errors="replace")
        try:
            if dtype.is_integer:
                value = int(text.strip(), 10)
                low, high = _INT_RANGES[dtype]
                if not low <= value <= high:
                    raise ValueError(text)
            else:
                value = float(text)
        except ValueError:
            self._fail(f"Field {i} in record is not a valid {dtype.name}: {text}")
        return np.array(value, dtype=dtype.as_numpy_dtype)
