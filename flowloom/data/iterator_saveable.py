"""`tf.data.experimental.make_saveable_from_iterator`: an iterator's position in a checkpoint.

    saveable = tf.data.experimental.make_saveable_from_iterator(iterator)
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
    saver = tf.train.Saver()   # saves and restores the iterator with the variables

The checkpoint entry is `<iterator tensor name>-state`, a scalar variant, as TF 1.15 writes
it; its contents are flowloom's (ops/data/iterator_state.py): a restore continues at the
element after the last one read before the save.
"""

from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph
from flowloom.ops.data import iterator_state  # noqa: F401 - registers the ops
from flowloom.train.saveable_object import SaveableObject, SaveSpec


class _IteratorSaveable(SaveableObject):
    """The iterator resource `handle` saved as one variant entry, `<name>-state`."""

    def __init__(self, handle, name):
        serialized = apply_op("SerializeIterator", (handle,)).outputs[0]
        super().__init__(handle, [SaveSpec(serialized, "", name + "-state")], name)

    def restore(self, restored_tensors, restored_shapes):
        with get_default_graph().colocate_with(self.op):
            return apply_op("DeserializeIterator", (self.op, restored_tensors[0]))


def make_saveable_from_iterator(iterator):
    """A SaveableObject for `iterator`'s state: add it to the `saveable_objects` collection
    (or a Saver's var_list) and a Saver writes the iterator's position with the variables
    and restores it.

    Args:
      iterator: a `tf.data.Iterator` (one-shot, initializable or reinitializable). Restoring
        needs it initialized in that session first (a one-shot iterator is by the restore
        itself).

    Returns:
      A `SaveableObject`.
    """
    handle = iterator._handle
    return _IteratorSaveable(handle, handle.name)
