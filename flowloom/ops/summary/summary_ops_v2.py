"""`tf.contrib.summary` (TF 1.15's summary_ops_v2, graph mode): summaries written by ops to a
summary writer resource (flowloom/ops/summary/summary_writer_ops.py).

    writer = tf.contrib.summary.create_file_writer("/tmp/logs")
    with writer.as_default(), tf.contrib.summary.always_record_summaries():
        loss_summary = tf.contrib.summary.scalar("loss", loss, step=step)
    sess.run(writer.init()); sess.run(loss_summary); sess.run(writer.flush())

The default writer and the recording condition are per thread, as TF keeps them.
"""

import contextlib
import os
import threading

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import (add_to_collection, control_dependencies, device,
                                      get_collection, get_name_scope,
                                      name_scope)
from flowloom.framework.ops import Tensor
from flowloom.framework.tensor_util import constant_value

_SUMMARY_WRITER_INIT_COLLECTION_NAME = "_SUMMARY_WRITER_V2"
_SUMMARY_COLLECTION = "_SUMMARY_V2"  # TF's GraphKeys._SUMMARY_COLLECTION


class _State(threading.local):
    writer = None
    recording = None


_state = _State()


def _constant(value, dtype=None):
    from flowloom.ops.array.array_ops import constant

    return constant(value, dtype=dtype)


def should_record_summaries():
    """A bool tensor: whether summaries should be recorded (False unless a `record_if` scope
    says otherwise)."""
    from flowloom.ops.math import math_ops

    cond = _state.recording
    cond = cond() if callable(cond) else cond
    if cond is None:
        cond = False
    return math_ops.logical_and(True, cond)


@contextlib.contextmanager
def record_if(condition):
    """Summaries record while `condition` (a bool, bool tensor or callable) holds."""
    old = _state.recording
    try:
        _state.recording = condition
        yield
    finally:
        _state.recording = old


def always_record_summaries():
    """Summaries always record inside this context."""
    return record_if(True)


