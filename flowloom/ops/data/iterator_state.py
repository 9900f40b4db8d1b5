"""An iterator's saved state (tf.data.experimental.make_saveable_from_iterator): ops
SerializeIterator and DeserializeIterator, TF 1.15's, whose value is a scalar variant that a
Saver writes into a checkpoint (io/bundle.py frames variants as TF does).

flowloom's encoding is a replay record, not TF's per-dataset state: a VariantTensorDataProto
of type `flowloom.IteratorReplayState` holding the number of elements the iterator had handed
out, the random state of the dataset's parts when its iteration began (shuffle and random
dataset seeds, shuffle reshuffle draws) and the kinds of those parts, to refuse a state saved
from another pipeline. Restoring restarts the iteration with that random state and skips the
elements already handed out (recomputing them: the cost of a restore grows with the elements
read). Datasets made inside dataset functions (flat_map, interleave) and stateful random ops
inside functions are recomputed as they come; TF 1.15 refuses to save the latter at all.

A state TensorFlow wrote (type `tensorflow::Iterator`) is refused with InvalidArgumentError:
its per-dataset records are not read. Nothing in a state is executed: it is integers.
"""

import numpy as np

from flowloom.framework import common_shapes, errors
from flowloom.framework.op_def import defop
from flowloom.ops.data.dataset_values import DatasetValue
from flowloom.proto import tensor_pb2

TYPE_NAME = "flowloom.IteratorReplayState"
TF_TYPE_NAME = "tensorflow::Iterator"
_VERSION = b"1"
_INPUT_ATTRS = ("input", "inputs", "first", "second", "selector")


def _parts(value):
    """`value` and the dataset values it reads, depth first (fixed order)."""
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        out.append(node)
        children = []
        for name in _INPUT_ATTRS:
            child = getattr(node, name, None)
            if isinstance(child, DatasetValue):
                children.append(child)
            elif isinstance(child, (list, tuple)):
                children.extend(c for c in child if isinstance(c, DatasetValue))
        stack.extend(reversed(children))
    return out


def random_state(value):
    """[(kind, [ints])] for the parts of `value` that hold random state."""
    return [(type(p).__name__, [int(v) for v in p.random_state()])
            for p in _parts(value) if hasattr(p, "random_state")]


def set_random_state(value, state, op):
    parts = [p for p in _parts(value) if hasattr(p, "random_state")]
    kinds = [type(p).__name__ for p in parts]
    if kinds != [k for k, _ in state]:
        raise errors.InvalidArgumentError(
            None, op, f"The saved iterator state is for another input pipeline: its random "
            f"parts are {[k for k, _ in state]}, this pipeline's are {kinds}")
    for part, (_, values) in zip(parts, state):
        part.set_random_state(values)


def _int_tensor(values, dtype=np.int64):
    t = tensor_pb2.TensorProto(dtype=9 if dtype == np.int64 else 23)  # DT_INT64 / DT_UINT64
    t.tensor_shape.dim.add(size=len(values))
    if dtype == np.int64:
        t.int64_val.extend(int(v) for v in values)
    else:
        t.uint64_val.extend(int(v) for v in values)
    return t


def encode(resource):
    """The scalar variant value (an object array of one VariantTensorDataProto)."""
    proto = tensor_pb2.VariantTensorDataProto(type_name=TYPE_NAME, metadata=_VERSION)
    state = resource.start_state or []
    kinds = tensor_pb2.TensorProto(dtype=7)  # DT_STRING
    kinds.tensor_shape.dim.add(size=len(state))
    kinds.string_val.extend(k.encode() for k, _ in state)
    lengths = [len(v) for _, v in state]
    flat = [x & ((1 << 64) - 1) for _, v in state for x in v]
    proto.tensors.extend([_int_tensor([resource.produced]), kinds, _int_tensor(lengths),
                          _int_tensor(flat, np.uint64)])
    out = np.empty((), dtype=object)
    out[()] = proto
    return out


def decode(value, op):
    """(produced, start_state) of a saved state.

    Raises:
      InvalidArgumentError: the value is not a state flowloom wrote (TF's, or malformed).
    """
    proto = np.asarray(value, dtype=object).reshape(-1)
    proto = proto[0] if proto.size == 1 else None
    if not isinstance(proto, tensor_pb2.VariantTensorDataProto):
        raise errors.InvalidArgumentError(None, op, "DeserializeIterator needs one serialized "
                                          "iterator state (a scalar variant)")
    if proto.type_name == TF_TYPE_NAME:
        raise errors.InvalidArgumentError(
            None, op, "This iterator state was written by TensorFlow (a serialized "
            "tensorflow::Iterator); flowloom cannot read TensorFlow's iterator states. "
            "Restore the model's variables without it (leave the iterator out of the "
            "Saver's var_list) and restart the input pipeline.")
    if proto.type_name != TYPE_NAME or proto.metadata != _VERSION or len(proto.tensors) != 4:
        raise errors.InvalidArgumentError(
            None, op, f"Not a flowloom iterator state: type {proto.type_name!r}, "
            f"{len(proto.tensors)} tensors")
    produced, kinds, lengths, flat = proto.tensors
    if len(produced.int64_val) != 1 or produced.int64_val[0] < 0 or \
            len(kinds.string_val) != len(lengths.int64_val) or \
            any(n < 0 for n in lengths.int64_val) or \
            sum(lengths.int64_val) != len(flat.uint64_val):
        raise errors.InvalidArgumentError(None, op, "Malformed flowloom iterator state")
    state, pos = [], 0
    for kind, n in zip(kinds.string_val, lengths.int64_val):
        state.append((kind.decode("utf-8", "replace"), list(flat.uint64_val[pos:pos + n])))
        pos += n
    return int(produced.int64_val[0]), state


SerializeIterator = defop("SerializeIterator", inputs=["resource_handle: resource"],
                          outputs=["serialized: variant"], stateful=True)
SerializeIterator.shape(common_shapes.scalar_shape)
SerializeIterator.no_gradient()


@SerializeIterator.kernel
def _(xp, resource):
    return encode(resource)


DeserializeIterator = defop("DeserializeIterator",
                            inputs=["resource_handle: resource", "serialized: variant"],
                            stateful=True)
DeserializeIterator.shape(lambda op: [])
DeserializeIterator.no_gradient()


@DeserializeIterator.kernel
def _(xp, resource, serialized, *, ctx):
    produced, state = decode(serialized, ctx.op)
    if resource.dataset is None:
        raise errors.FailedPreconditionError(
            None, ctx.op, "DeserializeIterator needs an iterator that was initialized (run its "
            "initializer before restoring its state)")
    resource.initialize(resource.dataset, ctx.op, produced=produced, start_state=state)
    return ()
