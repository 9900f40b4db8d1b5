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
from flowloom.train.session_run_hook import SessionRunHook


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


class _LatestFileSaver:
    """A Saver of `saveables` whose checkpoint state file is `latest_filename`."""

    def __init__(self, saveables, latest_filename):
        from flowloom.train.saver import Saver

        self._saver = Saver(saveables)
        self._latest_filename = latest_filename

    @property
    def saver_def(self):
        return self._saver.saver_def

    def save(self, sess, save_path, global_step=None, latest_filename=None, **kwargs):
        return self._saver.save(sess, save_path, global_step=global_step,
                                latest_filename=latest_filename or self._latest_filename,
                                **kwargs)

    def restore(self, sess, save_path):
        return self._saver.restore(sess, save_path)


class CheckpointInputPipelineHook(SessionRunHook):
    """A session hook that checkpoints the graph's iterators (the "iterators" collection)
    next to an Estimator's model checkpoints, as TF 1.15 does: `input.ckpt-<step>` in the
    model directory with its own state file `checkpoint_input` (with several workers,
    `input_<task type>_<task id>`), saved on the estimator's checkpoint schedule; a new
    session restores the latest one (or saves one first).

        est.train(input_fn, hooks=[tf.data.experimental.CheckpointInputPipelineHook(est)])

    Args:
      estimator: the Estimator whose `model_dir` and RunConfig schedule are used.
    """

    def __init__(self, estimator):
        from flowloom.train.basic_session_run_hooks import CheckpointSaverHook

        config = estimator.config
        prefix = "input"
        if config.num_worker_replicas > 1:
            prefix += f"_{config.task_type}_{config.task_id}"
        self._saver_hook = CheckpointSaverHook(
            estimator.model_dir, save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps, checkpoint_basename=prefix + ".ckpt")
        self._latest_filename = "checkpoint_" + prefix
        self._first_run = True

    def begin(self):
        from flowloom.data.iterator import GLOBAL_ITERATORS

        hook = self._saver_hook
        if hook._saver is None and hook._scaffold is None:
            handles = get_default_graph().get_collection(GLOBAL_ITERATORS)
            hook._saver = _LatestFileSaver([_IteratorSaveable(h, h.name) for h in handles],
                                           self._latest_filename)
        hook.begin()

    def _restore_or_save_initial_ckpt(self, session):
        from flowloom.train.checkpoint_management import latest_checkpoint

        hook = self._saver_hook
        latest = latest_checkpoint(hook._checkpoint_dir, latest_filename=self._latest_filename)
        if latest:
            hook._get_saver().restore(session, latest)
        else:
            step = session.run(hook._global_step_tensor)
            hook._save(session, step)
            hook._timer.update_last_triggered_step(step)

    def after_create_session(self, session, coord):
        if self._first_run:
            self._restore_or_save_initial_ckpt(session)
            self._first_run = False

    def before_run(self, run_context):
        if self._first_run:
            self._restore_or_save_initial_ckpt(run_context.session)
            self._first_run = False
        return self._saver_hook.before_run(run_context)

    def after_run(self, run_context, run_values):
        self._saver_hook.after_run(run_context, run_values)

    def end(self, session):
        self._saver_hook.end(session)
