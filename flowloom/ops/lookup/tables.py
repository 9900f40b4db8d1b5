"""The lookup-table API of tf.lookup and tf.contrib.lookup over the HashTable ops.

    table = tf.contrib.lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
    ids = table.lookup(tf.constant(["b", "zz"]))      # [1, 2] once tables are initialised
    sess.run(tf.tables_initializer())

A table's initializer op is added to the `table_initializer` collection, which
`tf.tables_initializer()` (and an Estimator's default Scaffold) runs. Out-of-vocabulary keys
of an `IdTableWithHashBuckets` go to `vocab_size + Fingerprint64(key) % num_oov_buckets`, as
in TF. MutableHashTable, MutableDenseHashTable and the strong hash spec are not implemented.
"""

import collections

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.ops.lookup import lookup_ops  # noqa: F401 - registers the ops

__all__ = ["HashTable", "StaticHashTable", "KeyValueTensorInitializer", "TextFileInitializer",
           "TextFileIndex", "TextFileIdTableInitializer", "TextFileStringTableInitializer",
           "IdTableWithHashBuckets", "StaticVocabularyTable", "HasherSpec", "FastHashSpec",
           "StrongHashSpec", "index_table_from_tensor", "index_table_from_file",
           "index_to_string_table_from_tensor", "index_to_string_table_from_file",
           "tables_initializer", "string_to_index", "index_to_string"]


class TextFileIndex:
    """Special column indices of a text-file table: the whole line, or its line number."""
    WHOLE_LINE = lookup_ops.WHOLE_LINE
    LINE_NUMBER = lookup_ops.LINE_NUMBER


HasherSpec = collections.namedtuple("HasherSpec", ["hasher", "key"])
FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """SipHash bucketing (`StringToHashBucketStrong`): not implemented in flowloom."""

    def __new__(cls, key):
        raise NotImplementedError("lookup StrongHashSpec (StringToHashBucketStrong)")


class KeyValueTensorInitializer:
    """Fills a table from a keys tensor and a values tensor of the same size."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with name_scope(name, "key_value_init", [keys, values]) as scope:
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
            self._name = scope
        self.key_dtype = self._keys.dtype
        self.value_dtype = self._values.dtype

    def initialize(self, table):
        """Adds the InitializeTableV2 op for `table` and returns it."""
        with name_scope(self._name, values=(table.resource_handle, self._keys, self._values)):
            op = apply_op("InitializeTableV2", (table.resource_handle, self._keys,
                                                self._values))
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class TextFileInitializer:
    """Fills a table from a text file: key and value columns by index (or TextFileIndex).

    Raises:
      ValueError: for a bad index or a dtype the index cannot give.
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None):
        if key_index < -2 or value_index < -2:
            raise ValueError(f"Invalid key index {key_index} or value index {value_index}")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != dtypes.int64:
            raise ValueError(f"Signature mismatch. Keys must be dtype {dtypes.int64}, got "
                             f"{key_dtype}.")
        if key_index == TextFileIndex.WHOLE_LINE and not (key_dtype.is_integer or
                                                          key_dtype == dtypes.string):
            raise ValueError(f"Signature mismatch. Keys must be integer or string, got "
                             f"{key_dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        self._filename_arg = filename
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(
            value_dtype)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name

    def initialize(self, table):
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename_arg, dtypes.string, name="asset_filepath")
            op = apply_op("InitializeTableFromTextFileV2", (table.resource_handle, filename),
                          key_index=self._key_index, value_index=self._value_index,
                          vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                          delimiter=self._delimiter)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        if filename.op.type == "Const":
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return op


class TextFileIdTableInitializer(TextFileInitializer):
    """A text-file initializer mapping each line's key column to its line number."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None,
                 delimiter="\t", name="text_file_id_table_init", key_dtype=dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, dtypes.int64,
                         value_column_index, vocab_size, delimiter, name)


class TextFileStringTableInitializer(TextFileInitializer):
    """A text-file initializer mapping each line number to the line's value column."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None,
                 delimiter="\t", name="text_file_string_table_init"):
        super().__init__(filename, dtypes.int64, key_column_index, dtypes.string,
                         value_column_index, vocab_size, delimiter, name)


