"""The kernels of the set ops: pure functions of arrays, with TF 1.15's checks and words.

A set is the last dimension of a dense tensor, or of a SparseTensor whose entries are grouped
by all but their last index (consecutive entries with the same leading indices form a group,
as TF's sparse grouping walks them). Results are SparseTensors in row-major order whose values
in each group are the sorted set (TF keeps them in a `std::set`).
"""

import numpy as np

from flowloom.framework import errors

_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def _shape_str(dims):
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def set_operation_of(name):
    """The set operation named by the `set_operation` attr (any case), as TF's kernel reads
    it; an unknown name is an InvalidArgumentError."""
    text = name.decode() if isinstance(name, bytes) else str(name)
    lowered = text.lower()
    if lowered not in _OPERATIONS:
        raise _invalid(f"Invalid set_operation {lowered}.")
    return lowered


def apply_set_operation(operation, set1, set2):
    if operation == "a-b":
        return set1 - set2
    if operation == "b-a":
        return set2 - set1
    if operation == "intersection":
        return set1 & set2
    return set1 | set2


def _items(values):
    """Python scalars of a values vector (bytes for strings, ints otherwise), hashable and
    ordered as TF's std::set orders them."""
    return np.asarray(values).tolist()


class SparseInput:
    """One SparseTensor input, checked as TF's SparseTensor::Create checks it."""

    def __init__(self, indices, values, shape, validate_order=True):
        shape = np.asarray(shape, np.int64).reshape(-1)
        if shape.size < 2:
            raise _invalid(f"Invalid rank {shape.size}.")
        indices = np.asarray(indices)
        values = np.asarray(values)
        if values.ndim != 1:
            raise _invalid(f"vals must be a vec, but got: {_shape_str(values.shape)}")
        if indices.ndim < 1 or indices.shape[0] != values.shape[0]:
            rows = indices.shape[0] if indices.ndim else 0
            raise _invalid("indices and values rows (indexing dimension) must match. "
                           f"(indices = {rows}, values = {values.shape[0]})")
        if indices.ndim != 2:
            raise _invalid(f"indices must be a matrix, but got: {_shape_str(indices.shape)}")
        if indices.shape[1] != shape.size:
            raise _invalid("Order length must be SparseTensor rank.")
        self.indices = indices.astype(np.int64, copy=False)
        self.values = values
        self.shape = shape
        if validate_order:
            self._check_indices()

    def _check_indices(self):
        """TF's IndicesValid: in bounds, then row-major order, then no repeats."""
        indices, shape = self.indices, self.shape
        if not len(indices):
            return
        out_of_bounds = ((indices < 0) | (indices >= shape)).any(axis=1)
        steps = np.zeros(len(indices), np.int8)  # 1 increasing, 0 repeated, -1 decreasing
        if len(indices) > 1:
            diff = np.sign(indices[1:] - indices[:-1])
            first = np.argmax(diff != 0, axis=1)
            steps[1:] = diff[np.arange(len(diff)), first]
        steps[0] = 1
        bad = np.nonzero(out_of_bounds | (steps <= 0))[0]
        if not bad.size:
            return
        n = int(bad[0])
        where = f"indices[{n}] = {_shape_str(indices[n])}"
        if out_of_bounds[n]:
            raise _invalid(f"{where} is out of bounds: need 0 <= index < {_shape_str(shape)}")
        if steps[n] < 0:
            raise _invalid(f"{where} is out of order. Many sparse ops require sorted indices.\n"
                           "    Use `tf.sparse.reorder` to create a correctly ordered copy."
                           "\n\n")
        raise _invalid(f"{where} is repeated")

    def groups(self):
        """(leading indices, set of values) per run of entries sharing their leading indices,
        in the order the entries come; each group checked as TF's CheckGroup does."""
        indices, values = self.indices, _items(self.values)
        n = len(indices)
        if not n:
            return
        leading = indices[:, :-1]
        starts = [0] + [int(i) + 1 for i in np.nonzero((leading[1:] != leading[:-1])
                                                       .any(axis=1))[0]] + [n]
        for begin, end in zip(starts[:-1], starts[1:]):
            self._check_group(indices[begin:end])
            yield tuple(int(i) for i in leading[begin]), set(values[begin:end])

    def _check_group(self, group_indices):
        for j, dim_size in enumerate(self.shape):
            if dim_size <= 0:
                raise errors.InternalError(None, None, f"Invalid dim_size[{j}] = {dim_size}.")
            over = np.nonzero(group_indices[:, j] >= dim_size)[0]
            if over.size:
                i = int(over[0])
                raise errors.InternalError(
                    None, None, f"indices[{i}, {j}] expected < {dim_size}, got "
                                f"{int(group_indices[i, j])}.")


