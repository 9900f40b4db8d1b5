"""Session: runs parts of a graph, holding the state (variables) between runs."""

import contextlib
import os
import threading
import time
import warnings

from flowloom.framework import errors
from flowloom.framework import config as tf_config
from flowloom.framework import nest
from flowloom.framework import observers
from flowloom.framework.graph import get_default_graph
from flowloom.framework.ops import Operation, Tensor
from flowloom.framework.session_stack import _default_session_stack
from flowloom.ops.nn import kernel_threads
from flowloom.runtime import blas_threads
from flowloom.runtime import blocking
from flowloom.runtime import cost_model
from flowloom.runtime import devices
from flowloom.runtime import executor
from flowloom.runtime import host_memory
from flowloom.runtime import parallel
from flowloom.runtime import partial_run
from flowloom.runtime import placer
from flowloom.runtime import session_io
from flowloom.runtime import tracing
from flowloom.runtime.session_hooks import (  # noqa: F401 - registered by flowloom/distributed
    register_target_hook, reset_target, target_hook)
from flowloom.runtime.session_io import (  # noqa: F401 - fetch/feed mapping, kept out of the core
    _custom_feed, _DeviceAttributes, _feed_array, _fetched, _flatten_fetch,
    register_session_run_conversion_functions)


def get_default_session():
    """Returns the innermost default session of this thread, or None."""
    stack = _default_session_stack.stack
    return stack[-1] if stack else None


def _session_for(session, graph):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph "
                         "is different from the session's graph.")
    return session


# ---------------------------------------------------------------------------