class HashTable:
    """A read-only table filled once by its initializer (`tf.contrib.lookup.HashTable`).

    Args:
      initializer: a KeyValueTensorInitializer or TextFileInitializer.
      default_value: the value of keys not in the table.
      shared_name: share the table between sessions of one process under this name.
      name: a name for the table op.
    """

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        with name_scope(name, "hash_table", (initializer._name,)) as scope:
            self._handle = apply_op("HashTableV2", (), name=scope.rstrip("/") + "/",
                                    key_dtype=initializer.key_dtype,
                                    value_dtype=initializer.value_dtype,
                                    shared_name=shared_name or "").outputs[0]
            self._name = scope.rstrip("/")
            self._default_value = convert_to_tensor(default_value,
                                                    dtype=initializer.value_dtype)
            self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
            self._init_op = initializer.initialize(self)

    @property
    def resource_handle(self):
        return self._handle

    table_ref = resource_handle

    @property
    def initializer(self):
        return self._init_op

    init = initializer

    @property
    def name(self):
        return self._name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return self._default_value

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        with name_scope(name, f"{self._name}_Size", (self._handle,)):
            return apply_op("LookupTableSizeV2", (self._handle,)).outputs[0]

    def lookup(self, keys, name=None):
        """Looks `keys` (a Tensor or SparseTensor) up; missing keys give the default value.

        Raises:
          TypeError: if the keys' dtype is not the table's key dtype.
        """
        values = keys.values if isinstance(keys, SparseTensor) else convert_to_tensor(keys)
        if values.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{values.dtype}.")
        with name_scope(name, f"{self._name}_Lookup", (self._handle, values)):
            found = apply_op("LookupTableFindV2", (self._handle, values,
                                                   self._default_value)).outputs[0]
        return _like(keys, found)

    def export(self, name=None):
        """(keys, values) tensors of every entry."""
        with name_scope(name, f"{self._name}_Export", (self._handle,)):
            return apply_op("LookupTableExportV2", (self._handle,), Tkeys=self._key_dtype,
                            Tvalues=self._value_dtype).outputs


StaticHashTable = HashTable


def _like(keys, values):
    if isinstance(keys, SparseTensor):
        out = SparseTensor(keys.indices, values, keys.dense_shape)
        out._dense_shape_default = keys._dense_shape_default
        return out
    return values


def _as_string(tensor):
    if tensor.dtype == dtypes.string:
        return tensor
    from flowloom.ops.strings.hash_ops import as_string
    return as_string(tensor)


class IdTableWithHashBuckets:
    """A string/int to id table whose missing keys go to `num_oov_buckets` hash buckets
    after the vocabulary (ids vocab_size .. vocab_size + num_oov_buckets - 1).

    Raises:
      ValueError: for a negative num_oov_buckets or a table with neither keys nor buckets.
    """

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None,
                 key_dtype=None):
        if table is None and key_dtype is None:
            key_dtype = dtypes.string
        if num_oov_buckets < 0:
            raise ValueError(f"oov_buckets must be >= 0, got {num_oov_buckets}.")
        if hasher_spec != FastHashSpec:
            raise NotImplementedError(f"lookup hasher {hasher_spec}")
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._key_dtype = key_dtype or table.key_dtype
        self._name = name or (table.name if table is not None else "hash_bucket")

    @property
    def initializer(self):
        if self._table is not None:
            return self._table.initializer
        from flowloom.ops.control_flow.control_flow_ops import no_op
        return no_op()

    init = initializer

    @property
    def name(self):
        return self._name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return dtypes.int64

    def size(self, name=None):
        with name_scope(name, f"{self._name}_Size"):
            from flowloom.ops.math.math_ops import add
            if self._table is None:
                return convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64)
            return add(self._table.size(), self._num_oov_buckets)

    def lookup(self, keys, name=None):
        """The ids of `keys` (a Tensor or SparseTensor of the key dtype)."""
        from flowloom.ops.array.array_ops import where
        from flowloom.ops.math.math_ops import add, cast, not_equal
        from flowloom.ops.strings.hash_ops import string_to_hash_bucket_fast

        values = keys.values if isinstance(keys, SparseTensor) else convert_to_tensor(keys)
        if self._table is not None and self._table.key_dtype == dtypes.int64 and \
                values.dtype != dtypes.int64:
            values = cast(values, dtypes.int64)
        if self._num_oov_buckets == 0:
            return _like(keys, self._table.lookup(values, name=name))
        with name_scope(name, f"{self._name}_Lookup"):
            buckets = string_to_hash_bucket_fast(_as_string(values), self._num_oov_buckets,
                                                 name="hash_bucket")
            if self._table is not None:
                ids = self._table.lookup(values)
                buckets = add(buckets, self._table.size())
                ids = where(not_equal(ids, self._table.default_value), ids, buckets)
            else:
                ids = buckets
        return _like(keys, ids)


def StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
    """A vocabulary table with `num_oov_buckets` hash buckets for missing keys
    (`tf.lookup.StaticVocabularyTable`)."""
    if num_oov_buckets <= 0:
        raise ValueError("oov_buckets must be > 0; use StaticHashTable.")
    table = HashTable(initializer, -1)
    return IdTableWithHashBuckets(table, num_oov_buckets, key_dtype=lookup_key_dtype,
                                  name=name)


def _check_oov(num_oov_buckets, default_value):
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")
    if num_oov_buckets > 0 and default_value != -1:
        raise ValueError("Can't specify both num_oov_buckets and default_value")


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1,
                            hasher_spec=FastHashSpec, dtype=dtypes.string, name=None):
    """A table from a 1-D vocabulary tensor to its int64 indices.

    Args:
      vocabulary_list: a 1-D string or integer tensor (or list) of distinct keys.
      num_oov_buckets: hash buckets for keys not in the vocabulary.
      default_value: the id of missing keys when there are no buckets.
      hasher_spec: FastHashSpec (Fingerprint64), the only one flowloom has.
      dtype: the key dtype (integer keys are looked up as int64).
      name: a name scope.

    Returns:
      A lookup table with `lookup(keys)` and `initializer`.

    Raises:
      ValueError: for bad bucket/default combinations or an empty vocabulary list.
    """
    from flowloom.ops.array.array_ops import size
    from flowloom.ops.math.math_ops import cast, range_

    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    _check_oov(num_oov_buckets, default_value)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype == dtypes.string):
        raise TypeError(f"Only integer and string keys are supported, got {dtype}.")
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Expected {'integer' if dtype.is_integer else 'non-integer'}, "
                             f"got {keys.dtype}.")
        if num_oov_buckets and keys.dtype.is_integer and not dtype.is_integer:
            raise TypeError(f"Expected {dtype}, got {keys.dtype}.")
        values = cast(range_(size(keys)), dtypes.int64)
        with name_scope(None, "hash_table"):
            table_keys = cast(keys, dtypes.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(table_keys, values, table_keys.dtype.base_dtype,
                                             dtypes.int64, name="table_init")
            table = HashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec,
                                           key_dtype=dtype)
        return table


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=FastHashSpec, key_dtype=dtypes.string,
                          name=None, key_column_index=TextFileIndex.WHOLE_LINE,
                          value_column_index=TextFileIndex.LINE_NUMBER, delimiter="\t"):
    """A table from the lines of a vocabulary file to their line numbers (int64).

    Raises:
      ValueError: if the file is not given, or for bad sizes or buckets.
    """
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    _check_oov(num_oov_buckets, default_value)
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not (key_dtype.is_integer or key_dtype == dtypes.string):
        raise TypeError(f"Only integer and string keys are supported, got {key_dtype}.")
    with name_scope(name, "string_to_index"):
        with name_scope(None, "hash_table"):
            init = TextFileIdTableInitializer(
                vocabulary_file, vocab_size=vocab_size,
                key_dtype=dtypes.int64 if key_dtype.is_integer else key_dtype,
                name="table_init", key_column_index=key_column_index,
                value_column_index=value_column_index, delimiter=delimiter)
            table = HashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec,
                                           key_dtype=key_dtype)
        return table


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table from int64 indices to the strings of a 1-D vocabulary tensor."""
    from flowloom.ops.array.array_ops import size
    from flowloom.ops.math.math_ops import cast, range_

    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with name_scope(name, "index_to_string"):
        vocab = convert_to_tensor(vocabulary_list, dtypes.string)
        keys = cast(range_(size(vocab)), dtypes.int64)
        init = KeyValueTensorInitializer(keys, vocab, dtypes.int64, dtypes.string,
                                         name="table_init")
        return HashTable(init, default_value)


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE,
                                    delimiter="\t"):
    """A table from line numbers to the lines of a vocabulary file."""
    if vocabulary_file is None:
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    with name_scope(name, "index_to_string"):
        init = TextFileStringTableInitializer(vocabulary_file, vocab_size=vocab_size,
                                              name="table_init",
                                              key_column_index=key_column_index,
                                              value_column_index=value_column_index,
                                              delimiter=delimiter)
        return HashTable(init, default_value)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """Maps strings to their index in `mapping` (contrib's deprecated helper)."""
    table = index_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """Maps int64 indices to the strings of `mapping` (contrib's deprecated helper)."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def tables_initializer(name="init_all_tables"):
    """An op running every table initializer of the default graph (`tf.tables_initializer`)."""
    from flowloom.ops.control_flow.control_flow_ops import group, no_op

    inits = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name) if inits else no_op(name=name)