def _group_shape(shape):
    if len(shape) < 2:
        raise _invalid(f"Shape {_shape_str(shape)} has rank {len(shape)} < 2")
    return tuple(int(d) for d in shape[:-1])


def _group_shape_from_inputs(shape1, shape2):
    group1, group2 = _group_shape(shape1), _group_shape(shape2)
    if group1 != group2:
        raise _invalid(f"Mismatched shapes {_shape_str(group1)} vs {_shape_str(group2)}")
    return group1


def _dense_sets(dense):
    dense = np.asarray(dense)
    rows = _items(dense.reshape(-1, dense.shape[-1]))
    return [set(row) for row in rows]


def _output(group_shape, group_sets, dtype):
    """The SparseTensor of {leading indices: set}: groups in row-major order, each set sorted."""
    rank = len(group_shape) + 1
    indices, values = [], []
    max_size = 0
    for key in sorted(group_sets):
        members = sorted(group_sets[key])
        max_size = max(max_size, len(members))
        for j, value in enumerate(members):
            indices.append(key + (j,))
            values.append(value)
    out_indices = np.array(indices, np.int64).reshape(len(indices), rank)
    out_values = np.array(values, dtype=dtype).reshape(len(values))
    return [out_indices, out_values, np.array(group_shape + (max_size,), np.int64)]


def set_size(indices, values, shape):
    """SetSize: the number of distinct values of each group, int32 of the leading shape."""
    sparse = SparseInput(indices, values, shape)
    out = np.zeros(_group_shape(sparse.shape), np.int32)
    for key, members in sparse.groups():
        out[key] = len(members)
    return out


def dense_to_dense(set1, set2, operation):
    set1, set2 = np.asarray(set1), np.asarray(set2)
    group_shape = _group_shape_from_inputs(set1.shape, set2.shape)
    sets1, sets2 = _dense_sets(set1), _dense_sets(set2)
    result = {}
    for flat, key in enumerate(np.ndindex(*group_shape)):
        members = apply_set_operation(operation, sets1[flat], sets2[flat])
        if members:
            result[key] = members
    return _output(group_shape, result, set1.dtype)


def dense_to_sparse(set1, indices2, values2, shape2, operation):
    set1 = np.asarray(set1)
    sparse2 = SparseInput(indices2, values2, shape2)
    group_shape = _group_shape_from_inputs(set1.shape, sparse2.shape)
    sets1 = _dense_sets(set1)
    groups2 = sparse2.groups()
    pending = next(groups2, None)
    result = {}
    for flat, key in enumerate(np.ndindex(*group_shape)):
        members2 = set()
        if pending is not None and pending[0] == key:
            members2 = pending[1]
            pending = next(groups2, None)
        members = apply_set_operation(operation, sets1[flat], members2)
        if members:
            result[key] = members
    return _output(group_shape, result, set1.dtype)


def _compare_groups(key1, key2):
    """TF's CompareGroups: <0 when group 1 comes first, >0 when group 2 does, 0 when equal
    (an exhausted input, None, compares after everything)."""
    if key1 is None:
        return 0 if key2 is None else 1
    if key2 is None:
        return -1
    if len(key1) != len(key2):
        raise _invalid(f"Mismatched group dims {len(key1)} vs {len(key2)}.")
    for a, b in zip(key1, key2):
        if a != b:
            return a - b
    return 0


def sparse_to_sparse(indices1, values1, shape1, indices2, values2, shape2, operation):
    # As TF 1.15's kernel: only the first input's index order is checked.
    sparse1 = SparseInput(indices1, values1, shape1)
    sparse2 = SparseInput(indices2, values2, shape2, validate_order=False)
    group_shape = _group_shape_from_inputs(sparse1.shape, sparse2.shape)
    groups1, groups2 = sparse1.groups(), sparse2.groups()
    next1, next2 = next(groups1, None), next(groups2, None)
    result = {}
    while next1 is not None or next2 is not None:
        order = _compare_groups(next1 and next1[0], next2 and next2[0])
        members1 = members2 = set()
        if order <= 0:
            key, members1 = next1
            next1 = next(groups1, None)
        if order >= 0:
            key, members2 = next2
            next2 = next(groups2, None)
        members = apply_set_operation(operation, members1, members2)
        if members:
            result[key] = members
    return _output(group_shape, result, np.asarray(values1).dtype)
