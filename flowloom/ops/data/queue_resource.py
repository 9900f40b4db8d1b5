"""The queues behind FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2, PriorityQueueV2.

A queue is a session resource holding tuples of arrays (one array per component). Its
blocking behaviour follows TF's queue kernels (QueueBase's attempts):

- each enqueue, dequeue and close is an *attempt* waiting in one of two lines (close waits
  in the enqueue line, so the enqueues that came before it still complete); whoever changes
  the queue runs the heads of both lines until neither makes progress (`_flush`), so an
  attempt advances in the thread that made room for it: right after a dequeue returns, a
  blocked `enqueue_many` has already refilled the freed slots, element by element;
- a closed queue fails new enqueues with CancelledError and, once it cannot satisfy a
  dequeue, fails it with OutOfRangeError (elements already taken by that attempt go back);
  `dequeue_up_to` then returns what is left; `close(cancel_pending_enqueues=True)` fails the
  waiting enqueues at once;
- closing the session cancels every waiting attempt; `RunOptions.timeout_in_ms`, or the run
  failing elsewhere, ends a wait (runtime/blocking.py) and takes the attempt out of its line.
"""

import collections
import itertools
import threading

import numpy as np

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import errors
from flowloom.ops.data import std_heap
from flowloom.ops.data.shuffle_random import SingleSamplePhilox
from flowloom.runtime import blocking

_INT32_MAX = 2**31 - 1
_names = itertools.count()

# What one run of an attempt did (TF's RunResult).
_NO_PROGRESS, _PROGRESS, _COMPLETE = 0, 1, 2


def resource_name(op_name, shared_name):
    """The name TF gives a queue in its messages: the shared name, else `_<n>_<op name>`."""
    if shared_name:
        return shared_name
    return f"_{next(_names)}_{op_name}"


def _shape_str(shape):
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


class _Attempt:
    """One waiting enqueue/dequeue/close: `run()` advances it (returns a RunResult, may
    raise the op's error); `done` once it completed, with `error` set if it failed. `cond`:
    the condition (on the queue's lock) its owner waits on, once it waits; whoever completes
    the attempt wakes that thread alone."""

    __slots__ = ("run", "done", "error", "cond")

    def __init__(self, run):
        self.run = run
        self.done = False
        self.error = None
        self.cond = None

    def finish(self, error=None):
        """Marks the attempt done (failed with `error` if given) and wakes its owner."""
        if error is not None:
            self.error = error
        self.done = True
        if self.cond is not None:
            self.cond.notify()


def _cancelled(what):
    return errors.CancelledError(None, None, f"{what} operation was cancelled")


