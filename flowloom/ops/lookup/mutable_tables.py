"""`tf.contrib.lookup.MutableHashTable`: a hash table changed by insert/remove, saved in
checkpoints as two entries, `<name>-keys` and `<name>-values` (its SaveableObject, added to
the `saveable_objects` collection, which a default Saver saves).

    table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, default_value=-1)
    sess.run(table.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64)))
    table.lookup(tf.constant(["b", "zz"]))               # [2, -1]
"""

import functools

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import GraphKeys, add_to_collection, get_default_graph, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.lookup import lookup_ops, mutable_table_ops  # noqa: F401 - registers ops
from flowloom.train.saveable_object import SaveableObject, SaveSpec


class MutableHashTable:
    """A mutable hash table: keys of `key_dtype` to values of `value_dtype` shaped like
    `default_value` (scalars, or tensors of one fixed shape).

    Args:
      key_dtype: the type of the keys.
      value_dtype: the type of the values.
      default_value: the value looked up for a missing key (its shape is the values' shape).
      name: the name of the table op.
      checkpoint: whether a Saver saves and restores the table (through the
        `saveable_objects` collection).

    Raises:
      ValueError: if `default_value` does not convert to `value_dtype`.
    """

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.get_shape()
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._checkpoint = checkpoint
        self._name = name
        attrs = dict(shared_name="", use_node_name_sharing=checkpoint,
                     key_dtype=self._key_dtype, value_dtype=self._value_dtype)
        if self._value_shape.ndims == 0:
            op = apply_op("MutableHashTableV2", (), name=name, **attrs)
        else:
            op = apply_op("MutableHashTableOfTensorsV2", (), name=name,
                          value_shape=self._value_shape, **attrs)
        self._resource_handle = op.outputs[0]
        self._table_name = op.name.split("/")[-1]
        if checkpoint:
            add_to_collection(GraphKeys.SAVEABLE_OBJECTS, MutableHashTable._Saveable(self, name))

    @property
    def resource_handle(self):
        return self._resource_handle

    table_ref = resource_handle

    @property
    def name(self):
        return self._table_name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return self._default_value

    def _check_keys(self, keys):
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{keys.dtype}.")

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        with name_scope(name, f"{self.name}_Size", [self._resource_handle]):
            with get_default_graph().colocate_with(self._resource_handle):
                return apply_op("LookupTableSizeV2", (self._resource_handle,)).outputs[0]

    def remove(self, keys, name=None):
        """The op removing `keys` (absent keys are ignored).

        Raises:
          TypeError: if the keys' dtype is not the table's key dtype.
        """
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        self._check_keys(keys)
        with name_scope(name, f"{self.name}_lookup_table_remove",
                        (self._resource_handle, keys, self._default_value)):
            return apply_op("LookupTableRemoveV2", (self._resource_handle, keys))

    def lookup(self, keys, name=None):
        """The values of `keys` (the default value for a missing key).

        Raises:
          TypeError: if the keys' dtype is not the table's key dtype.
        """
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        self._check_keys(keys)
        with name_scope(name, f"{self.name}_lookup_table_find",
                        (self._resource_handle, keys, self._default_value)):
            with get_default_graph().colocate_with(self._resource_handle):
                return apply_op("LookupTableFindV2", (self._resource_handle, keys,
                                                      self._default_value)).outputs[0]

    def insert(self, keys, values, name=None):
        """The op setting `keys` to `values` (shaped keys.shape + the value shape).

        Raises:
          TypeError: if `keys` or `values` do not match the table's dtypes.
        """
        with name_scope(name, f"{self.name}_lookup_table_insert",
                        [self._resource_handle, keys, values]):
            keys = convert_to_tensor(keys, self._key_dtype, name="keys")
            values = convert_to_tensor(values, self._value_dtype, name="values")
            with get_default_graph().colocate_with(self._resource_handle):
                return apply_op("LookupTableInsertV2", (self._resource_handle, keys, values))

    def export(self, name=None):
        """(keys, values): tensors of every entry."""
        with name_scope(name, f"{self.name}_lookup_table_export_values",
                        [self._resource_handle]):
            with get_default_graph().colocate_with(self._resource_handle):
                return tuple(apply_op("LookupTableExportV2", (self._resource_handle,),
                                      Tkeys=self._key_dtype,
                                      Tvalues=self._value_dtype).outputs)

    def _gather_saveables_for_checkpoint(self):
        return {"table": functools.partial(MutableHashTable._Saveable, table=self,
                                           name=self._name)}

    class _Saveable(SaveableObject):
        """The table in a checkpoint: `<name>-keys` and `<name>-values`."""

        def __init__(self, table, name):
            keys, values = table.export()
            super().__init__(table, [SaveSpec(keys, "", name + "-keys"),
                                     SaveSpec(values, "", name + "-values")], name)

        def restore(self, restored_tensors, restored_shapes, name=None):
            handle = self.op.resource_handle
            with name_scope(name, f"{self.name}_table_restore"):
                with get_default_graph().colocate_with(handle):
                    return apply_op("LookupTableImportV2", (handle, restored_tensors[0],
                                                            restored_tensors[1]))
