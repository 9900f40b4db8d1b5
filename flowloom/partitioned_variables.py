"""Partitioned variables: one logical variable stored as several slice variables.

`tf.get_variable(..., partitioner=p)` (or a `variable_scope(partitioner=p)`) asks the
partitioner how many pieces each axis gets, creates `name/part_0`, `name/part_1`, ... (each an
ordinary variable with a `SaveSliceInfo` saying where it lies in the whole), and returns a
`PartitionedVariable` over them. Reading it concatenates the parts; the Saver writes each part
as a slice of the full tensor under the full name, as TF's checkpoints hold them.

Example:
  with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(4)):
      table = tf.get_variable("table", [1000, 16])   # emb/table/part_0 .. part_3
  rows = tf.nn.embedding_lookup(table, ids)
"""

import collections.abc
import math

from flowloom.framework import dtypes
from flowloom.framework import tensor_shape
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor, register_tensor_conversion_function


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))


class SaveSliceInfo:
    """Where a slice variable lies in its full variable (`Variable.SaveSliceInfo`).

    Args:
      full_name: the full variable's name (the checkpoint key).
      full_shape: the full variable's shape (list of ints).
      var_offset: where this slice starts, per dimension.
      var_shape: this slice's shape.
      save_slice_info_def: build from a `SaveSliceInfoDef` proto instead.
      import_scope: name scope prepended to the proto's `full_name`.
    """

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                 save_slice_info_def=None, import_scope=None):
        if save_slice_info_def is not None:
            from flowloom.framework.graph_def import prepend_name_scope

            self.full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
            self.full_shape = list(save_slice_info_def.full_shape)
            self.var_offset = list(save_slice_info_def.var_offset)
            self.var_shape = list(save_slice_info_def.var_shape)
        else:
            self.full_name = full_name
            self.full_shape = full_shape
            self.var_offset = var_offset
            self.var_shape = var_shape

    @property
    def spec(self):
        """The slice spec the Saver writes: `"10 5 0,5:0,5"` (full shape, then start,length
        per dimension)."""
        dims = " ".join("%d" % d for d in self.full_shape)
        extents = ":".join("%d,%d" % (o, s) for o, s in zip(self.var_offset, self.var_shape))
        return dims + " " + extents

    def to_proto(self, export_scope=None):
        """A `SaveSliceInfoDef`, or None when `full_name` lies outside `export_scope`."""
        from flowloom.framework.graph_def import strip_name_scope
        from flowloom.proto import variable_pb2

        if export_scope is not None and not self.full_name.startswith(export_scope):
            return None
        proto = variable_pb2.SaveSliceInfoDef(full_name=strip_name_scope(self.full_name,
                                                                         export_scope))
        proto.full_shape.extend(int(d) for d in self.full_shape)
        proto.var_offset.extend(int(d) for d in self.var_offset)
        proto.var_shape.extend(int(d) for d in self.var_shape)
        return proto


