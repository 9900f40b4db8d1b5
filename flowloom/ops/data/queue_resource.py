"""The queues behind FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2, PriorityQueueV2.

A queue is a session resource holding tuples of arrays (one array per component). Its
blocking behaviour follows TF's queue kernels:

- enqueue attempts and dequeue attempts are each served in arrival order; an attempt at the
  head of its line makes progress element by element (so `dequeue_many(n)` works on a queue
  whose capacity is below n, and `enqueue_many` fills the queue as room appears);
- a closed queue fails new and pending enqueues with CancelledError and, once it cannot
  satisfy a dequeue, fails it with OutOfRangeError (elements already taken by that attempt go
  back); `dequeue_up_to` then returns what is left;
- closing the session cancels every waiting attempt; `RunOptions.timeout_in_ms` bounds each
  wait (runtime/blocking.py).
"""

import collections
import itertools
import threading

import numpy as np

from flowloom.framework import errors
from flowloom.ops.data import std_heap
from flowloom.ops.data.shuffle_random import SingleSamplePhilox
from flowloom.runtime import blocking

_INT32_MAX = 2**31 - 1
_names = itertools.count()


def resource_name(op_name, shared_name):
    """The name TF gives a queue in its messages: the shared name, else `_<n>_<op name>`."""
    if shared_name:
        return shared_name
    return f"_{next(_names)}_{op_name}"


def _shape_str(shape):
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