def never_record_summaries():
    """Summaries never record inside this context."""
    return record_if(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Summaries record when `global_step % n == 0`."""
    from flowloom.ops.math import math_ops
    from flowloom.train.training_util import get_or_create_global_step

    if global_step is None:
        global_step = get_or_create_global_step()
    with device("cpu:0"):
        should = math_ops.equal(global_step % n, 0)
    return record_if(should)


class SummaryWriter:
    """A summary writer resource: `init()`, `flush()` and `close()` give ops; `as_default()`
    makes summary functions write to it."""

    def __init__(self, shared_name, init_op_fn, name=None):
        self._resource = apply_op("SummaryWriter", (), name=name,
                                  shared_name=shared_name).outputs[0]
        self._init_op_fn = init_op_fn
        self._init_op = init_op_fn(self._resource)
        add_to_collection(_SUMMARY_WRITER_INIT_COLLECTION_NAME, self._init_op)

    def set_as_default(self):
        """Makes this the current thread's default writer."""
        _state.writer = self

    @contextlib.contextmanager
    def as_default(self):
        """A context in which this is the current thread's default writer."""
        old = _state.writer
        try:
            _state.writer = self
            yield self
            self.flush()
        finally:
            _state.writer = old

    def init(self):
        """An op that creates the writer's event file (a no-op if it exists)."""
        return self._init_op_fn(self._resource)

    def flush(self):
        """An op that flushes the writer."""
        return flush(writer=self)

    def close(self):
        """An op that flushes and closes the writer (the next `init()` opens a new file)."""
        with control_dependencies([self.flush()]):
            with device("cpu:0"):
                return apply_op("CloseSummaryWriter", (self._resource,))


class NoopSummaryWriter:
    """A writer that writes nothing (`create_noop_writer`, `create_file_writer(None)`)."""

    def set_as_default(self):
        pass

    @contextlib.contextmanager
    def as_default(self):
        yield

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A summary writer of event files in `logdir`, shared under `name` (default
    "logdir:" + logdir) in a session: an existing writer of that name is reused.

    Args:
      logdir: directory of the event files, or None for a writer that writes nothing.
      max_queue: events kept before a flush (default 10).
      flush_millis: the longest time between flushes (default 120,000).
      filename_suffix: appended to event file names (default ".v2").
      name: the shared name of the writer resource.
    """
    if logdir is None:
        return NoopSummaryWriter()
    logdir = str(logdir)
    with device("cpu:0"):
        if max_queue is None:
            max_queue = _constant(10)
        if flush_millis is None:
            flush_millis = _constant(2 * 60 * 1000)
        if filename_suffix is None:
            filename_suffix = _constant(".v2")
        if name is None:
            name = "logdir:" + logdir

        def init(resource):
            return apply_op("CreateSummaryFileWriter",
                            (resource, logdir, max_queue, flush_millis, filename_suffix))

        return SummaryWriter(name, init)


def create_summary_file_writer(*args, **kwargs):
    """The old name of `create_file_writer`."""
    return create_file_writer(*args, **kwargs)


def create_noop_writer():
    """A writer that writes nothing."""
    return NoopSummaryWriter()


def create_db_writer(db_uri, experiment_name=None, run_name=None, user_name=None, name=None):
    raise NotImplementedError("tf.contrib.summary.create_db_writer (SQLite summary writer)")


def summary_writer_initializer_op():
    """The ops that create every summary writer of the default graph."""
    return get_collection(_SUMMARY_WRITER_INIT_COLLECTION_NAME)


def all_summary_ops():
    """The summary ops of this module in the default graph (not import_event's)."""
    return get_collection(_SUMMARY_COLLECTION)


def initialize(graph=None, session=None):
    """Runs the writers' initializers in `session` (default: the default session); writes
    `graph` (a Graph or GraphDef) at step 0 when given."""
    from flowloom.runtime.session import get_default_session

    if _state.writer is None:
        raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("session must be passed if no default session exists")
    session.run(summary_writer_initializer_op())
    if graph is not None:
        raise NotImplementedError("tf.contrib.summary.initialize(graph=...) "
                                  "(WriteGraphSummary)")


def _choose_step(step):
    from flowloom.framework.tensor_conversion import convert_to_tensor
    from flowloom.train.training_util import get_or_create_global_step

    if step is None:
        return get_or_create_global_step()
    if not isinstance(step, Tensor):
        return convert_to_tensor(step, dtypes.int64)
    return step


def summary_writer_function(name, tensor, function, family=None):
    """Writes a summary with `function(tag, scope)` when summaries record; a no_op without a
    default writer."""
    from flowloom.ops.control_flow import control_flow_ops
    from flowloom.summary.summary import _SummaryScope

    scope_prefix = get_name_scope()
    if scope_prefix:
        scope_prefix += "/"

    def record():
        with name_scope(scope_prefix), _SummaryScope(name, family, values=[tensor]) as (
                tag, scope):
            with control_dependencies([function(tag, scope)]):
                return _constant(True)

    if _state.writer is None:
        return control_flow_ops.no_op()
    with device("cpu:0"):
        cond = should_record_summaries()
        static = constant_value(cond)
        if static is not None:
            op = record() if bool(static) else _constant(False)
        else:
            op = control_flow_ops.cond(cond, record, lambda: _constant(False), name="")
        add_to_collection(_SUMMARY_COLLECTION, op)
    return op


def _write(op_type, name, tensor, family, step, make_inputs):
    def function(tag, scope):
        from flowloom.ops.array.array_ops import identity

        inputs = make_inputs(_state.writer._resource, _choose_step(step), tag, identity(tensor))
        return apply_op(op_type, inputs, name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def generic(name, tensor, metadata=None, family=None, step=None):
    """Writes `tensor` as a tensor summary with `metadata` (a SummaryMetadata or its bytes)."""
    if metadata is None:
        metadata = b""
    elif hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    return _write("WriteSummary", name, tensor, family, step,
                  lambda w, s, tag, t: (w, s, t, tag, _constant(metadata)
                                        if not isinstance(metadata, Tensor) else metadata))


def scalar(name, tensor, family=None, step=None):
    """Writes a scalar summary (simple_value) of `tensor`."""
    return _write("WriteScalarSummary", name, tensor, family, step,
                  lambda w, s, tag, t: (w, s, tag, t))


def histogram(name, tensor, family=None, step=None):
    """Writes a histogram summary of `tensor` (TF's default buckets)."""
    return _write("WriteHistogramSummary", name, tensor, family, step,
                  lambda w, s, tag, t: (w, s, tag, t))


def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    raise NotImplementedError("tf.contrib.summary.image (WriteImageSummary)")


def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    raise NotImplementedError("tf.contrib.summary.audio (WriteAudioSummary)")


def graph(param, step=None, name=None):
    raise NotImplementedError("tf.contrib.summary.graph (WriteGraphSummary)")


def import_event(tensor, name=None):
    """Writes the serialized `Event` proto `tensor` to the default writer (whatever the
    recording condition)."""
    return apply_op("ImportEvent", (_state.writer._resource, tensor), name=name)


def flush(writer=None, name=None):
    """An op that flushes `writer` (default: the thread's default writer; no_op if none)."""
    from flowloom.ops.control_flow import control_flow_ops

    if writer is None:
        writer = _state.writer
        if writer is None:
            return control_flow_ops.no_op()
    resource = writer._resource if isinstance(writer, SummaryWriter) else writer
    with device("cpu:0"):
        return apply_op("FlushSummaryWriter", (resource,), name=name)


def eval_dir(model_dir, name=None):
    """The log directory of an evaluation's summaries under `model_dir`."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)