class PartitionedVariable:
    """A variable stored as a list of slice variables along one axis.

    Args:
      name: the full variable's name.
      shape: its full shape.
      dtype: its dtype.
      variable_list: the slice variables, each with a SaveSliceInfo (any order: they are
        kept sorted by offset).
      partitions: the number of pieces per axis (at most one entry above 1).

    Raises:
      TypeError: when `variable_list` or `partitions` is not a list or tuple.
      ValueError: for an empty list, a piece count below 1, a slice without SaveSliceInfo or
        one whose full shape is not `shape`.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError("variable_list is not a list or tuple: %s" % (variable_list,))
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("partitions is not a list or tuple: %s" % (partitions,))
        if not all(p >= 1 for p in partitions):
            raise ValueError("partition values must be positive: %s" % (partitions,))
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        if any(v._get_save_slice_info() is None for v in variable_list):
            raise ValueError("All variables must have a save_slice_info available: %s"
                             % [v.name for v in variable_list])
        if len(shape) != len(partitions):
            raise ValueError("len(shape) != len(partitions): %s vs. %s" % (shape, partitions))
        full_shapes = [list(v._get_save_slice_info().full_shape) for v in variable_list]
        if any(fs != list(shape) for fs in full_shapes):
            raise ValueError("All variables' full shapes must match shape: %s; but full shapes "
                             "were: %s" % (shape, full_shapes))
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions

    def __iter__(self):
        """The slice variables, in offset order."""
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError("Cannot get a length for %d > 1 partition axes" % len(axes))
        return len(self._variable_list)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        """The full value: the parts concatenated along the partition axis (ops created
        here take the current control dependencies)."""
        from flowloom.ops.array import array_ops

        if len(self._variable_list) == 1:
            with name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError("Cannot concatenate along more than one dimension: %s.  "
                                      "Multi-axis partition concat is not supported" % axes)
        with name_scope(self._name + "/ConcatPartitions/"):
            whole = array_ops.concat(self._variable_list, axes[0])
        with name_scope(None):
            return array_ops.identity(whole, name=self._name)

    def as_tensor(self):
        """The full value, read outside any control-dependency scope (as a variable read)."""
        with control_dependencies(None):
            return self._concat()

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self.get_shape()

    def get_shape(self):
        return self._shape

    @property
    def _distribute_strategy(self):
        return None

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        from flowloom.ops.array import array_ops

        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError("Cannot do assign action along more than one dimension: "
                                      "%s.  Multi-axis partition assign action is not "
                                      "supported " % axes)
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError("Assigning %d values to %d partitions"
                                 % (len(value), len(self._variable_list)))
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [tensor_shape.dimension_value(v.shape[axes[0]]) for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(var, values[i]) for i, var in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns `value` (a full tensor, a list of per-part values or a
        PartitionedVariable) part by part; returns the list of per-part assigns."""
        return self._apply_assign_fn(
            lambda var, v: var.assign(v, use_locking=use_locking, name=name,
                                      read_value=read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        """Adds `value` part by part; returns the list of per-part updates."""
        return self._apply_assign_fn(
            lambda var, v: var.assign_add(v, use_locking=use_locking, name=name,
                                          read_value=read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        """Subtracts `value` part by part; returns the list of per-part updates."""
        return self._apply_assign_fn(
            lambda var, v: var.assign_sub(v, use_locking=use_locking, name=name,
                                          read_value=read_value), value)

    def __repr__(self):
        return "<tf.PartitionedVariable '%s' shape=%s dtype=%s parts=%d>" % (
            self._name, tensor_shape.as_shape(self._shape), dtypes.as_dtype(self._dtype).name,
            len(self._variable_list))


def _partitioned_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a "
                                  "reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_to_tensor)


class _PartitionInfo:
    """What an initializer learns about the part it initializes: the full shape and the
    part's offset in it (passed as `partition_info`)."""

    def __init__(self, full_shape, var_offset):
        if not _is_sequence(full_shape):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not _is_sequence(var_offset):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError("Expected equal length, but `var_offset` is of length {} while "
                             "full_shape is of length {}.".format(len(var_offset),
                                                                  len(full_shape)))
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError("Expected 0 <= offset < shape but found offset={}, shape={} "
                                 "for var_offset={}, full_shape={}".format(
                                     offset, size, var_offset, full_shape))
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_offset(self, shape):
        """The offset along the one partitioned dimension (0 when not partitioned)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension in which a part of `shape` differs from the full shape, or None.

        Raises:
          TypeError: if `shape` is not a sequence.
          ValueError: for a rank that differs from the full shape's, a part that would run
            past the full shape, or parts that differ in two dimensions.
        """
        if not _is_sequence(shape):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of "
                            + type(shape).__name__)
        if len(shape) != len(self.full_shape):
            raise ValueError("Expected equal length, but received shape={} of length {} while "
                             "self.full_shape={} is of length {}.".format(
                                 shape, len(shape), self.full_shape, len(self.full_shape)))
        for i, size in enumerate(shape):
            if self.var_offset[i] + size > self.full_shape[i]:
                raise ValueError("With self.var_offset={}, a partition of shape={} would exceed "
                                 "self.full_shape={} in dimension {}.".format(
                                     self.var_offset, shape, self.full_shape, i))
        slice_dim = None
        for i, size in enumerate(shape):
            if size == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError("Cannot use single_slice_dim() with shape={} and "
                                 "self.full_shape={} since slice dim could be either dimension "
                                 "{} or {}.".format(shape, self.full_shape, i, slice_dim))
            slice_dim = i
        return slice_dim


# -- partitioners: (shape, dtype) -> pieces per axis ------------------------------------------
def _element_bytes(dtype, bytes_per_string_element):
    dtype = dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner that cuts `axis` so that each piece holds at most `max_shard_bytes`
    (as far as cutting that one axis allows), with at most `max_shards` pieces.

    Raises:
      ValueError: when a byte count or `max_shards` is not positive.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, tensor_shape.TensorShape):
            raise ValueError("shape is not a TensorShape: %s" % shape)
        if not shape.is_fully_defined():
            raise ValueError("shape is not fully defined: %s" % shape)
        if not isinstance(dtype, dtypes.DType):
            raise ValueError("dtype is not a DType: %s" % dtype)
        rows = shape.dims[axis].value
        row_bytes = 1.0 * (shape.num_elements() / rows) * _element_bytes(
            dtype, bytes_per_string_element)
        rows_per_shard = max(1, math.floor(max_shard_bytes / row_bytes))
        pieces = int(math.ceil(1.0 * rows / rows_per_shard))
        if max_shards:
            pieces = min(max_shards, pieces)
        partitions = [1] * shape.ndims
        partitions[axis] = pieces
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner giving each piece at least `min_slice_size` bytes, with at most
    `max_partitions` pieces (and no more than the axis has rows)."""

    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError("Can not partition variable along axis %d when shape is only %s"
                             % (axis, shape))
        total = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                                      int(math.ceil(total / min_slice_size))))
        return partitions

    return _partitioner


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner cutting `axis` into `num_shards` pieces (fewer when it has fewer rows)."""

    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.dims[axis].value)
        return partitions

    return _partitioner


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """Creates the slice variables of a variable of `shape` cut as `slicing` says (pieces
    per axis; one axis at most) and returns them as a list.

    `initializer` is a tensor of the full shape (each part gets its slice) or an initializer
    called once per part. The parts are named `<name>/part_<i>` under a variable scope named
    `name` (default "PartitionedVariable", made unique).

    Raises:
      ValueError: for `shape` and `slicing` of different lengths, a rank-0 shape, or a
        slicing that cuts more than one axis or an axis into more pieces than it has rows.
    """
    from flowloom.variable_scope import _get_partitioned_variable, variable_scope

    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         "length: shape: %s, slicing: %s" % (shape, slicing))
    if len(shape) < 1:
        raise ValueError("A partitioned Variable must have rank at least 1: shape: %s" % shape)
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        parts = _get_partitioned_variable(
            name=None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            partitioner=lambda **unused: slicing, collections=collections)
        return list(parts)