class Queue:
    """A FIFO queue of tuples (`FIFOQueueV2`); subclasses change the order and batching."""

    kind = "FIFOQueue"

    def __init__(self, name, dtypes, shapes, capacity, shape_attr=None):
        self.name = name
        self.dtypes = list(dtypes)
        self._np_dtype_list = None
        # Per component: a tuple of dims (None unknown) or None when no shape was given.
        self.shapes = [tuple(s) if s is not None else None for s in shapes] or [None] * len(dtypes)
        self.specified_shapes = all(s is not None for s in self.shapes)
        # The `shapes` attr as given (a shared queue must be asked for with the same one).
        self.shape_attr = (list(shape_attr) if shape_attr is not None else
                           [s for s in self.shapes if s is not None])
        self.capacity = _INT32_MAX if capacity is None or capacity < 0 else int(capacity)
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._closed = False
        self._cancelled = False  # the session closed
        self._enqueue_line = collections.deque()
        self._dequeue_line = collections.deque()
        self._slab = None
        self._init_storage()
        if self.uses_slab and self.shapes and all(
                sh is not None and all(d is not None and d >= 0 for d in sh)
                for sh in self.shapes):
            # Elements of fixed shapes live in rows of one array per component; the queue
            # holds row numbers (whole batches go in and out with one copy each).
            self._slab = _Slab(self.shapes, self._np_dtypes(), self.capacity)

    uses_slab = True  # subclasses whose elements vary in shape or order by value: False
    # A dequeue of n takes nothing until n are there (or the queue is closed and a smaller
    # batch is allowed), so a batch comes out sorted: TF's PriorityQueue.
    takes_whole = False
    many_needs_shapes = "DequeueMany and DequeueUpTo require"

    # -- storage (overridden) ---------------------------------------------------------------
    def _init_storage(self):
        self._items = collections.deque()

    def _size(self):
        return len(self._items)

    def _put(self, item):
        self._items.append(item)

    def _can_take(self):
        return bool(self._items)

    def _take(self):
        return self._items.popleft()

    def _take_many(self, k, taken):
        """Moves up to k elements (as many as `_can_take` allows) to `taken`; how many."""
        n = 0
        while n < k and self._can_take():
            taken.append(self._take())
            n += 1
        return n

    def _restore(self, taken):
        self._items.extendleft(reversed(taken))

    def _batch(self, items, component):
        return np.stack([it[component] for it in items])

    def _put_rows(self, rows):
        self._items.extend(rows)

    # -- compatibility of shared queues ------------------------------------------------------
    def check_compatible(self, kind, dtypes, shapes, capacity, **attrs):
        """TF's MatchesNodeDef: a second handle op of a shared queue must ask for the same
        kind, capacity, (`attrs`: kind-specific ones,) component types and shapes
        (`shapes`: the attr's dims tuples)."""
        if kind != self.kind:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' is a {self.kind}, not a {kind}")
        want = _INT32_MAX if capacity is None or capacity < 0 else capacity
        if want != self.capacity:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has capacity {self.capacity} but "
                f"requested capacity was {want}")
        self._check_attrs(**attrs)
        if list(dtypes) != self.dtypes:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component types "
                f"{_types_str(self.dtypes)} but requested component types were "
                f"{_types_str(dtypes)}")
        if [s if s is None else tuple(s) for s in shapes] != self.shape_attr:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component shapes "
                f"{_shapes_str(self.shape_attr)} but requested component shapes were "
                f"{_shapes_str(shapes)}")

    def _check_attrs(self):
        pass

    # -- validation ---------------------------------------------------------------------------
    def _check_element(self, comps, many):
        if len(comps) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Expected {len(self.dtypes)} components, got {len(comps)}")
        n = None
        for i, (c, want) in enumerate(zip(comps, self.shapes)):
            shape = c.shape[1:] if many else c.shape
            if many:
                if c.ndim == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected [?]"
                        f", got []")
                if n is None:
                    n = c.shape[0]
                elif c.shape[0] != n:
                    raise errors.InvalidArgumentError(
                        None, None, "All input tensors must have the same size in the 0th "
                        f"dimension. Component 0 has {n}, and component {i} has {c.shape[0]}")
            if want is not None and not _compatible(shape, want):
                got = _shape_str(c.shape)
                exp = _shape_str(((c.shape[0],) if many else ()) + tuple(want))
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch in tuple component {i}. Expected {exp}, got "
                    f"{got}")
        return n

    # -- the attempt lines -------------------------------------------------------------------
    def _flush(self):
        """Runs the heads of both lines until neither moves (TF's FlushUnlocked); the owners
        of the attempts that completed are woken. Called with the lock held."""
        while True:
            changed = self._run_line(self._enqueue_line)
            if self._run_line(self._dequeue_line):
                changed = True
            if not changed:
                break

    @staticmethod
    def _run_line(line):
        progress = False
        while line:
            attempt = line[0]
            try:
                result = attempt.run()
            except Exception as e:  # noqa: BLE001 - the attempt's op fails with it
                attempt.error = e
                result = _COMPLETE
            if result == _COMPLETE:
                line.popleft()
                attempt.finish()
                progress = True
                continue
            if result == _PROGRESS:
                progress = True
            break
        return progress

    def _submit(self, attempt, line, what, timeout_ms, on_abort=None):
        """Queues `attempt` in `line` and waits until it completed; raises its error.

        Called with the lock held. A wait that ends otherwise (deadline, the run cancelled)
        takes the attempt out of its line (`on_abort` undoes what it took)."""
        if self._cancelled:
            raise _cancelled(what)
        line.append(attempt)
        self._flush()
        if not attempt.done:
            attempt.cond = threading.Condition(self._lock)
            try:
                blocking.wait_until(attempt.cond, lambda: attempt.done, timeout_ms)
            except BaseException:
                if not attempt.done:
                    line.remove(attempt)
                    attempt.done = True
                    if on_abort is not None:
                        on_abort()
                    self._flush()
                    raise
        if attempt.error is not None:
            raise attempt.error

    # -- the session ----------------------------------------------------------------------
    def session_closed(self):
        with self._cond:
            self._cancelled = True
            for line, what in ((self._enqueue_line, "Enqueue"),
                               (self._dequeue_line, "Dequeue")):
                for attempt in line:
                    attempt.finish(_cancelled(what))
                line.clear()

    # -- operations -------------------------------------------------------------------------
    def enqueue(self, comps, timeout_ms=-1, many=False, one_at_a_time=False):
        """Adds one element (`many`: the rows of `comps`), blocking while the queue is full.

        `one_at_a_time`: while a dequeue waits, the rows go in one by one and the waiting
        dequeues run after each, as they would after single enqueues of the rows in turn
        (train/chunked_enqueue.py); otherwise as many rows as fit go in at once."""
        slab = self._slab
        if slab is not None and not many and slab.fits(comps) and self._put_one_now(comps):
            return
        if len(comps) == len(self.dtypes):  # strings as objects: bytes kept exactly
            self._np_dtypes()
            comps = [np.asarray(c, object) if is_object and not isinstance(c, np.ndarray)
                     else np.asarray(c) for c, is_object in zip(comps, self._object_components)]
        else:
            comps = [np.asarray(c) for c in comps]
        n = self._check_element(comps, many)
        total = n if many else 1
        if total == 0:
            return  # TF: an empty batch completes at once, closed queue or not
        if slab is not None and not many and self._put_one_now(comps):
            return
        if slab is not None:
            rows = comps if many else [c[np.newaxis] for c in comps]
            elements = None
        else:
            # Each row owns its memory (a slice would keep the whole batch alive); `c[i, ...]`
            # keeps a string row an object array (bytes as given, trailing NULs included).
            elements = ([tuple(np.array(c[i, ...], copy=True) for c in comps)
                         for i in range(n)] if many else [tuple(comps)])
        pos = 0

        def run():
            nonlocal pos
            if self._closed:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            k = min(total - pos, self.capacity - self._size())
            if k <= 0:
                return _NO_PROGRESS
            if one_at_a_time and self._dequeue_line:
                k = 1
            if slab is not None:
                self._put_rows(slab.put(rows, pos, k))
                pos += k
            else:
                for _ in range(k):  # one at a time: _put may fail on an element
                    self._put(elements[pos])
                    pos += 1
            return _COMPLETE if pos == total else _PROGRESS

        with self._cond:
            self._submit(_Attempt(run), self._enqueue_line, "Enqueue", timeout_ms)

    def dequeue(self, n=None, timeout_ms=-1, allow_smaller=False):
        """Removes one element (n None) or n of them, blocking until they are there.

        Returns a list of arrays, one per component (batched along a new first dimension
        when `n` is given).
        """
        if n is not None:
            if not self.specified_shapes:
                raise errors.InvalidArgumentError(
                    None, None, f"{self.kind}'s {self.many_needs_shapes} the components to "
                    "have specified shapes.")
            if int(n) < 0:
                raise errors.InvalidArgumentError(None, None,
                                                  f"Dequeue requested {int(n)} < 0 elements")
        want = 1 if n is None else int(n)
        if want == 0:
            return self._empty_batch()
        taken = []

        def run():
            nonlocal want
            need = want - len(taken)
            size = self._size()
            if self._closed and size < need:
                if self.takes_whole:
                    if size == 0 or not allow_smaller:
                        raise self._out_of_range(need, size)
                else:
                    if taken:
                        self._restore(taken)
                        taken.clear()
                    if allow_smaller and self._size():
                        want = need = self._size()
                    elif allow_smaller and self._enqueue_line:
                        return _PROGRESS  # the enqueues ahead may still add elements
                    else:
                        raise self._out_of_range(need, size)
            elif self.takes_whole and size < need and not (self._closed and allow_smaller):
                return _NO_PROGRESS
            if self._take_many(need, taken) == 0:
                return _NO_PROGRESS
            return _COMPLETE if len(taken) == want else _PROGRESS

        def give_back():
            if taken:
                self._restore(taken)
                taken.clear()

        with self._cond:
            self._submit(_Attempt(run), self._dequeue_line, "Dequeue", timeout_ms, give_back)
            if self._slab is not None:
                # Copied out before the rows can be refilled.
                return self._slab.take_out(taken, single=n is None)
        if n is None:
            return list(taken[0])
        return [self._batch(taken, i) for i in range(len(self.dtypes))]

    def _out_of_range(self, requested, size):
        return errors.OutOfRangeError(
            None, None, f"{self.kind} '{self.name}' is closed and has insufficient elements "
            f"(requested {requested}, current size {size})")

    def _empty_batch(self):
        return [np.zeros((0,) + tuple(0 if d is None or d < 0 else d for d in (s or ())), dt)
                for s, dt in zip(self.shapes, self._np_dtypes())]

    def _np_dtypes(self):
        if self._np_dtype_list is None:
            self._np_dtype_list = [d.as_numpy_dtype if d.as_numpy_dtype is not None else object
                                   for d in self.dtypes]
            self._object_components = [np.dtype(d) == object for d in self._np_dtype_list]
        return self._np_dtype_list

    def close(self, cancel_pending_enqueues=False):
        """Closes the queue. Without `cancel_pending_enqueues` the close waits in the enqueue
        line behind the enqueues already waiting (they complete first); with it, they fail
        at once. Closing a closed queue the first way fails (TF's "already closed")."""
        with self._cond:
            if cancel_pending_enqueues:
                self._closed = True
                for attempt in self._enqueue_line:
                    attempt.finish(_cancelled("Enqueue"))
                self._enqueue_line.clear()
                self._flush()
                return

            def run():
                if self._closed:
                    raise errors.CancelledError(None, None,
                                                f"Queue '{self.name}' is already closed.")
                self._closed = True
                return _COMPLETE

            self._submit(_Attempt(run), self._enqueue_line, "Enqueue", -1)

    def _put_one_now(self, comps):
        """One element into a slab row when no enqueue waits before it and there is room:
        what its attempt would do as the head of the line, without the attempt (a queue
        runner's run). False when it has to wait its turn."""
        with self._cond:
            if self._enqueue_line or self._closed or self._cancelled or \
                    self._size() >= self.capacity:
                return False
            self._put_rows([self._slab.put_one(comps)])
            if self._dequeue_line:
                self._flush()
            return True

    def size(self):
        with self._cond:
            return self._size()

    def is_closed(self):
        with self._cond:
            return self._closed