class BaseSession:
    """What Session and InteractiveSession share."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = get_default_graph()
        elif not hasattr(graph, "_ops_by_name"):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        session_io.check_session_args(target, config)
        if config is None:  # as TF: the process-wide options of tf.config, if any were set
            config = tf_config.session_config()
        self._graph = graph
        self._target = target
        self._config = config
        self._closed = False
        host_memory.keep_freed_memory()
        self._resources = {}
        self._op_state = {}
        self._plan_cache = {}
        self._partial_steps = {}  # handle -> a step run in parts (runtime/partial_run.py)
        self._lock = threading.Lock()
        self._default_ctx = None
        self._devices = devices.local_devices(config)
        # InteractiveSession (as TF) or GraphOptions.place_pruned_graph: place only what runs.
        self._place_pruned = bool(config is not None and config.graph_options.place_pruned_graph)
        self._placer = placer.Placer(
            self._devices,
            allow_soft_placement=bool(getattr(config, "allow_soft_placement", False)),
            log_device_placement=bool(getattr(config, "log_device_placement", False)))
        threads = int(getattr(config, "inter_op_parallelism_threads", 0) or 0)
        if threads <= 0:
            threads = max(os.cpu_count() or 1, len(self._devices))
        # Bounds how many kernels run at once across this session's partitions.
        self._inter_op = threading.Semaphore(threads)
        # The threads one kernel may use (BLAS); 0 leaves the BLAS default.
        self._intra_op = max(0, int(getattr(config, "intra_op_parallelism_threads", 0) or 0))
        # The deadline of every blocking op of a run without RunOptions.timeout_in_ms.
        self._operation_timeout_ms = int(getattr(config, "operation_timeout_in_ms", 0) or 0)
        self._cost_model = cost_model.schedule(config)  # GraphOptions.build_cost_model
        # A cluster target (`grpc://host:port` of a tf.train.Server, `inproc://`): the hook
        # that flowloom/distributed registers gives the session its runtime (session_hooks.py).
        hook = target_hook(target)
        self._remote = hook(self, str(target), config) if hook is not None else None

    # -- properties --------------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        infer = self._config is not None and self._config.graph_options.infer_shapes
        return self._graph.as_graph_def(add_shapes=infer)  # GraphOptions.infer_shapes as TF

    @property
    def sess_str(self):
        return self._target

    def _resources_for(self, op):
        """The dict holding the resources (variables, queues, ...) of `op`'s kernel."""
        return self._resources if self._remote is None else self._remote.resources_for(op)

    reset = staticmethod(reset_target)

    def list_devices(self):
        """The session's devices (`_DeviceAttributes`: name, device_type, memory_limit_bytes)."""
        return [d.attributes for d in self._devices]

    def _place(self, ops=None):
        """Places the graph's ops not yet placed (the first run places the whole graph, as
        TF does, or only `ops` with place_pruned_graph); returns {op: Device}. Called with
        the session lock held."""
        return self._placer.place_graph(self._graph, ops if self._place_pruned else None)

    # -- default session -------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default session (and its graph the default graph) in the block."""
        with _default_session_stack.get_controller(self), self._graph.as_default():
            yield self

    def __enter__(self):
        if self._default_ctx is not None:
            raise RuntimeError("Session context managers are not re-entrant. Use "
                               "`Session.as_default()` if you want to enter a session multiple "
                               "times.")
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        ctx, self._default_ctx = self._default_ctx, None
        ctx.__exit__(exc_type, exc, tb)
        self.close()
        return False

    def close(self):
        """Frees the session's state; running it afterwards raises RuntimeError."""
        self._closed = True
        if self._remote is not None:
            self._remote.close()
        resources, self._resources = self._resources, {}
        self._plan_cache = {}
        # Ops blocked on the session's resources (a dequeue waiting on a queue) are released
        # with CancelledError, so a program never hangs at exit.
        for resource in list(resources.values()):
            cancel = getattr(resource, "session_closed", None)
            if cancel is not None:
                cancel()

    def __del__(self):
        pass

    # -- running ---------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for `fetches` and returns their values.

        Args:
          fetches: a graph element (Tensor, Operation, Variable or its name), or a nested
            list, tuple, namedtuple or dict of them.
          feed_dict: maps tensors (or their names) to values that replace them in this run.
          options: a `RunOptions` proto (trace_level, output_partition_graphs...).
          run_metadata: a `RunMetadata` proto, filled in when tracing is asked for.

        Returns:
          The values, in the structure of `fetches`: numpy arrays (scalars as numpy scalars),
          bytes for strings, and None for Operations.

        Raises:
          RuntimeError: the session is closed or its graph has no ops.
          TypeError, ValueError: a bad fetch or feed.
          tf.errors.OpError: an op failed at run time.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        graph = self._graph
        if not graph._ops:
            raise RuntimeError("The Session graph is empty.  Add operations to the graph before "
                               "calling run().")
        if run_metadata is not None:
            run_metadata.Clear()  # as TF: a run's metadata replaces what the proto held
        flat = []
        build = _flatten_fetch(fetches, graph, flat)
        feed_keys, feed_vals = self._process_feeds(feed_dict)
        fetch_tensors = []
        target_ops = []
        for el in flat:
            if isinstance(el, Tensor):
                if not graph.is_fetchable(el):
                    raise ValueError(f"Operation {el.op.name!r} has been marked as not fetchable.")
                fetch_tensors.append(el)
            else:
                target_ops.append(el)
        values = self._run_flat(feed_keys, feed_vals, fetch_tensors, target_ops, options,
                                run_metadata)
        results = []
        it = iter(values)
        for el in flat:
            results.append(next(it) if isinstance(el, Tensor) else None)
        return build(results)

    def _process_feeds(self, feed_dict):
        if not feed_dict:
            return (), ()
        keys = []
        vals = []
        graph = self._graph
        if any(nest.is_nested(key) for key in feed_dict):
            feed_dict = nest.flatten_dict_items(feed_dict)  # e.g. an LSTMStateTuple key
        for key, value in feed_dict.items():
            custom = _custom_feed(key, value)
            pairs = custom if custom is not None else [(key, value)]
            for k, v in pairs:
                t = self._feed_tensor(k, graph)
                if not graph.is_feedable(t):
                    raise ValueError(f"Tensor {t.name} may not be fed.")
                keys.append(t)
                try:
                    vals.append(_feed_array(t, v))
                except MemoryError as e:
                    raise errors.ResourceExhaustedError(
                        None, t._op, f"OOM when converting the value fed to {t.name}: {e}"
                    ) from None
        return tuple(keys), vals

    def _feed_tensor(self, key, graph):
        if hasattr(key, "_as_graph_element") and not isinstance(key, (Tensor, Operation)):
            key = key._as_graph_element()
        if isinstance(key, Operation):
            raise TypeError(f"The value of a feed cannot be a tf.Operation: {key.name}")
        try:
            t = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (KeyError, ValueError) as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
        return t

    def _run_flat(self, feed_keys, feed_vals, fetch_tensors, target_ops, options=None,
                  run_metadata=None):
        start = time.perf_counter() if observers.session_run else None
        key = (feed_keys, tuple(fetch_tensors), tuple(target_ops), self._graph._version)
        plan = self._plan_cache.get(key)
        if plan is None:
            if not fetch_tensors and not target_ops:
                return []
            with self._lock:
                plan = self._plan_cache.get(key)
                if plan is None:
                    plan = executor.compile_plan(self, feed_keys, fetch_tensors, target_ops)
                    self._plan_cache[key] = plan
        # A plan whose kernels parallelise on their own pool runs with BLAS on one thread
        # (ops/nn/kernel_threads.py); its first run finds out.
        own_pool = plan.uses_kernel_pool
        uses = kernel_threads.uses()
        timeout_ms = getattr(options, "timeout_in_ms", 0) or self._operation_timeout_ms
        threads = 1 if own_pool else self._intra_op
        with blocking.run_scope(timeout_ms), blas_threads.at_most(threads):
            raw = self._run_plan(plan, feed_vals, options, run_metadata)
        if not own_pool and kernel_threads.uses() != uses:
            plan.uses_kernel_pool = True
        values = [_fetched(v, t) for v, t in zip(raw, fetch_tensors)]
        if start is not None:
            seconds = time.perf_counter() - start
            for observer in observers.session_run:
                observer(self, plan, feed_keys, fetch_tensors, target_ops, seconds)
        return values

    def _run_plan(self, plan, feed_vals, options, run_metadata):
        if self._remote is not None:
            return self._remote.run_plan(plan, feed_vals, options, run_metadata)
        return self._run_local(plan, feed_vals, options, run_metadata)

    def _run_local(self, plan, feed_vals, options, run_metadata):
        if options is not None or self._cost_model is not None:
            return tracing.run_traced(self, plan, feed_vals, options, run_metadata)
        if plan.steps is not None:
            return executor.run_plan(plan, feed_vals)
        if plan.external is not None:
            return plan.external.run(feed_vals)
        raw, _ = parallel.run_partitioned(plan.partitioned, feed_vals, self._inter_op)
        return raw

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """Returns a function that runs `fetches` with positional values for `feed_list`."""
        feed_list = list(feed_list or [])
        graph = self._graph
        flat = []
        build = _flatten_fetch(fetches, graph, flat)
        feed_tensors = tuple(self._feed_tensor(k, graph) for k in feed_list)
        fetch_tensors = [el for el in flat if isinstance(el, Tensor)]
        targets = [el for el in flat if not isinstance(el, Tensor)]
        is_tensor = [isinstance(el, Tensor) for el in flat]

        def call(*args, options=None, run_metadata=None):
            if len(args) != len(feed_tensors):
                raise TypeError(f"Expected {len(feed_tensors)} feed values, got {len(args)}")
            if (options is not None or run_metadata is not None) and not accept_options:
                raise TypeError("call() got an unexpected keyword argument: this callable was "
                                "made without accept_options=True")
            if run_metadata is not None:
                run_metadata.Clear()
            vals = [_feed_array(t, v) for t, v in zip(feed_tensors, args)]
            values = self._run_flat(feed_tensors, vals, fetch_tensors, targets, options,
                                    run_metadata)
            it = iter(values)
            return build([next(it) if f else None for f in is_tensor])

        return call

    def _make_callable_from_options(self, callable_options):
        """A callable of fetches and feeds named in a `CallableOptions` (TF's internal API)."""
        return session_io.callable_from_options(self, callable_options)

    def partial_run_setup(self, fetches, feeds=None):
        """Sets up a step run in parts (runtime/partial_run.py); returns its handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return partial_run.setup(self, fetches, feeds)

    def partial_run(self, handle, fetches, feed_dict=None):
        """Runs the part of step `handle` that `fetches` need, with more of its feeds."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return partial_run.run(self, handle, fetches, feed_dict)


