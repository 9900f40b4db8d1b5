"""Hash-table ops with TF's op types: HashTableV2 and the LookupTable*/InitializeTable* ops.

`HashTableV2` is stateful: its first run in a session creates the table as a session resource
under (container, shared_name or op name), as the queue handles do; the other ops take the
handle as their first input. A table is filled once by `InitializeTableV2` (keys and values
tensors) or `InitializeTableFromTextFileV2` (a vocabulary file) and is read-only after that,
as TF's static tables are: a second initialisation with the same data is accepted, with
different data it fails.
"""

import numpy as np

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.io import file_system

WHOLE_LINE = -2
LINE_NUMBER = -1
_MAX_VOCAB_BYTES = 1 << 30


def _key(value, dtype):
    if dtype == dtypes_lib.string:
        return value if isinstance(value, bytes) else str(value).encode("utf-8")
    if dtype.is_integer:
        return int(value)
    return value.item() if hasattr(value, "item") else value


class StaticHashTable:
    """A session's read-only hash table (TF's HashTable resource)."""

    def __init__(self, name, key_dtype, value_dtype):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.table = None

    def initialize(self, keys, values):
        keys = [_key(k, self.key_dtype) for k in np.asarray(keys, dtype=object).ravel()]
        values = np.asarray(values).ravel()
        if len(keys) != len(values):
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {list(np.shape(keys))} for values, got "
                f"{list(values.shape)}")
        table = {}
        for k, v in zip(keys, values):
            if k in table and table[k] != v:
                raise errors.FailedPreconditionError(
                    None, None, f"HashTable has different value for same key. Key "
                    f"{_show(k)} has {table[k]} and trying to add value {v}")
            table[k] = v
        if self.table is not None:
            if self.table != table:
                raise errors.FailedPreconditionError(
                    None, None, "Table was already initialized with different data.")
            return
        self.table = table

    def find(self, keys, default):
        if self.table is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        keys = np.asarray(keys)
        np_type = self.value_dtype.as_numpy_dtype
        out = np.empty(keys.shape, dtype=np_type)
        default = np.asarray(default).reshape(()).item() if np.size(default) == 1 else default
        get = self.table.get
        flat = out.reshape(-1)
        for i, k in enumerate(keys.reshape(-1)):
            flat[i] = get(_key(k, self.key_dtype), default)
        return out

    def size(self):
        return 0 if self.table is None else len(self.table)

    def export(self, key_dtype, value_dtype):
        items = list((self.table or {}).items())
        keys = np.array([k for k, _ in items], dtype=key_dtype.as_numpy_dtype)
        values = np.array([v for _, v in items], dtype=value_dtype.as_numpy_dtype)
        return [keys.reshape(-1), values.reshape(-1)]


def _show(key):
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


HashTableV2 = defop("HashTableV2", outputs=["table_handle: resource"],
                    attrs={"container": "", "shared_name": "", "use_node_name_sharing": False,
                           "key_dtype": None, "value_dtype": None}, stateful=True)
HashTableV2.shape(lambda op: [tensor_shape.TensorShape([])])
HashTableV2.no_gradient()


@HashTableV2.kernel
def _(xp, *, container, shared_name, use_node_name_sharing, key_dtype, value_dtype, ctx):
    return table_resource(ctx, container, shared_name, key_dtype, value_dtype,
                          lambda name: StaticHashTable(name, key_dtype, value_dtype))


def table_resource(ctx, container, shared_name, key_dtype, value_dtype, make, kind=None):
    """The table a table op's handle names: the one this op found before, else the one in
    the session's resources under (container, shared name or op name), else `make(name)`'s.
    A table found there of other dtypes (or not a `kind`) is InvalidArgumentError."""
    table = ctx.state.get("table")
    if table is not None and ctx.resources.get(ctx.state["key"]) is table:
        return table
    name = shared_name or ctx.op._name
    key = ("hash_table", container, name)
    table = ctx.resources.get(key)
    if table is None:
        table = ctx.resources.setdefault(key, make(name))
    elif (kind is not None and not isinstance(table, kind)) or \
            (table.key_dtype, table.value_dtype) != (key_dtype, value_dtype):
        raise errors.InvalidArgumentError(
            None, None, f"Conflicting key/value dtypes {key_dtype.name}->{value_dtype.name} "
            f"with {table.key_dtype.name}-{table.value_dtype.name} for table {table.name}")
    ctx.state["table"] = table
    ctx.state["key"] = key
    return table


def _stateful(type_name, inputs, outputs, attrs=None):
    od = defop(type_name, inputs=inputs, outputs=outputs, attrs=attrs or {}, stateful=True)
    od.no_gradient()
    return od


