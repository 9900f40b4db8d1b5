"""Mutable hash tables with TF's op types: MutableHashTableV2 (scalar values) and
MutableHashTableOfTensorsV2 (values of a fixed `value_shape`), changed by
LookupTableInsertV2 / LookupTableRemoveV2 / LookupTableImportV2 (replace everything, as a
checkpoint restore does) and read by LookupTableFindV2 / SizeV2 / ExportV2 (lookup_ops.py).

The table is a session resource under (container, shared_name or the op's name), as the
static HashTableV2 is.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.ops.lookup.lookup_ops import _key, _stateful, table_resource


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class MutableHashTable:
    """A session's mutable hash table (TF's MutableHashTableOfScalars / OfTensors)."""

    def __init__(self, name, key_dtype, value_dtype, value_shape=()):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.value_shape = tuple(value_shape)
        self.table = {}

    def _check(self, keys, values):
        keys = np.asarray(keys)
        values = np.asarray(values)
        key_shape = keys.shape
        expected = key_shape + self.value_shape
        if values.shape != expected:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_text(expected)} for value, got "
                f"{_shape_text(values.shape)}")
        flat_keys = [_key(k, self.key_dtype) for k in keys.reshape(-1)]
        flat_values = values.reshape((len(flat_keys),) + self.value_shape)
        return flat_keys, flat_values

    def insert(self, keys, values):
        flat_keys, flat_values = self._check(keys, values)
        for k, v in zip(flat_keys, flat_values):
            self.table[k] = np.array(v, dtype=self.value_dtype.as_numpy_dtype)

    def import_(self, keys, values):
        flat_keys, flat_values = self._check(keys, values)
        self.table = {}
        for k, v in zip(flat_keys, flat_values):
            self.table[k] = np.array(v, dtype=self.value_dtype.as_numpy_dtype)

    def remove(self, keys):
        for k in np.asarray(keys).reshape(-1):
            self.table.pop(_key(k, self.key_dtype), None)

    def find(self, keys, default):
        keys = np.asarray(keys)
        default = np.asarray(default, dtype=self.value_dtype.as_numpy_dtype)
        if default.shape != self.value_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_text(self.value_shape)} for default "
                f"value, got {_shape_text(default.shape)}")
        out = np.empty(keys.shape + self.value_shape, dtype=self.value_dtype.as_numpy_dtype)
        flat = out.reshape((-1,) + self.value_shape)
        get = self.table.get
        for i, k in enumerate(keys.reshape(-1)):
            flat[i] = get(_key(k, self.key_dtype), default)
        return out

    def size(self):
        return len(self.table)

    def export(self, key_dtype, value_dtype):
        items = list(self.table.items())
        keys = np.array([k for k, _ in items], dtype=key_dtype.as_numpy_dtype).reshape(-1)
        values = np.array([v for _, v in items], dtype=value_dtype.as_numpy_dtype)
        return [keys, values.reshape((len(items),) + self.value_shape)]


_TABLE_ATTRS = {"container": "", "shared_name": "", "use_node_name_sharing": False,
                "key_dtype": None, "value_dtype": None}


def _table_kernel(ctx, container, shared_name, key_dtype, value_dtype, value_shape):
    return table_resource(
        ctx, container, shared_name, key_dtype, value_dtype,
        lambda name: MutableHashTable(name, key_dtype, value_dtype, value_shape),
        kind=MutableHashTable)


MutableHashTableV2 = defop("MutableHashTableV2", outputs=["table_handle: resource"],
                           attrs=dict(_TABLE_ATTRS), stateful=True)
MutableHashTableV2.shape(lambda op: [tensor_shape.TensorShape([])])
MutableHashTableV2.no_gradient()


@MutableHashTableV2.kernel
def _(xp, *, container, shared_name, use_node_name_sharing, key_dtype, value_dtype, ctx):
    return _table_kernel(ctx, container, shared_name, key_dtype, value_dtype, ())


MutableHashTableOfTensorsV2 = defop("MutableHashTableOfTensorsV2",
                                    outputs=["table_handle: resource"],
                                    attrs=dict(_TABLE_ATTRS, value_shape=[]), stateful=True)
MutableHashTableOfTensorsV2.shape(lambda op: [tensor_shape.TensorShape([])])
MutableHashTableOfTensorsV2.no_gradient()


@MutableHashTableOfTensorsV2.kernel
def _(xp, *, container, shared_name, use_node_name_sharing, key_dtype, value_dtype,
      value_shape, ctx):
    shape = tensor_shape.as_shape(value_shape)
    if not shape.is_fully_defined():
        raise errors.InvalidArgumentError(
            None, None, f"Default value must be fully defined, got {shape}")
    return _table_kernel(ctx, container, shared_name, key_dtype, value_dtype,
                         tuple(shape.as_list()))


def _mutable(table, op_type):
    if not isinstance(table, MutableHashTable):
        raise errors.UnimplementedError(
            None, None, f"{op_type} is not supported by a table initialized once "
            "(HashTable); use a MutableHashTable")
    return table


def _check_types(table, keys_dtype, values_dtype=None):
    if keys_dtype != table.key_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Key must be type {table.key_dtype.name} but got {keys_dtype.name}")
    if values_dtype is not None and values_dtype != table.value_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Value must be type {table.value_dtype.name} but got "
            f"{values_dtype.name}")


LookupTableInsertV2 = _stateful("LookupTableInsertV2", ["table_handle: resource", "keys: Tin",
                                                        "values: Tout"], [])
LookupTableInsertV2.shape(lambda op: [])


@LookupTableInsertV2.kernel
def _(xp, table, keys, values, *, Tin, Tout):
    table = _mutable(table, "LookupTableInsertV2")
    _check_types(table, Tin, Tout)
    table.insert(keys, values)


LookupTableImportV2 = _stateful("LookupTableImportV2", ["table_handle: resource", "keys: Tin",
                                                        "values: Tout"], [])
LookupTableImportV2.shape(lambda op: [])


@LookupTableImportV2.kernel
def _(xp, table, keys, values, *, Tin, Tout):
    table = _mutable(table, "LookupTableImportV2")
    _check_types(table, Tin, Tout)
    table.import_(keys, values)


LookupTableRemoveV2 = _stateful("LookupTableRemoveV2", ["table_handle: resource", "keys: Tin"],
                                [])
LookupTableRemoveV2.shape(lambda op: [])


@LookupTableRemoveV2.kernel
def _(xp, table, keys, *, Tin):
    table = _mutable(table, "LookupTableRemoveV2")
    _check_types(table, Tin)
    table.remove(keys)
