"""GatherTree: the beam-search backtrace (each final beam's ids, following its parents back
from the last step), as TF's contrib op; steps after a beam's end token are end tokens."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

GatherTree = defop("GatherTree",
                   inputs=["step_ids: T", "parent_ids: T", "max_sequence_lengths: int32",
                           "end_token: T"],
                   outputs=["beams: T"], attrs={"T": dtypes.int32})
GatherTree.no_gradient()


@GatherTree.shape
def _(op):
    step_ids, parent_ids = op._inputs[0]._shape, op._inputs[1]._shape
    step_ids.with_rank(3)
    return step_ids.merge_with(parent_ids)


@GatherTree.kernel
def _(xp, step_ids, parent_ids, max_sequence_lengths, end_token, **attrs):
    def err(msg):
        return errors.InvalidArgumentError(None, None, msg)

    if step_ids.ndim != 3:
        raise err("step_ids must be a 3-tensor, saw shape: %s" % (list(step_ids.shape),))
    if parent_ids.shape != step_ids.shape:
        raise err("step_ids.shape must match parent_ids.shape.  but shapes are: %s and %s"
                  % (list(step_ids.shape), list(parent_ids.shape)))
    max_time, batch_size, beam_width = step_ids.shape
    if max_sequence_lengths.shape != (batch_size,):
        raise err("batch size dimensions step_ids.shape[1] and max_sequence_lengths.shape[0] "
                  "must match.  but shapes are: %s and %s"
                  % (list(step_ids.shape), list(max_sequence_lengths.shape)))
    end = np.asarray(end_token).item()
    beams = np.full(step_ids.shape, end, dtype=step_ids.dtype)
    for b in range(batch_size):
        length = min(max_time, int(max_sequence_lengths[b]))
        if length <= 0:
            continue
        for k in range(beam_width):
            beams[length - 1, b, k] = step_ids[length - 1, b, k]
            parent = int(parent_ids[length - 1, b, k])
            for level in range(length - 2, -1, -1):
                if parent < 0 or parent > beam_width:
                    raise err("Saw invalid parent id %d at (batch, time, beam) == (%d, %d, %d)"
                              % (parent, b, level, k))
                beams[level, b, k] = step_ids[level, b, parent]
                parent = int(parent_ids[level, b, parent])
            finished = False
            for t in range(length):
                if finished:
                    beams[t, b, k] = end
                elif beams[t, b, k] == end:
                    finished = True
    return beams


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """The ids of each beam traced back through `parent_ids` ([max_time, batch, beam])."""
    from flowloom.framework.ops import convert_to_tensor

    step_ids = convert_to_tensor(step_ids, name="step_ids")
    return apply_op("GatherTree", (step_ids, parent_ids, max_sequence_lengths,
                                   convert_to_tensor(end_token, dtype=step_ids.dtype)),
                    name=name).outputs[0]
