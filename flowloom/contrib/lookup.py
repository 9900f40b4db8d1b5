"""`tf.contrib.lookup`: TF 1.15's contrib lookup tables (flowloom/ops/lookup/tables.py).

MutableDenseHashTable and StrongHashSpec are not implemented.
"""

from flowloom.ops.lookup.mutable_tables import MutableHashTable  # noqa: F401

from flowloom.ops.lookup.tables import (FastHashSpec, HashTable, HasherSpec,  # noqa: F401
                                        IdTableWithHashBuckets, KeyValueTensorInitializer,
                                        StrongHashSpec, TextFileIdTableInitializer,
                                        TextFileIndex, TextFileInitializer,
                                        TextFileStringTableInitializer, index_table_from_file,
                                        index_table_from_tensor, index_to_string,
                                        index_to_string_table_from_file,
                                        index_to_string_table_from_tensor, string_to_index,
                                        tables_initializer)


def __getattr__(name):
    if name in ("MutableDenseHashTable", "LookupInterface",
                "InitializableLookupTableBase", "HashTableV1"):
        raise NotImplementedError(f"tf.contrib.lookup.{name} is not implemented in flowloom")
    raise AttributeError(f"module 'tf.contrib.lookup' has no attribute '{name}'")
