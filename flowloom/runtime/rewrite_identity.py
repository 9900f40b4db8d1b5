"""Identity and NoOp removal, a stage of the `dependency_optimization` rewrite (as Grappler's
dependency optimizer removes them).

An `Identity` (or `StopGradient`/`PreventGradient`, identities when run) is dropped and its
consumers read its input directly when nothing depends on it being there:

- it moves no value across devices: its input's producer, the identity and every consumer of
  its output are on one device (an identity that copies a value to another device, so that
  its readers there share one copy, stays);
- it carries no control dependency: it has no control inputs (`with
  tf.control_dependencies([update]): y = tf.identity(x)` makes `y` wait for `update`) and no
  op waits for it through a control edge;
- it is not fetched, fed or a target (a fetch names it), and its input is a plain array: an
  identity of a variable reference reads the variable at that point of the run, so it stays.

A `NoOp` that is not a target and whose control inputs and control consumers are all on its
device is dropped: within one device the plan runs its ops in an order where every op
follows what it waits for, so an edge through a NoOp orders nothing the order does not.
"""

from flowloom.runtime.rewrite_oplist import OpListPass, is_plain

IDENTITY_TYPES = frozenset(["Identity", "StopGradient", "PreventGradient"])


def remove(order, fetch_tensors, target_ops, placement, fed, placed_as, noops=True):
    """(new op list, {dropped tensor: tensor}, placed_as, identities dropped, NoOps dropped).

    With `noops=False` NoOps stay (a dataflow plan reroutes their control edges instead:
    runtime/rewrite_frames.py)."""
    walk = OpListPass(order, fetch_tensors, target_ops, placement, fed, placed_as)
    counts = [0, 0]

    def same_device(op, others):
        dev = walk.device(op)
        return all(walk.device(o) is dev for o in others)

    def visit(op):
        if noops and op._type == "NoOp" and not op._inputs and op not in walk.targets and \
                same_device(op, op._control_inputs) and \
                same_device(op, walk.control_users.get(op, ())):
            counts[1] += 1
            return []
        if walk.preserved(op):
            return op
        if op._type in IDENTITY_TYPES and len(op._inputs) == 1 and not op._control_inputs:
            src = op._inputs[0]
            out = op._outputs[0]
            if is_plain(src) and walk.device_of(src) is walk.device(op) and \
                    same_device(op, walk.consumers.get(out, ())):
                counts[0] += 1
                return [src]
        return op

    new_order = walk.run(visit)
    return new_order, walk.aliases, walk.placed_as, counts[0], counts[1]