# -- the variable store's side ------------------------------------------------------------------
def call_partitioner(partitioner, shape, dtype):
    """The pieces per axis `partitioner` gives for a variable of `shape`, checked."""
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         "instead was %s." % (shape,))
    if shape.ndims < 1:
        raise ValueError("A partitioned Variable must have rank at least 1, shape: %s" % shape)
    slicing = partitioner(shape=shape, dtype=dtype)
    if not _is_sequence(slicing):
        raise ValueError("Partitioner must return a sequence, but saw: %s" % (slicing,))
    if len(slicing) != shape.ndims:
        raise ValueError("Partitioner returned a partition list that does not match the "
                         "Variable's rank: %s vs. %s" % (slicing, shape))
    if any(p < 1 for p in slicing):
        raise ValueError("Partitioner returned zero partitions for some axes: %s" % (slicing,))
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: %s, "
                         "partitioning: %s" % (shape, slicing))
    return slicing


def slice_dim_and_count(slicing):
    """(axis, pieces) of a partition list (axis 0 and one piece when nothing is cut)."""
    for dim, count in enumerate(slicing):
        if count > 1:
            return dim, count
    return 0, 1


def iter_slices(full_shape, count, dim):
    """(offset, shape) of each piece: the first `full % count` pieces get one row more."""
    extra = full_shape[dim] % count
    base = full_shape[dim] // count
    offset = [0] * len(full_shape)
    for i in range(count):
        shape = list(full_shape)
        shape[dim] = base + (1 if i < extra else 0)
        yield list(offset), shape
        offset[dim] += shape[dim]


