"""Conditional accumulators: the ops that aggregate gradients for synchronous replicas.

An accumulator sums the gradients applied to it at its current time step (a gradient whose
`local_step` is older is dropped: it is stale) and hands out their mean (or sum) once
`num_required` have arrived; taking increments its time step and resets it. Op types are
TF 1.15's: the dense accumulator is the resource one (`ResourceConditionalAccumulator`), the
sparse one and the legacy dense one have a `Ref(string)` handle.

As in TF, a take waiting for gradients is completed inside the apply that brings the count
to `num_required`, so a round never averages more gradients than required.
"""

import collections
import logging
import threading

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.runtime import blocking

_log = logging.getLogger("flowloom")
_ATTRS = {"dtype": None, "shape": None, "container": "", "shared_name": "",
          "reduction_type": "MEAN"}


def _shape_str(dims):
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


class _Taker:
    __slots__ = ("num_required", "result", "session")

    def __init__(self, num_required, session):
        self.num_required = num_required
        self.result = None
        self.session = session


class Accumulator:
    """The state of one accumulator (dense, or sparse by rows)."""

    def __init__(self, name, dtype, shape, reduction_type, sparse):
        self.name = name
        self.dtype = dtype
        self.shape = None if shape is None or shape.dims is None else tuple(shape.as_list())
        self.reduction_type = reduction_type
        self.sparse = sparse
        self.global_step = 0
        self.counter = 0
        self._cond = threading.Condition(threading.Lock())
        self._takers = collections.deque()
        self._cancelled = set()  # sessions whose waiting takes end (closed)
        self._all_cancelled = False
        self._reset()

    @property
    def value(self):
        # What fetching the Ref(string) handle gives.
        return np.array(self.name.encode(), dtype=object)

    def _reset(self):
        self.counter = 0
        self._sum = None               # dense: the sum of the gradients
        self._idx, self._vals, self._counts = [], [], []  # sparse: rows, their sums, and
        self._row_shape = None                            # how many gradients had each

    # -- the session ------------------------------------------------------------------------
    def session_closed(self):
        with self._cond:
            self._all_cancelled = True
            self._cond.notify_all()

    def cancel_session(self, session):
        """Ends the takes that `session` is waiting in (it closed)."""
        with self._cond:
            self._cancelled.add(session)
            self._cond.notify_all()

    # -- operations -------------------------------------------------------------------------
    def _check_dense(self, grad):
        if self.counter > 0 and self._sum.shape != grad.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: expected {_shape_str(self._sum.shape)}, got "
                f"{_shape_str(grad.shape)}")
        if self.shape is not None and (
                len(self.shape) != grad.ndim or
                any(d is not None and d != g for d, g in zip(self.shape, grad.shape))):
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: expected shape {_shape_str(self.shape)}, got "
                f"{_shape_str(grad.shape)}")

    def apply_dense(self, local_step, grad):
        grad = np.asarray(grad)
        with self._cond:
            if local_step < self.global_step:
                _log.debug("%s: stale gradient (local step %d < %d) dropped", self.name,
                           local_step, self.global_step)
                return
            self._check_dense(grad)
            self._sum = grad.copy() if self.counter == 0 else self._sum + grad
            self.counter += 1
            self._flush()

    def _check_sparse(self, indices, values, shape, has_known_shape):
        declared = self.shape or ()
        bad = errors.InvalidArgumentError
        if has_known_shape:
            dense = [int(d) for d in np.asarray(shape).reshape(-1)]
            if len(declared) > len(dense):
                raise bad(None, None, f"Shape mismatch: expected shape rank at least "
                          f"{len(declared)}, got {len(dense)}")
            for i, d in enumerate(declared):
                if d is not None and d != dense[i]:
                    raise bad(None, None, f"Shape mismatch: expected shape dim {i} to be {d}, "
                              f"got {dense[i]}")
        if declared and declared[0] is not None:
            for i, index in enumerate(indices.tolist()):
                if index >= declared[0]:
                    raise bad(None, None, f"Shape mismatch: index of slice {i} exceeded limits "
                              f"of shape; index is {index} exceeded {declared[0]}")
        if self.counter > 0:
            if len(self._row_shape) + 1 != values.ndim:
                raise bad(None, None, f"Shape mismatch: expected values rank "
                          f"{len(self._row_shape) + 1}, got {values.ndim}")
            for i in range(1, values.ndim):
                if self._row_shape[i - 1] != values.shape[i]:
                    raise bad(None, None, f"Shape mismatch: expected values dim {i} to be "
                              f"{self._row_shape[i - 1]}, got {values.shape[i]}")
        else:
            if len(declared) > values.ndim:
                raise bad(None, None, f"Shape mismatch: expected values rank at least "
                          f"{len(declared)}, got {values.ndim}")
            for i in range(1, len(declared)):
                if declared[i] is not None and declared[i] != values.shape[i]:
                    raise bad(None, None, f"Shape mismatch: expected values dim {i} to be "
                              f"{declared[i]}, got {values.shape[i]}")

    def apply_sparse(self, local_step, indices, values, shape, has_known_shape):
        indices = np.asarray(indices, np.int64).reshape(-1)
        values = np.asarray(values)
        with self._cond:
            if local_step < self.global_step:
                return
            self._check_sparse(indices, values, shape, has_known_shape)
            if self.counter == 0:
                # The first gradient is kept as given (repeated indices too).
                self._idx = indices.tolist()
                self._vals = list(values)
                self._counts = [1] * len(self._idx)
            else:
                self._merge(indices.tolist(), values)
            self._row_shape = values.shape[1:]
            self.counter += 1
            self._flush()

    def _merge(self, grad_idx, grad_vals):
        # TF's merge of two index lists taken as ascending (sparse_add's walk): equal heads
        # are summed, the smaller head goes first. Unsorted input gives what TF gives.
        idx, vals, counts = [], [], []
        i = j = 0
        acc_idx, acc_vals, acc_counts = self._idx, self._vals, self._counts
        while i < len(acc_idx) and j < len(grad_idx):
            if acc_idx[i] < grad_idx[j]:
                idx.append(acc_idx[i]), vals.append(acc_vals[i]), counts.append(acc_counts[i])
                i += 1
            elif acc_idx[i] == grad_idx[j]:
                idx.append(acc_idx[i]), vals.append(acc_vals[i] + grad_vals[j])
                counts.append(acc_counts[i] + 1)
                i += 1
                j += 1
            else:
                idx.append(grad_idx[j]), vals.append(grad_vals[j]), counts.append(1)
                j += 1
        for k in range(i, len(acc_idx)):
            idx.append(acc_idx[k]), vals.append(acc_vals[k]), counts.append(acc_counts[k])
        for k in range(j, len(grad_idx)):
            idx.append(grad_idx[k]), vals.append(grad_vals[k]), counts.append(1)
        self._idx, self._vals, self._counts = idx, vals, counts

    def set_global_step(self, new_global_step):
        with self._cond:
            if new_global_step < self.global_step:
                _log.warning("Attempt to set current_global_step_ to smaller value: "
                             "current_global_step_ = %d while new_global_step = %d",
                             self.global_step, new_global_step)
            self.global_step = int(new_global_step)
            self._flush()

    def num_accumulated(self):
        with self._cond:
            return self.counter

    def take(self, num_required, session):
        """Blocks until `num_required` gradients are in; returns their mean (or sum)."""
        if num_required <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}")
        with self._cond:
            taker = _Taker(num_required, session)
            self._takers.append(taker)
            self._flush()

            def ready():
                if taker.result is not None:
                    return True
                if self._all_cancelled or session in self._cancelled:
                    self._takers.remove(taker)
                    raise errors.CancelledError(
                        None, None, f"TakeGrad operation was cancelled ({self.name})")
                return False

            blocking.wait_until(self._cond, ready)
            return taker.result

    def _flush(self):
        # The first waiting take completes as soon as enough gradients are in (lock held).
        while self._takers and self.counter >= self._takers[0].num_required:
            taker = self._takers.popleft()
            taker.result = self._result()
            self.global_step += 1
            self._reset()
            self._cond.notify_all()

    def _result(self):
        mean = self.reduction_type == "MEAN"
        if not self.sparse:
            out = self._sum
            if mean:
                out = _divide(out, self.counter)
            return out.astype(self.dtype, copy=False)
        indices = np.array(self._idx, np.int64)
        if self._idx:
            values = np.stack([np.asarray(v / c if mean else v).astype(self.dtype, copy=False)
                               for v, c in zip(self._vals, self._counts)])
        else:
            values = np.zeros((0,) + (self._row_shape or ()), self.dtype)
        # TF's shape output: the accumulator's own shape when it has a rank (unknown dims
        # -1), else -1 rows of the values' row shape.
        if self.shape:
            shape = np.array([-1 if d is None else d for d in self.shape], np.int64)
        else:
            shape = np.array([-1] + list(values.shape[1:]), np.int64)
        return indices, values, shape