class Session(BaseSession):
    """`tf.Session`: a context in which a graph's ops run and its variables live.

    Example:
      with tf.Session() as sess:
          sess.run(tf.global_variables_initializer())
          print(sess.run(y))
    """


class InteractiveSession(BaseSession):
    """A Session that makes itself the default session on construction (for shells)."""

    _active_session_count = 0
    _count_lock = threading.Lock()

    def __init__(self, target="", graph=None, config=None):
        config = session_io.interactive_config(config)
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                warnings.warn("An interactive session is already active. This can cause "
                              "out-of-memory errors in some cases. You must explicitly call "
                              "`InteractiveSession.close()` to release resources held by the "
                              "other session(s).")
            InteractiveSession._active_session_count += 1
        self._explicitly_closed = False
        self._interactive_ctx = self.as_default()
        self._interactive_ctx.__enter__()

    def close(self):
        super().close()
        with InteractiveSession._count_lock:
            if not self._explicitly_closed:
                InteractiveSession._active_session_count -= 1
                self._explicitly_closed = True
        ctx = getattr(self, "_interactive_ctx", None)
        if ctx is not None:
            self._interactive_ctx = None
            try:
                ctx.__exit__(None, None, None)
            except AssertionError:  # closed out of order: leave the default stack all the same
                if self in _default_session_stack.stack:
                    _default_session_stack.stack.remove(self)