def get_partitioned_variable(store, name, partitioner, shape=None, dtype=dtypes.float32,
                             initializer=None, regularizer=None, reuse=None, trainable=None,
                             collections=None, caching_device=None, validate_shape=True,
                             use_resource=None, constraint=None, synchronization=None,
                             aggregation=None):
    """The variable store's get-or-create of a partitioned variable `name`.

    Raises:
      ValueError: an unpartitioned variable of that name exists; reuse that is violated;
        shape, dtype or partitions that differ from the existing variable's; a partitioner
        that disagrees with the parts already in the store.
    """
    dtype = dtypes.as_dtype(dtype)
    from_value = isinstance(initializer, Tensor)
    if name in store._vars:
        raise ValueError("A partitioner was provided, but an unpartitioned version of the "
                         "variable was found: %s.  Perhaps a variable of the same name was "
                         "already created without partitioning?" % name)
    shape = tensor_shape.as_shape(shape)
    if from_value:
        shape = shape.merge_with(initializer.get_shape())
    partitions = None
    if not reuse or partitioner:
        partitions = call_partitioner(partitioner, shape, dtype)
    if name in store._partitioned_vars:
        if reuse is False:
            raise ValueError("Partitioned variable with name %s already exists. Did you mean to "
                             "set reuse=True or reuse=tf.AUTO_REUSE in VarScope?" % name)
        found = store._partitioned_vars[name]
        if not shape.is_compatible_with(found.get_shape()):
            raise ValueError("Trying to reuse partitioned variable %s, but specified shape %s "
                             "and found shape %s." % (name, shape, found.get_shape()))
        if not dtype.is_compatible_with(found.dtype):
            raise ValueError("Trying to reuse partitioned variable %s, but specified dtype %s "
                             "and found dtype %s." % (name, dtype.name, found.dtype.name))
        if partitions is not None and list(found._get_partitions()) != list(partitions):
            raise ValueError("Trying to reuse partitioned variable %s, but specified partitions "
                             "%s and found partitions %s." % (name, partitions,
                                                              found._get_partitions()))
        return found
    if reuse is True:
        raise ValueError("PartitionedVariable %s does not exist, or was not created with "
                         "tf.get_variable(). Did you mean to set reuse=False or "
                         "reuse=tf.AUTO_REUSE in VarScope?" % name)
    dim, count = slice_dim_and_count(partitions)
    if "%s/part_0" % name in store._vars:
        if "%s/part_%d" % (name, count - 1) not in store._vars:
            raise ValueError("Partitioner returned a different partitioning than what was "
                             "already found.  Partitioner returned %d shards, and shard "
                             "%s/part_0 was found, but %s/part_%d was not."
                             % (count, name, name, count - 1))
        if "%s/part_%d" % (name, count) in store._vars:
            raise ValueError("Partitioner returned a different partitioning than what was "
                             "already found.  Partitioner returned %d shards, and shard "
                             "%s/part_0 was found, but so was the extra shard %s/part_%d."
                             % (count, name, name, count))
    parts = []
    full = shape.as_list()
    for i, (offset, part_shape) in enumerate(iter_slices(full, count, dim)):
        info = _PartitionInfo(full_shape=full, var_offset=offset)
        part_name = "%s/part_%d" % (name, i)
        with name_scope(part_name + "/PartitionedInitializer"):
            init, init_shape = initializer, part_shape
            if initializer is None:
                init = None  # the store's default initializer, called per part
            elif callable(initializer) and not isinstance(initializer, Tensor):
                pass
            else:
                from flowloom.ops.array import array_ops

                value = initializer if from_value else convert_to_tensor(initializer,
                                                                         dtype=dtype)
                init = array_ops.slice(value, offset, part_shape)
                dtype = init.dtype.base_dtype
                init_shape = None
        with name_scope(None):
            var = store._get_single_variable(
                part_name, init_shape, dtype, init, regularizer, reuse, trainable,
                collections, caching_device, validate_shape, constraint, use_resource,
                synchronization, aggregation, info)
        var._set_save_slice_info(SaveSliceInfo(name, full, offset, part_shape))
        parts.append(var)
    result = PartitionedVariable(name=name, shape=shape, dtype=dtype, variable_list=parts,
                                 partitions=partitions)
    store._partitioned_vars[name] = result
    return result


