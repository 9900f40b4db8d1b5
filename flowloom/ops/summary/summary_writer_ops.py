"""Summary writer resources (TF's op types): SummaryWriter, CreateSummaryFileWriter,
FlushSummaryWriter, CloseSummaryWriter, ImportEvent, WriteSummary, WriteScalarSummary,
WriteHistogramSummary.

A summary writer is a session resource under (container, shared_name or the handle op's name),
as TF's SummaryWriterInterface resource. CreateSummaryFileWriter opens an event file in the
log directory unless the resource already has one (then it does nothing, as TF's
LookupOrCreateResource); CloseSummaryWriter closes the file and deletes the resource, so the
next CreateSummaryFileWriter starts a new file, and a flush or write of a closed writer fails
with NotFoundError. The write ops append one Event each. `tf.contrib.summary`
(flowloom/ops/summary/summary_ops_v2.py) builds them.
"""

import threading
import time

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.op_def import defop
from flowloom.io.events import EventFileWriter
from flowloom.ops.summary.summary_ops import histogram_proto, tensor_proto_of
from flowloom.proto import event_pb2, summary_pb2


class SummaryWriterResource:
    """The value of a SummaryWriter handle: the event file writer once created."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.writer = None
        self.max_queue = 10
        self.pending = 0

    def open_writer(self):
        if self.writer is None:
            raise errors.NotFoundError(
                None, None, f"Resource localhost/{self.name}/N10tensorflow22SummaryWriterInterfaceE"
                " does not exist.")
        return self.writer

    def write(self, event):
        with self.lock:
            writer = self.open_writer()
            writer.add_event(event)
            self.pending += 1
            if self.pending > self.max_queue:
                writer.flush()
                self.pending = 0


def _string(value, what):
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar")
    v = np.asarray(value, dtype=object).item()
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _event(step, summary_value=None):
    event = event_pb2.Event(step=int(np.asarray(step).item()), wall_time=time.time())
    if summary_value is not None:
        event.summary.value.add().CopyFrom(summary_value)
    return event


SummaryWriter = defop("SummaryWriter", outputs=["writer: resource"],
                      attrs={"shared_name": "", "container": ""}, stateful=True)
SummaryWriter.shape(lambda op: tensor_shape.TensorShape([]))


@SummaryWriter.kernel
def _(xp, *, shared_name, container, ctx):
    name = shared_name or ctx.op._name
    key = ("summary_writer", container, name)
    found = ctx.resources.get(key)
    if found is None:
        found = ctx.resources.setdefault(key, SummaryWriterResource(name))
    return found


SummaryWriter.no_gradient()

CreateSummaryFileWriter = defop(
    "CreateSummaryFileWriter", inputs=["writer: resource", "logdir: string",
                                       "max_queue: int32", "flush_millis: int32",
                                       "filename_suffix: string"], stateful=True)
CreateSummaryFileWriter.shape(lambda op: [])


@CreateSummaryFileWriter.kernel
def _(xp, resource, logdir, max_queue, flush_millis, filename_suffix):
    logdir = _string(logdir, "logdir").decode("utf-8")
    suffix = _string(filename_suffix, "filename_suffix").decode("utf-8")
    with resource.lock:
        if resource.writer is not None:
            return  # an existing writer is reused; the other arguments have no effect
        resource.max_queue = int(max_queue)
        resource.pending = 0
        resource.writer = EventFileWriter(logdir, int(max_queue),
                                          max(int(flush_millis), 0) / 1000.0, suffix)


FlushSummaryWriter = defop("FlushSummaryWriter", inputs=["writer: resource"], stateful=True)
FlushSummaryWriter.shape(lambda op: [])


@FlushSummaryWriter.kernel
def _(xp, resource):
    with resource.lock:
        resource.open_writer().flush()
        resource.pending = 0


CloseSummaryWriter = defop("CloseSummaryWriter", inputs=["writer: resource"], stateful=True)
CloseSummaryWriter.shape(lambda op: [])


@CloseSummaryWriter.kernel
def _(xp, resource):
    with resource.lock:
        writer = resource.open_writer()
        writer.close()
        resource.writer = None


ImportEvent = defop("ImportEvent", inputs=["writer: resource", "event: string"], stateful=True)
ImportEvent.shape(lambda op: [])


@ImportEvent.kernel
def _(xp, resource, event):
    data = _string(event, "event")
    try:
        parsed = event_pb2.Event.FromString(data)
    except Exception as e:  # noqa: BLE001 - a bad proto is the caller's error
        raise errors.DataLossError(None, None, f"Bad tf.Event binary proto: {e}") from None
    resource.write(parsed)


WriteSummary = defop("WriteSummary", inputs=["writer: resource", "step: int64", "tensor: T",
                                             "tag: string", "summary_metadata: string"],
                     stateful=True)
WriteSummary.shape(lambda op: [])


@WriteSummary.kernel
def _(xp, resource, step, tensor, tag, metadata, *, ctx):
    value = summary_pb2.Summary.Value(tag=_string(tag, "tag").decode("utf-8", "replace"))
    value.tensor.CopyFrom(tensor_proto_of(tensor, ctx.op._inputs[2]._dtype))
    value.metadata.MergeFromString(_string(metadata, "summary_metadata"))
    resource.write(_event(step, value))


WriteScalarSummary = defop("WriteScalarSummary", inputs=["writer: resource", "step: int64",
                                                         "tag: string", "value: T"],
                           stateful=True)
WriteScalarSummary.shape(lambda op: [])


@WriteScalarSummary.kernel
def _(xp, resource, step, tag, value):
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Can't write a scalar summary of a tensor of shape {list(np.shape(value))}")
    v = summary_pb2.Summary.Value(tag=_string(tag, "tag").decode("utf-8", "replace"),
                                  simple_value=float(value))
    resource.write(_event(step, v))


WriteHistogramSummary = defop("WriteHistogramSummary",
                              inputs=["writer: resource", "step: int64", "tag: string",
                                      "values: T"], attrs={"T": dtypes.float32},
                              stateful=True)
WriteHistogramSummary.shape(lambda op: [])


@WriteHistogramSummary.kernel
def _(xp, resource, step, tag, values):
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise errors.InvalidArgumentError(None, None, "Nan in summary histogram for: "
                                          + _string(tag, "tag").decode("utf-8", "replace"))
    v = summary_pb2.Summary.Value(tag=_string(tag, "tag").decode("utf-8", "replace"))
    v.histo.CopyFrom(histogram_proto(values))
    resource.write(_event(step, v))


for _od in (CreateSummaryFileWriter, FlushSummaryWriter, CloseSummaryWriter, ImportEvent,
            WriteSummary, WriteScalarSummary, WriteHistogramSummary):
    _od.no_gradient()