class _Slab:
    """Rows of one array per component for a queue's elements of fixed shapes; `put` copies
    a batch's rows in and names them, `take_out` copies named rows out and frees them."""

    def __init__(self, shapes, dtypes, capacity):
        self._shapes = [tuple(int(d) for d in sh) for sh in shapes]
        self._dtypes = dtypes
        self._capacity = capacity
        self._arrays = None
        self._rows = None  # per array: its rows as one vector of void items, or None
        self._free = []
        # (shape, dtype) per component when no component holds objects: an element of
        # exactly these arrays needs no conversion or check (`fits`).
        self._exact = None if any(np.dtype(d) == object for d in dtypes) else \
            [(sh, np.dtype(d)) for sh, d in zip(self._shapes, dtypes)]

    def fits(self, comps):
        """Whether `comps` are arrays of exactly the components' shapes and dtypes."""
        exact = self._exact
        if exact is None or len(comps) != len(exact):
            return False
        for c, (shape, dtype) in zip(comps, exact):
            if type(c) is not np.ndarray or c.shape != shape or c.dtype != dtype:
                return False
        return True

    def _grow(self, need):
        have = 0 if self._arrays is None else len(self._arrays[0])
        size = min(max(2 * have, have + need, 256), max(self._capacity, have + need))
        new = [np.empty((size,) + sh, dt) for sh, dt in zip(self._shapes, self._dtypes)]
        if self._arrays is not None:
            for a, b in zip(new, self._arrays):
                a[:have] = b
        self._arrays = new
        self._rows = [_row_vector(a) for a in new]
        self._free.extend(range(size - 1, have - 1, -1))

    def put(self, comps, start, k):
        if len(self._free) < k:
            self._grow(k - len(self._free))
        ids = self._free[-k:][::-1]
        del self._free[-k:]
        index = np.fromiter(ids, np.intp, k)
        for a, rows, c in zip(self._arrays, self._rows, comps):
            part = c[start:start + k]
            if rows is not None and part.dtype == a.dtype and part.flags.c_contiguous:
                # whole rows as single items: one copy each, not an element walk
                rows[index] = part.reshape(k, -1).view(rows.dtype).reshape(k)
            else:
                a[index] = part
        return ids

    def put_one(self, comps):
        """`put` of one element (its components without the batch dimension): its row."""
        if not self._free:
            self._grow(1)
        row = self._free.pop()
        for a, c in zip(self._arrays, comps):
            a[row, ...] = c  # into the row (an object row keeps the element, not c)
        return row

    def take_out(self, ids, single=False):
        if single:
            out = [a[ids[0], ...].copy() for a in self._arrays]
        else:
            index = np.fromiter(ids, np.intp, len(ids))
            out = [a.take(index, axis=0) for a in self._arrays]  # a[index], in fewer steps
        self._free.extend(ids)
        return out