def scope_get_partitioned_variable(scope, var_store, name, shape=None, dtype=None,
                                   initializer=None, regularizer=None, trainable=None,
                                   collections=None, caching_device=None, partitioner=None,
                                   validate_shape=True, use_resource=None, constraint=None,
                                   synchronization=None, aggregation=None):
    """`VariableScope._get_partitioned_variable`: the scope's defaults, then the store's
    get-or-create under the scope's name (`name` may be empty: the scope names the variable).

    Raises:
      ValueError: when the scope has a custom getter or there is no partitioner.
    """
    if scope.custom_getter is not None:
        raise ValueError(
            "Private access to _get_partitioned_variable is not allowed when a custom getter is "
            "set.  Current custom getter: %s.  It is likely that you're using "
            "create_partitioned_variables.  If so, consider instead using get_variable with a "
            "non-empty partitioner parameter instead." % scope.custom_getter)
    partitioner = scope.partitioner if partitioner is None else partitioner
    if partitioner is None:
        raise ValueError("No partitioner was specified")
    full_name = "/".join(n for n in (scope.name, name) if n)
    with name_scope(None):
        return get_partitioned_variable(
            var_store, full_name, partitioner, shape,
            scope.dtype if dtype is None else dtype,
            scope.initializer if initializer is None else initializer,
            scope.regularizer if regularizer is None else regularizer, scope.reuse, trainable,
            collections, scope.caching_device if caching_device is None else caching_device,
            validate_shape, scope.use_resource if use_resource is None else use_resource,
            scope.constraint if constraint is None else constraint, synchronization,
            aggregation)


def slot_save_slice_info(primary, slot):
    """Gives the optimizer slot of a slice variable the matching slice of a slot variable, as
    TF's slot_creator: named `<full name>/<the slot's name after the primary's op name>`
    (cut at that length even when the slot was created under another scope, as TF does);
    a slot of lower rank takes the leading dimensions; a scalar slot none."""
    info = getattr(primary, "_save_slice_info", None)
    if not info:
        return
    real_slot_name = slot.name[len(primary.op.name + "/"):-2]
    rank = slot.get_shape().ndims
    if rank is None or rank > 0:
        slot._set_save_slice_info(SaveSliceInfo(
            info.full_name + "/" + real_slot_name, info.full_shape[:rank],
            info.var_offset[:rank], info.var_shape[:rank]))