InitializeTableV2 = _stateful("InitializeTableV2",
                              ["table_handle: resource", "keys: Tkey", "values: Tval"], [])
InitializeTableV2.shape(lambda op: [])


@InitializeTableV2.kernel
def _(xp, table, keys, values):
    if np.shape(keys) != np.shape(values):
        raise errors.InvalidArgumentError(
            None, None, f"Expected shape {list(np.shape(keys))} for value, got "
            f"{list(np.shape(values))}")
    table.initialize(keys, values)


InitializeTableFromTextFileV2 = _stateful(
    "InitializeTableFromTextFileV2", ["table_handle: resource", "filename: string"], [],
    {"key_index": None, "value_index": None, "vocab_size": -1, "delimiter": "\t"})
InitializeTableFromTextFileV2.shape(lambda op: [])


def _column(fields, line_number, index, dtype, filename, delimiter):
    if index == LINE_NUMBER:
        return line_number
    if index == WHOLE_LINE:
        value = fields
    else:
        parts = fields.split(delimiter)
        if index >= len(parts):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {filename} line {line_number} "
                f"({fields.decode('utf-8', 'replace')}) : expected {index + 1} got "
                f"{len(parts)}")
        value = parts[index]
    if dtype == dtypes_lib.string:
        return value
    try:
        return int(value) if dtype.is_integer else float(value)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Field {value.decode('utf-8', 'replace')} in line {line_number} is "
            f"not a valid {dtype.name}.") from None



def read_text_file_table(filename, key_index, value_index, vocab_size, delimiter, key_dtype,
                         value_dtype):
    """The (keys, values) lists a vocabulary file gives, as InitializeTableFromTextFile reads it."""
    path = filename.decode("utf-8") if isinstance(filename, bytes) else str(filename)
    with file_system.open_file(path, "rb") as f, file_system.tf_errors(path):
        data = f.read(_MAX_VOCAB_BYTES + 1)
    if len(data) > _MAX_VOCAB_BYTES:
        raise errors.ResourceExhaustedError(None, None, f"Vocabulary file {path} is too large")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    if vocab_size != -1:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid vocab_size in {path}: expected {vocab_size} but got "
                f"{len(lines)}")
        lines = lines[:vocab_size]
    delim = delimiter.encode("utf-8") if isinstance(delimiter, str) else delimiter
    keys = [_column(ln, i, key_index, key_dtype, path, delim) for i, ln in enumerate(lines)]
    values = [_column(ln, i, value_index, value_dtype, path, delim)
              for i, ln in enumerate(lines)]
    return keys, values


@InitializeTableFromTextFileV2.kernel
def _(xp, table, filename, *, key_index, value_index, vocab_size, delimiter):
    keys, values = read_text_file_table(np.asarray(filename).item(), key_index, value_index,
                                        vocab_size, delimiter, table.key_dtype,
                                        table.value_dtype)
    table.initialize(np.array(keys, dtype=object),
                     np.array(values, dtype=table.value_dtype.as_numpy_dtype))


LookupTableFindV2 = _stateful("LookupTableFindV2", ["table_handle: resource", "keys: Tin",
                                                    "default_value: Tout"], ["values: Tout"])


def _value_shape(op):
    """The value shape of the table whose handle `op` takes (a MutableHashTableOfTensorsV2's
    `value_shape`; scalars otherwise)."""
    producer = op._inputs[0]._op
    if producer._type == "MutableHashTableOfTensorsV2":
        return tensor_shape.as_shape(producer._attrs["value_shape"])
    return tensor_shape.TensorShape([])


LookupTableFindV2.shape(lambda op: [op._inputs[1]._shape.concatenate(_value_shape(op))])


@LookupTableFindV2.kernel
def _(xp, table, keys, default_value):
    return table.find(keys, default_value)


LookupTableSizeV2 = _stateful("LookupTableSizeV2", ["table_handle: resource"], ["size: int64"])
LookupTableSizeV2.shape(lambda op: [tensor_shape.TensorShape([])])


@LookupTableSizeV2.kernel
def _(xp, table):
    return np.asarray(table.size(), dtype=np.int64)


LookupTableExportV2 = _stateful("LookupTableExportV2", ["table_handle: resource"],
                                ["keys: Tkeys", "values: Tvalues"])
LookupTableExportV2.shape(lambda op: [
    tensor_shape.TensorShape([None]),
    tensor_shape.TensorShape([None]).concatenate(_value_shape(op))])


@LookupTableExportV2.kernel
def _(xp, table, *, Tkeys, Tvalues):
    return table.export(Tkeys, Tvalues)
