"""tf.data.experimental's file ops: DatasetToTFRecord (TFRecordWriter.write) and SqlDataset
(the rows of a SQLite query), under TF 1.15's op type names."""

import re

import numpy as np

from flowloom.framework import errors
from flowloom.framework.op_def import defop
from flowloom.ops.data import dataset_values as dv
from flowloom.ops.data.dataset_ops import _dataset, _text

DatasetToTFRecord = defop("DatasetToTFRecord", inputs=[
    "input_dataset: variant", "filename: string", "compression_type: string"], stateful=True)
DatasetToTFRecord.shape(lambda op: [])
DatasetToTFRecord.no_gradient()


@DatasetToTFRecord.kernel
def _(xp, dataset, filename, compression_type, *, ctx):
    from flowloom.io.tfrecord import TFRecordOptions, TFRecordWriter

    compression = _text(compression_type)
    if compression not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, ctx.op,
                                          f"Unsupported compression_type: {compression}")
    with TFRecordWriter(_text(filename), TFRecordOptions(compression or None)) as writer:
        for (record,) in dataset.iterate():
            value = np.asarray(record).item()
            writer.write(value if isinstance(value, bytes) else str(value).encode())
    return ()


SqlDataset = _dataset("SqlDataset", ["driver_name: string", "data_source_name: string",
                                     "query: string"])

_SQL_TYPES = ("string", "int8", "int16", "int32", "int64", "uint8", "uint16", "bool",
              "float64")
_LEADING_INT = re.compile(rb"\s*[+-]?\d+")
_LEADING_FLOAT = re.compile(rb"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")


@SqlDataset.kernel
def _(xp, driver_name, data_source_name, query, *, output_types, output_shapes, ctx):
    driver = _text(driver_name)
    if driver != "sqlite":
        raise errors.InvalidArgumentError(
            None, ctx.op, f"The database type, {driver}, is not supported by SqlDataset. The "
            "set of supported databases is: {'sqlite'}.")
    for t in output_types:
        if t.name not in _SQL_TYPES:
            raise errors.InvalidArgumentError(
                None, ctx.op, "Each element of `output_types_` must be one of: DT_STRING, "
                "DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_BOOL, DT_DOUBLE ")
    return SqlValue(_text(data_source_name), _text(query), list(output_types), ctx.op)


def _sql_int(v):
    """A column as SQLite's sqlite3_column_int64 reads it (NULL 0, text's leading digits)."""
    if v is None:
        return 0
    if isinstance(v, (int, float)):
        return int(v)
    m = _LEADING_INT.match(v if isinstance(v, bytes) else str(v).encode())
    return int(m.group()) if m else 0


def _sql_float(v):
    if v is None:
        return 0.0
    if isinstance(v, (int, float)):
        return float(v)
    m = _LEADING_FLOAT.match(v if isinstance(v, bytes) else str(v).encode())
    return float(m.group()) if m else 0.0


def _sql_bytes(v):
    if v is None:
        return b""
    if isinstance(v, bytes):
        return v
    return str(v).encode("utf-8")


class SqlValue(dv.DatasetValue):
    """The rows of `query` on the SQLite database `path` (opened read-only), each column
    converted to its output type as TF's SQLite reader converts it."""

    def __init__(self, path, query, types, op):
        self.path, self.query, self.types, self.op = path, query, types, op

    def _convert(self, row):
        out = []
        for v, t in zip(row, self.types):
            if t.name == "string":
                out.append(np.array(_sql_bytes(v), dtype=object))
            elif t.name == "float64":
                out.append(np.array(_sql_float(v), np.float64))
            elif t.name == "bool":
                out.append(np.array(_sql_int(v) != 0))
            else:
                out.append(np.array(_sql_int(v)).astype(t.as_numpy_dtype))
        return tuple(out)

    def iterate(self):
        import sqlite3
        import urllib.parse

        uri = "file:" + urllib.parse.quote(self.path) + "?mode=ro"
        try:
            connection = sqlite3.connect(uri, uri=True)
        except sqlite3.Error as e:
            raise errors.UnknownError(None, self.op, f"Opening the database {self.path} "
                                      f"failed: {e}") from None
        try:
            try:
                cursor = connection.execute(self.query)
            except sqlite3.Error as e:
                raise errors.UnknownError(None, self.op,
                                          f"Prepare() failed: {e}: {self.query}") from None
            columns = len(cursor.description or ())
            if columns != len(self.types):
                raise errors.InvalidArgumentError(
                    None, self.op, f"The number of columns in query ({columns}) must match the "
                    f"number of elements in output_types ({len(self.types)}).")
            while True:
                try:
                    row = cursor.fetchone()
                except sqlite3.Error as e:
                    raise errors.UnknownError(None, self.op, f"Step failed: {e}") from None
                if row is None:
                    return
                yield self._convert(row)
        finally:
            connection.close()
