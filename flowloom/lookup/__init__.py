"""`tf.lookup` (TF 1.15's v1 names): static hash and vocabulary tables and their initializers.

The implementation is flowloom/ops/lookup/tables.py.
"""

from flowloom.ops.lookup.tables import (KeyValueTensorInitializer, StaticHashTable,  # noqa: F401
                                        StaticVocabularyTable, TextFileIndex,
                                        TextFileInitializer)