def _row_vector(a):
    """The rows of `a` ([rows, ...], C order) as a vector of void items sharing its memory, or
    None for objects, vectors and empty rows."""
    if a.dtype == object or a.ndim < 2 or a[0].nbytes == 0:
        return None
    return a.reshape(len(a), -1).view(f"V{a[0].nbytes}").reshape(len(a))


def _compatible(shape, want):
    if len(shape) != len(want):
        return False
    return all(w is None or w < 0 or w == d for d, w in zip(shape, want))


def _types_str(dts):
    return ", ".join(dtypes_lib.type_string(d) for d in dts)


def _shapes_str(shapes):
    return "[" + ", ".join(_shape_str(s) for s in shapes) + "]"


class RandomShuffleQueue(Queue):
    """Dequeues a random element (TF's Philox stream); keeps `min_after_dequeue` while open."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, dtypes, shapes, capacity, min_after_dequeue, seed, seed2):
        self.min_after_dequeue = int(min_after_dequeue)
        self.seeds = (int(seed), int(seed2))
        self._random = SingleSamplePhilox(seed, seed2)
        super().__init__(name, dtypes, shapes, capacity)

    def _check_attrs(self, min_after_dequeue, seed, seed2):
        if min_after_dequeue != self.min_after_dequeue:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has min_after_dequeue "
                f"{self.min_after_dequeue} but requested min_after_dequeue was "
                f"{min_after_dequeue}.")
        if (seed or seed2) and (seed, seed2) != self.seeds:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has random seeds {self.seeds} but "
                f"requested seeds are ({seed}, {seed2}).")

    def _init_storage(self):
        self._items = []

    def _can_take(self):
        if self._closed:
            return bool(self._items)
        return len(self._items) > self.min_after_dequeue

    def _take(self):
        items = self._items
        index = self._random() % len(items)
        item = items[index]
        items[index] = items[-1]
        items.pop()
        return item

    def _take_many(self, k, taken):
        items = self._items
        k = min(k, len(items) - (0 if self._closed else self.min_after_dequeue))
        if k <= 0:
            return 0
        # As k calls of _take: each moves the last element into the taken one's slot; the
        # k emptied slots at the end go in one step.
        n = len(items)
        append = taken.append
        # Draw i picks `word % (n - i)`: all k indices in one step.
        sizes = np.arange(n, n - k, -1, dtype=np.uint32)
        for index in (self._random.take(k) % sizes).tolist():
            n -= 1
            append(items[index])
            items[index] = items[n]
        del items[n:]
        return k

    def _restore(self, taken):
        self._items.extend(reversed(taken))


class PaddingFIFOQueue(Queue):
    """A FIFO queue whose batches pad each component to the largest element (zeros, b'')."""

    kind = "PaddingFIFOQueue"
    uses_slab = False

    def _batch(self, items, component):
        arrays = [it[component] for it in items]
        shape = tuple(max(a.shape[d] for a in arrays) for d in range(arrays[0].ndim))
        dtype = arrays[0].dtype
        out = np.full((len(arrays),) + shape, b"" if dtype == object else 0, dtype=dtype)
        for i, a in enumerate(arrays):
            out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
        return out


class PriorityQueue(Queue):
    """Dequeues the element with the smallest int64 priority (component 0) first."""

    kind = "PriorityQueue"
    uses_slab = False
    takes_whole = True
    many_needs_shapes = "DequeueMany requires"

    def _init_storage(self):
        self._items = []  # std_heap's (priority, item) pairs: ties come out in TF's order

    def _put(self, item):
        priority = item[0]
        if np.ndim(priority) != 0:
            raise errors.InvalidArgumentError(
                None, None, "Expected the priority element to be a scalar, but received shape: "
                + _shape_str(np.shape(priority)))
        std_heap.push(self._items, int(priority), item)

    def _take(self):
        return std_heap.pop(self._items)

    def _restore(self, taken):
        for item in taken:
            self._put(item)
