"""A queue runner's enqueue op run for several examples at once, where that is exact.

A QueueRunner thread runs its enqueue op again and again; each run reads one record, draws
the op's random numbers for one example, preprocesses it and enqueues it. Most of such a
run's time is spent on the way to its 30-odd small kernels, not in them. `build` looks at
the enqueue op's input graph once and, when every op in it can be run on a chunk of
examples at once with the same result, gives a callable that does one chunk per call:

- the reader gives up to `chunk` records in one call (`Reader.read_some`), as the same
  number of single reads would;
- each random op reserves the counters of that many runs at once and computes their values
  together: the values of k runs are a function of (key, counter) alone, so they are the
  values k single runs would draw;
- the other ops run once on the stacked examples: batch-safe ops (elementwise math, casts,
  reshapes, slices, data/vectorize.py's rules) on the whole stack, a cond whose predicate
  differs per example as a select of both branches, and any other pure op element by
  element with its own kernel;
- the stacked result goes in with one enqueue of many, which lets a waiting dequeue in
  after each element, as the single enqueues would have.

One thread's chunk thus enqueues exactly what that thread's single runs would have. When
the chunk's computation fails for any reason (an Assert, a record of the wrong length), the
chunk is run again element by element through the session with the records and random
values already drawn fed in, so the error is raised by the same op at the same element,
after the elements before it were enqueued. A graph with anything else (variables, other
stateful ops, nested conds, timeouts, a session on a server, tracing) runs one example per
call as before. `FLOWLOOM_RUNNER_CHUNK=1` turns chunking off.
"""

import os

import numpy as np

from flowloom.framework import errors
from flowloom.train import chunk_forms as forms

# Examples a chunked enqueue handles per call, at most (FLOWLOOM_RUNNER_CHUNK; 1 = off).
DEFAULT_CHUNK = 16
# After this many chunks in a row had to be redone element by element, the runner goes
# back to single runs (a graph whose batched form keeps failing gains nothing from it).
MAX_FALLBACKS = 3

_HANDLE_SUFFIXES = ("QueueV2", "ReaderV2")