def _divide(total, count):
    if np.issubdtype(total.dtype, np.integer):
        return (total / count).astype(total.dtype)  # TF divides in the integer type
    return total / np.asarray(count, total.dtype)


_FLOATS = ("float16", "float32", "float64")


def _find_or_create(ctx, dtype, shape, container, shared_name, reduction_type, sparse):
    if dtype.name not in _FLOATS:
        # TF registers the accumulator kernels for half, float and double only.
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op '{ctx.op.type}' used by "
            f"node {ctx.op.name} with these attrs: [dtype=DT_{dtype.name.upper()}, "
            f"reduction_type=\"{reduction_type}\"]")
    key = ("accumulator", container, shared_name or ctx.op._name)
    acc = ctx.resources.get(key)
    if acc is None:
        acc = ctx.resources.setdefault(key, Accumulator(
            shared_name or ctx.op._name, dtype.as_numpy_dtype, tensor_shape.as_shape(shape),
            reduction_type, sparse))
    elif acc.sparse != sparse or acc.dtype != dtype.as_numpy_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Shared accumulator '{acc.name}' is of another kind or type")
    return acc


def _handle_op(type_name, handle, sparse):
    od = defop(type_name, outputs=[f"handle: {handle}"], attrs=dict(_ATTRS), stateful=True)
    od.shape(lambda op: [tensor_shape.TensorShape([2] if handle != "resource" else [])])
    od.no_gradient()

    @od.kernel
    def _(xp, *, dtype, shape, container, shared_name, reduction_type, ctx):
        return _find_or_create(ctx, dtype, shape, container, shared_name, reduction_type,
                               sparse)

    return od