class Queue:
    """A FIFO queue of tuples (`FIFOQueueV2`); subclasses change the order and batching."""

    kind = "FIFOQueue"

    def __init__(self, name, dtypes, shapes, capacity):
        self.name = name
        self.dtypes = list(dtypes)
        # Per component: a tuple of dims (None unknown) or None when no shape was given.
        self.shapes = [tuple(s) if s is not None else None for s in shapes] or [None] * len(dtypes)
        self.capacity = _INT32_MAX if capacity is None or capacity < 0 else int(capacity)
        self._cond = threading.Condition(threading.Lock())
        self._closed = False
        self._cancelled = False  # the session closed
        self._enqueue_line = collections.deque()
        # The enqueue attempts waiting when the queue closed with cancel_pending_enqueues.
        self._pending_at_close = set()
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
    def check_compatible(self, kind, dtypes, shapes, capacity):
        if kind != self.kind:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' is a {self.kind}, not a {kind}")
        if list(dtypes) != self.dtypes:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component types "
                f"{_types_str(self.dtypes)} but requested component types {_types_str(dtypes)}")
        want = _INT32_MAX if capacity is None or capacity < 0 else capacity
        if want != self.capacity:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has capacity {self.capacity} but "
                f"requested capacity was {capacity}")

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

    # -- the session ----------------------------------------------------------------------
    def session_closed(self):
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    # -- operations -------------------------------------------------------------------------
    def enqueue(self, comps, timeout_ms=-1, many=False):
        """Adds one element (`many`: the rows of `comps`), blocking while the queue is full."""
        if len(comps) == len(self.dtypes):  # strings as objects: bytes kept exactly
            comps = [np.asarray(c, object) if np.dtype(d) == object and
                     not isinstance(c, np.ndarray)
                     else np.asarray(c) for c, d in zip(comps, self._np_dtypes())]
        else:
            comps = [np.asarray(c) for c in comps]
        n = self._check_element(comps, many)
        slab = self._slab
        if slab is not None:
            rows = comps if many else [c[np.newaxis] for c in comps]
            elements = range(n if many else 1)  # only its length is used
        else:
            # Each row owns its memory (a slice would keep the whole batch alive); `c[i, ...]`
            # keeps a string row an object array (bytes as given, trailing NULs included).
            elements = ([tuple(np.array(c[i, ...], copy=True) for c in comps)
                         for i in range(n)] if many else [tuple(comps)])
        cond = self._cond
        with cond:
            me = object()
            self._enqueue_line.append(me)
            pos = [0]

            def ready():
                if self._cancelled:
                    raise errors.CancelledError(None, None, "Enqueue operation was cancelled")
                if self._closed:
                    if me in self._pending_at_close:
                        raise errors.CancelledError(None, None,
                                                    "Enqueue operation was cancelled")
                    raise errors.CancelledError(None, None,
                                                f"{self.kind} '{self.name}' is closed.")
                if self._enqueue_line[0] is not me:
                    return False
                progressed = False
                if slab is not None:
                    k = min(len(elements) - pos[0], self.capacity - self._size())
                    if k > 0:
                        self._put_rows(slab.put(rows, pos[0], k))
                        pos[0] += k
                        progressed = True
                while slab is None and pos[0] < len(elements) and \
                        self._size() < self.capacity:
                    self._put(elements[pos[0]])
                    pos[0] += 1
                    progressed = True
                if progressed:
                    cond.notify_all()
                return pos[0] == len(elements)

            try:
                blocking.wait_until(cond, ready, timeout_ms)
            finally:
                self._enqueue_line.remove(me)
                self._pending_at_close.discard(me)
                cond.notify_all()

    def dequeue(self, n=None, timeout_ms=-1, allow_smaller=False):
        """Removes one element (n None) or n of them, blocking until they are there.

        Returns a list of arrays, one per component (batched along a new first dimension
        when `n` is given).
        """
        want = 1 if n is None else int(n)
        if want < 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Dequeue requested {want} < 0 elements")
        cond = self._cond
        taken = []
        with cond:
            me = object()
            self._dequeue_line.append(me)

            def ready():
                if self._cancelled:
                    raise errors.CancelledError(None, None, "Dequeue operation was cancelled")
                if self._dequeue_line[0] is not me:
                    return False
                progressed = False
                if not self.takes_whole or self._size() >= want or (
                        self._closed and allow_smaller):
                    k = self._take_many(want - len(taken), taken)
                    progressed = k > 0
                if progressed:
                    cond.notify_all()
                if len(taken) == want:
                    return True
                if self._closed:
                    if allow_smaller and taken:
                        return True
                    have = len(taken) + self._size()
                    self._restore(taken)
                    taken.clear()
                    raise errors.OutOfRangeError(
                        None, None, f"{self.kind} '{self.name}' is closed and has insufficient "
                        f"elements (requested {want}, current size {have})")
                return False

            try:
                blocking.wait_until(cond, ready, timeout_ms)
            except (errors.DeadlineExceededError, errors.CancelledError):
                self._restore(taken)
                taken.clear()
                raise
            finally:
                self._dequeue_line.remove(me)
                cond.notify_all()
            if self._slab is not None and taken:
                # Copied out before the rows can be refilled.
                return self._slab.take_out(taken, single=n is None)
        if n is None:
            return list(taken[0])
        if not taken:
            return [np.zeros((0,) + tuple(0 if d is None else d for d in (s or ())), dt)
                    for s, dt in zip(self.shapes, self._np_dtypes())]
        return [self._batch(taken, i) for i in range(len(self.dtypes))]

    def _np_dtypes(self):
        return [d.as_numpy_dtype if d.as_numpy_dtype is not None else object
                for d in self.dtypes]

    def close(self, cancel_pending_enqueues=False):
        # Pending enqueues fail once the queue is closed: "cancelled" when asked for, else
        # "closed" (TF's enqueue attempts check `closed` first).
        with self._cond:
            if cancel_pending_enqueues and not self._closed:
                self._pending_at_close.update(self._enqueue_line)
            self._closed = True
            self._cond.notify_all()

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
        self._free = []

    def _grow(self, need):
        have = 0 if self._arrays is None else len(self._arrays[0])
        size = min(max(2 * have, have + need, 256), max(self._capacity, have + need))
        new = [np.empty((size,) + sh, dt) for sh, dt in zip(self._shapes, self._dtypes)]
        if self._arrays is not None:
            for a, b in zip(new, self._arrays):
                a[:have] = b
        self._arrays = new
        self._free.extend(range(size - 1, have - 1, -1))

    def put(self, comps, start, k):
        if len(self._free) < k:
            self._grow(k - len(self._free))
        ids = self._free[-k:][::-1]
        del self._free[-k:]
        index = np.asarray(ids)
        for a, c in zip(self._arrays, comps):
            a[index] = c[start:start + k]
        return ids

    def take_out(self, ids, single=False):
        if single:
            out = [a[ids[0], ...].copy() for a in self._arrays]
        else:
            index = np.asarray(ids)
            out = [a[index] for a in self._arrays]
        self._free.extend(ids)
        return out


def _compatible(shape, want):
    if len(shape) != len(want):
        return False
    return all(w is None or w < 0 or w == d for d, w in zip(shape, want))


def _types_str(dts):
    return "[" + ", ".join(d.name for d in dts) + "]"


class RandomShuffleQueue(Queue):
    """Dequeues a random element (TF's Philox stream); keeps `min_after_dequeue` while open."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, dtypes, shapes, capacity, min_after_dequeue, seed, seed2):
        self.min_after_dequeue = int(min_after_dequeue)
        self._random = SingleSamplePhilox(seed, seed2)
        super().__init__(name, dtypes, shapes, capacity)

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
        for word in self._random.take(k):
            index = word % n
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