def chunk_size(queue_capacity, threads):
    """How many examples one call of a chunked enqueue handles: FLOWLOOM_RUNNER_CHUNK (1
    turns chunking off), else up to DEFAULT_CHUNK, and no more than a share of the queue's
    capacity that leaves room for every runner thread twice over."""
    raw = os.environ.get("FLOWLOOM_RUNNER_CHUNK")
    try:
        want = int(raw) if raw is not None else DEFAULT_CHUNK
    except ValueError:
        want = DEFAULT_CHUNK
    if want <= 1:
        return 1
    if queue_capacity is not None and queue_capacity > 0:
        want = min(want, max(1, int(queue_capacity) // (2 * max(1, threads))))
    return want


def build(sess, enqueue_op, threads=1):
    """A `ChunkedEnqueue` for `enqueue_op` in `sess`, or None where chunking would not be
    exact (or is off)."""
    try:
        return _build(sess, enqueue_op, threads)
    except Exception:  # noqa: BLE001 - anything unexpected: single runs, as before
        return None


def _build(sess, enqueue_op, threads):
    if enqueue_op.type != "QueueEnqueueV2" or enqueue_op.get_attr("timeout_ms") not in (-1, None):
        return None
    if getattr(sess, "_remote", True) is not None or getattr(sess, "_operation_timeout_ms", 1):
        return None
    from flowloom.runtime import executor

    if getattr(sess, "_cost_model", None) is not None or executor._DEBUG:
        return None  # the session's accounting and FLOWLOOM_DEBUG see every run
    plan = _Analysis(sess, enqueue_op).run()
    if plan is None:
        return None
    queue = plan.handle_value(enqueue_op.inputs[0])
    chunk = chunk_size(getattr(queue, "capacity", None), threads)
    if chunk <= 1:
        return None
    return ChunkedEnqueue(sess, enqueue_op, plan, queue, chunk)


def _bound(sess, op):
    from flowloom.runtime.executor import _bind_kernel

    return _bind_kernel(sess, op, np)


class _Analysis:
    """Walks the enqueue op's inputs once: which ops run how on a chunk (`steps`)."""

    def __init__(self, sess, enqueue_op):
        self.sess = sess
        self.enqueue_op = enqueue_op
        self.batched = {}   # tensor -> whether it carries the chunk's leading axis
        self.branch = {}    # tensor or op -> (predicate tensor, side) inside a cond's branch
        self.steps = []     # (op, fn): fn(values dict, n) computes and stores op's outputs
        self.read_op = None
        self.randoms = []   # (op, draw(n) -> stacked values)
        self.handles = {}   # handle tensor -> its bound kernel
        self.fresh = {}     # batched tensor -> a C-ordered array of its own in single runs

    def run(self):
        ops = _topo(self.enqueue_op)
        if ops is None:
            return None
        for op in ops:
            if not self._add(op):
                return None
        comps = self.enqueue_op.inputs[1:]
        if self.read_op is None or not comps or self.enqueue_op.control_inputs:
            return None
        if any(t in self.branch for t in comps) or not all(self.batched.get(t) for t in comps):
            return None
        return _Plan(self, list(comps))

    def _tag(self, op):
        tags = {self.branch[t] for t in op.inputs if t in self.branch}
        tags |= {self.branch[c] for c in op.control_inputs if c in self.branch}
        if len(tags) > 1:
            raise _Refuse()
        return next(iter(tags)) if tags else None

    def _set(self, op, flags, tag):
        for t, b in zip(op.outputs, flags):
            self.batched[t] = b
            if tag is not None:
                self.branch[t] = tag
        if tag is not None:
            self.branch[op] = tag

    def _add(self, op):
        try:
            return self._add_op(op)
        except _Refuse:
            return False

    def _add_op(self, op):
        from flowloom.data import vectorize

        opdef = op._opdef
        if op.type in ("Merge", "RefMerge"):
            return self._merge(op, [self.batched[t] for t in op.inputs])
        tag = self._tag(op)
        if op.device and "GPU" in op.device.upper():
            return False
        if op.type.endswith(_HANDLE_SUFFIXES) and not op.inputs and tag is None:
            self.handles[op.outputs[0]] = _bound(self.sess, op)
            self._set(op, [False], None)
            return True
        if op.type == "ReaderReadV2":
            if self.read_op is not None or tag is not None or \
                    any(t not in self.handles for t in op.inputs):
                return False
            self.read_op = op
            self._set(op, [True, True], None)
            self.fresh.update((t, True) for t in op.outputs)
            return True
        if op.type in forms.RANDOM:
            draw = forms.random_draw(self.sess, op) if tag is None else None
            if draw is None:
                return False
            self.randoms.append((op, draw))
            self._set(op, [True], None)
            self.fresh[op.outputs[0]] = True
            return True
        flags = [self.batched[t] for t in op.inputs]
        if op.type in ("Switch", "RefSwitch"):
            return self._switch(op, flags, tag)
        if opdef.stateful and op.type != "Assert" or opdef.kernel_wants_ctx or \
                any(t.dtype.base_dtype.name in ("resource", "variant") for t in op.inputs):
            return False
        if op.type == "Assert":
            if tag is not None:
                return False
            self.steps.append((op, _assert_step(op, flags)))
            self._set(op, [], None)
            return True
        if not any(flags):
            fn = _bound(None, op)
            self.steps.append((op, _plain_step(op, fn)))
            self._set(op, [False] * len(op.outputs), tag)
            return True
        if op.type in forms.SHAPE_OPS:
            return False  # a shape of the stack is not the shape of one example
        from flowloom.data.vectorize import RULES

        if op.type not in forms.LAYOUT_FREE and op.type not in RULES and not all(
                self.fresh.get(t) for t, b in zip(op.inputs, flags) if b):
            return False  # a layout-bound op given a view in single runs
        native = forms.NATIVE.get(op.type)
        got = native(op, flags) if native is not None else None
        if got is None:
            rule = vectorize.RULES.get(op.type)
            got = rule(op, flags) if rule is not None else None
            if got is not None:
                out_flags, wrap = got
                fn = _bound(None, op)
                got = out_flags, wrap(fn) if wrap else fn
        if got is None:
            fn = forms.per_element(_bound(None, op), flags, len(op.outputs))
            got = [True] * len(op.outputs), fn
        out_flags, fn = got
        self.steps.append((op, _plain_step(op, fn)))
        self._set(op, out_flags, tag)
        self._set_fresh(op, flags)
        return True

    def _set_fresh(self, op, flags):
        if op.type in forms.FRESH or (op.type in forms.ELEMENTWISE and
                                 op.type not in forms.PASS_ON):
            fresh = True
        elif op.type in forms.PASS_ON:
            fresh = all(self.fresh.get(t) for t, b in zip(op.inputs[:1], flags[:1]) if b)
        else:
            fresh = False
        for t in op.outputs:
            self.fresh[t] = fresh

    def _switch(self, op, flags, tag):
        data, pred = op.inputs
        if tag is not None or not flags[1] or pred.shape.ndims not in (None, 0):
            return False
        pred = _source(pred)  # a cond's Switches take `pred` or its Identity `pred_id`

        def step(values, n):
            v = values[data]
            values[op.outputs[0]] = v
            values[op.outputs[1]] = v
        self.steps.append((op, step))
        for side, t in ((False, op.outputs[0]), (True, op.outputs[1])):
            self.batched[t] = flags[0]
            self.branch[t] = (pred, side)
            self.fresh[t] = self.fresh.get(data, not flags[0])
        return True

    def _merge(self, op, flags):
        if len(op.inputs) != 2 or op.control_inputs:
            return False
        tags = [self.branch.get(t) for t in op.inputs]
        if None in tags or tags[0][0] is not tags[1][0] or tags[0][1] == tags[1][1]:
            return False
        rank = op.outputs[0].shape.ndims
        if rank is None:
            return False
        pred = tags[0][0]
        true_at = 0 if tags[0][1] else 1
        a, b = op.inputs[true_at], op.inputs[1 - true_at]
        a_batched, b_batched = flags[true_at], flags[1 - true_at]

        def step(values, n):
            p = np.asarray(values[pred], bool).reshape(-1)
            va, vb = np.asarray(values[a]), np.asarray(values[b])
            sa = va.shape[1:] if a_batched else va.shape
            sb = vb.shape[1:] if b_batched else vb.shape
            if sa != sb or len(sa) != rank or va.dtype != vb.dtype or len(p) != n:
                raise ValueError("the branches of a cond differ in shape")
            values[op.outputs[0]] = np.where(p.reshape((n,) + (1,) * rank), va, vb)
            values[op.outputs[1]] = np.where(p, np.int32(true_at), np.int32(1 - true_at))
        self.steps.append((op, step))
        self._set(op, [True, True], None)
        # single runs pass the taken input on as it is
        fresh = all(self.fresh.get(t, not f) for t, f in zip(op.inputs, flags))
        self.fresh.update((t, fresh) for t in op.outputs)
        return True


class _Refuse(Exception):
    pass


def _source(tensor):
    """The tensor an Identity chain starts from."""
    while tensor.op.type == "Identity" and not tensor.op.control_inputs:
        tensor = tensor.op.inputs[0]
    return tensor


def _topo(enqueue_op):
    """The ops the enqueue op's inputs depend on, each after its inputs, or None if one is a
    placeholder. (Not the graph's creation order: a cond's Switch may be made after the
    branch op that reads it.)"""
    order, state = [], {}
    stack = [(t.op, False) for t in reversed(enqueue_op.inputs)]
    while stack:
        op, done = stack.pop()
        if done:
            state[op] = 2
            order.append(op)
            continue
        if state.get(op):
            continue
        if op.type in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
            return None
        state[op] = 1
        stack.append((op, True))
        for dep in list(op.control_inputs)[::-1] + [t.op for t in op.inputs][::-1]:
            if not state.get(dep):
                stack.append((dep, False))
    return order


def _plain_step(op, fn):
    ins, outs = list(op.inputs), list(op.outputs)
    if len(outs) == 1:
        out = outs[0]

        def step(values, n):
            values[out] = fn(*[values[t] for t in ins])
        return step

    def step_many(values, n):
        result = fn(*[values[t] for t in ins])
        if outs:
            for t, v in zip(outs, result):
                values[t] = v
    return step_many


def _assert_step(op, flags):
    """An Assert on the chunk: fails (and the chunk is redone element by element, where the
    op raises its own message) unless its condition holds for every element."""
    cond = op.inputs[0]

    def step(values, n):
        if not np.all(values[cond]):
            raise errors.InvalidArgumentError(None, op, "assertion failed in a chunk")
    return step


# -- running ----------------------------------------------------------------------------------

class _Plan:
    def __init__(self, analysis, comps):
        self.sess = analysis.sess
        self.steps = analysis.steps
        self.read_op = analysis.read_op
        self.randoms = analysis.randoms
        self.handles = analysis.handles
        self.comps = comps
        # Steps whose outputs carry no example axis depend on constants only (stateful ops
        # and resource inputs are refused): they run once.
        const = [(op, step) for op, step in self.steps if
                 not any(analysis.batched[t] for t in op.outputs) and
                 not (op.type == "Assert" and analysis.batched[op.inputs[0]])]
        self.const_steps = const
        self.steps = [st for st in self.steps if st not in const]
        self._const_values = None
        self.with_keys = bool(self.read_op.outputs[0].consumers())

    def handle_value(self, tensor):
        return self.handles[tensor]()

    def _constants(self):
        """The values of the ops that depend on no example (computed in the first chunk
        that gets through them; a failure there fails every chunk, which then runs element
        by element and raises the op's own error)."""
        if self._const_values is None:
            values = {}
            for op, step in self.const_steps:
                step(values, 0)
            self._const_values = values
        return self._const_values

    def compute(self, handles, keys, records, draws, n):
        """The enqueue's components for n examples; `handles`: this call's resources."""
        values = dict(self._constants())
        values.update(handles)
        key_t, value_t = self.read_op.outputs
        values[value_t] = records
        values[key_t] = keys
        for (op, _), v in zip(self.randoms, draws):
            values[op.outputs[0]] = v
        for op, step in self.steps:
            step(values, n)
        out = []
        for t in self.comps:
            v = np.asarray(values[t])
            if v.ndim == 0 or v.shape[0] != n:
                raise ValueError("a component lost the chunk's axis")
            out.append(v)
        return out


class ChunkedEnqueue:
    """One call: up to `chunk` examples read, drawn, computed and enqueued."""

    def __init__(self, sess, enqueue_op, plan, queue, chunk):
        self._sess = sess
        self._op = enqueue_op
        self._plan = plan
        self._queue = queue
        self.chunk = chunk
        self._single = None
        self._fed = None
        self._fallbacks = 0

    def _single_run(self):
        if self._single is None:
            self._single = self._sess.make_callable(self._op)
        return self._single()

    def _sources(self):
        plan = self._plan
        tensors = []
        if plan.with_keys:
            tensors.append(plan.read_op.outputs[0])
        tensors.append(plan.read_op.outputs[1])
        tensors += [op.outputs[0] for op, _ in plan.randoms]
        return tensors

    def __call__(self):
        from flowloom.framework import observers
        from flowloom.runtime import blas_threads, blocking
        from flowloom.runtime.op_errors import op_error

        sess = self._sess
        if sess._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._fallbacks >= MAX_FALLBACKS or observers.session_run:
            return self._single_run()
        plan = self._plan
        with blocking.run_scope(0), blas_threads.at_most(sess._intra_op):
            handles = {t: fn() for t, fn in plan.handles.items()}
            reader = handles[plan.read_op.inputs[0]]
            queue_in = handles[plan.read_op.inputs[1]]
            keys, records, read_error = reader.read_some(queue_in, self.chunk, plan.with_keys)
            n = len(records)
            if read_error is not None:
                read_error = op_error(plan.read_op, (), read_error)
            if not n:
                raise read_error
            draws = [draw(n) for _, draw in plan.randoms]
            record_array = np.empty(n, object)
            record_array[:] = records
            key_array = None
            if plan.with_keys:
                key_array = np.empty(n, object)
                key_array[:] = keys
            try:
                comps = plan.compute(handles, key_array, record_array, draws, n)
                self._queue._check_element(comps, True)
            except Exception:  # noqa: BLE001 - redone element by element, which raises
                comps = None
            if comps is not None:
                self._fallbacks = 0
                try:
                    self._queue.enqueue(comps, many=True, one_at_a_time=True)
                except Exception as e:  # noqa: BLE001 - in the words of the enqueue op
                    raise op_error(self._op, (), e) from None
        if comps is None:
            self._fallbacks += 1
            self._elementwise(key_array, record_array, draws, n)
        if read_error is not None:
            raise read_error

    def _elementwise(self, keys, records, draws, n):
        """The chunk through the session, one example per run, its sources fed."""
        if self._fed is None:
            self._fed = self._sess.make_callable(self._op, feed_list=self._sources())
        for i in range(n):
            args = []
            if self._plan.with_keys:
                args.append(keys[i])
            args.append(records[i])
            args += [d[i] for d in draws]
            self._fed(*args)