ResourceConditionalAccumulator = _handle_op("ResourceConditionalAccumulator", "resource", False)
ConditionalAccumulator = _handle_op("ConditionalAccumulator", "Ref(string)", False)
SparseConditionalAccumulator = _handle_op("SparseConditionalAccumulator", "Ref(string)", True)


def _defop(type_name, inputs, outputs, attrs, shape_fn):
    od = defop(type_name, inputs=inputs, outputs=outputs, attrs=attrs, stateful=True)
    od.shape(shape_fn)
    od.no_gradient()
    return od


def _no_outputs(op):
    return []


def _scalar(op):
    return [tensor_shape.TensorShape([])]


def _unknown(op):
    return [tensor_shape.unknown_shape() for _ in op._outputs]


def _register_dense(prefix, handle):
    apply = _defop(prefix + "AccumulatorApplyGradient",
                   [f"handle: {handle}", "local_step: int64", "gradient: dtype"], [],
                   {"dtype": None}, _no_outputs)
    apply.kernel(lambda xp, h, local_step, gradient, *, dtype: h.apply_dense(
        int(local_step), gradient))
    take = _defop(prefix + "AccumulatorTakeGradient", [f"handle: {handle}",
                                                       "num_required: int32"],
                  ["average: dtype"], {"dtype": None}, _unknown)

    @take.kernel
    def _(xp, h, num_required, *, dtype, ctx):
        return h.take(int(num_required), ctx.session)

    num = _defop(prefix + "AccumulatorNumAccumulated", [f"handle: {handle}"],
                 ["num_accumulated: int32"], {}, _scalar)
    num.kernel(lambda xp, h: np.int32(h.num_accumulated()))
    step = _defop(prefix + "AccumulatorSetGlobalStep", [f"handle: {handle}",
                                                        "new_global_step: int64"], [], {},
                  _no_outputs)
    step.kernel(lambda xp, h, new_global_step: h.set_global_step(int(new_global_step)))


_register_dense("Resource", "resource")
_register_dense("", "Ref(string)")

SparseAccumulatorApplyGradient = _defop(
    "SparseAccumulatorApplyGradient",
    ["handle: Ref(string)", "local_step: int64", "gradient_indices: int64",
     "gradient_values: dtype", "gradient_shape: int64"], [],
    {"dtype": None, "has_known_shape": None}, _no_outputs)


@SparseAccumulatorApplyGradient.kernel
def _(xp, h, local_step, indices, values, shape, *, dtype, has_known_shape):
    h.apply_sparse(int(local_step), indices, values, shape, has_known_shape)


SparseAccumulatorTakeGradient = _defop(
    "SparseAccumulatorTakeGradient", ["handle: Ref(string)", "num_required: int32"],
    ["indices: int64", "values: dtype", "shape: int64"], {"dtype": None},
    lambda op: [tensor_shape.TensorShape([None]), tensor_shape.unknown_shape(),
                tensor_shape.TensorShape([None])])


@SparseAccumulatorTakeGradient.kernel
def _(xp, h, num_required, *, dtype, ctx):
    return h.take(int(num_required), ctx.session)
