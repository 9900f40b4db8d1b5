"""`tf.data.experimental.CsvDataset` (`tf.contrib.data.CsvDataset`): the records of CSV
files as tuples of scalars, one per column (the CSVDataset op, ops/data/csv_ops.py)."""

from flowloom.data import structure
from flowloom.data.dataset import Dataset, _FileDataset, _i64
from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array.array_ops import constant

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


class CsvDataset(_FileDataset):
    """The records of CSV files: each element a tuple with one scalar per (selected) column.

    Args:
      filenames: a string, list of strings or string tensor of file names.
      record_defaults: one entry per column: a dtype (float32, float64, int32, int64 or
        string: the column is required) or a default value (used where a field is empty).
      compression_type: "", "GZIP" or "ZLIB".
      buffer_size: read buffer size in bytes (accepted).
      header: whether each file's first line is a header to skip.
      field_delim: the one-character field separator.
      use_quote_delim: whether double quotes may enclose fields.
      na_value: a field text that counts as missing.
      select_cols: sorted column indices to keep (default: all columns).

    Example:
      ds = tf.data.experimental.CsvDataset(["a.csv"], [tf.int32, 0.0], header=True)
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None):
        filenames = self._filenames(filenames)
        compression = self._compression(compression_type)
        defaults = []
        for i, d in enumerate(record_defaults):
            if isinstance(d, dtypes.DType) or (isinstance(d, type) and d in (float, int, str)):
                d = dtypes.as_dtype(d)
                if d not in _CSV_TYPES:
                    raise TypeError(f"Failed to convert object of type {type(d)} to Tensor. "
                                    f"Contents: {d!r}. Consider casting elements to a "
                                    "supported type.")
                defaults.append(constant([], dtype=d))
            else:
                defaults.append(convert_to_tensor(d, name="record_defaults_%d" % i))
        for d in defaults:
            if d.dtype not in _CSV_TYPES:
                raise TypeError(f"CsvDataset: a column of {d.dtype.name}: only float32, "
                                "float64, int32, int64 and string columns are read")
        spec = tuple(structure.TensorSpec(d.dtype, []) for d in defaults)
        inputs = (filenames, compression,
                  _i64(4 * 1024 * 1024 if buffer_size is None else buffer_size, "buffer_size"),
                  convert_to_tensor(header, dtype=dtypes.bool_, name="header"),
                  convert_to_tensor(field_delim, dtype=dtypes.string, name="field_delim"),
                  convert_to_tensor(use_quote_delim, dtype=dtypes.bool_, name="use_quote_delim"),
                  convert_to_tensor(na_value, dtype=dtypes.string, name="na_value"),
                  _i64([] if select_cols is None else select_cols, "select_cols"), defaults)
        variant = apply_op("CSVDataset", inputs, **structure.op_attrs(spec)).outputs[0]
        Dataset.__init__(self, variant, spec)


CsvDatasetV1 = CsvDatasetV2 = CsvDataset
