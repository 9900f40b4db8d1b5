"""slim.learning: the train op of slim programs and a training loop.

`create_train_op` is TF 1.15's: the loss waits for UPDATE_OPS, gradients are optionally
multiplied and clipped, and the returned tensor is the loss, checked for inf/nan, after the
update. `train` runs it in a session as slim's loop does (initialization, `init_fn`,
restoring the latest checkpoint of `logdir`, `number_of_steps`, periodic checkpoints and
summaries); flowloom has no Supervisor, so the loop is a plain session with those services.
"""

import logging
import os
import time

from flowloom import summary as summary_lib
from flowloom.framework.graph import (GraphKeys, control_dependencies, get_collection,
                                      get_collection_ref, get_default_graph, name_scope)
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Tensor
from flowloom.ops.array import array_ops
from flowloom.ops.checks import logging_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import clip_ops, math_ops
from flowloom.train import training_util
from flowloom.train.optimizer import Optimizer
from flowloom.io import file_system

_USE_GLOBAL_STEP = 0
_USE_DEFAULT = 0


def clip_gradient_norms(gradients_to_variables, max_norm):
    """Each gradient clipped to L2 norm `max_norm` (IndexedSlices: their values)."""
    clipped = []
    for grad, var in gradients_to_variables:
        if grad is not None:
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(clip_ops.clip_by_norm(grad.values, max_norm), grad.indices,
                                     grad.dense_shape)
            else:
                grad = clip_ops.clip_by_norm(grad, max_norm)
        clipped.append((grad, var))
    return clipped


def multiply_gradients(grads_and_vars, gradient_multipliers):
    """Gradients of the variables in `gradient_multipliers` (keyed by variable or op name)
    multiplied by their factor.

    Raises:
      ValueError: `grads_and_vars` is not a list, the multipliers are empty or not a dict, or
        a multiplier is asked for a None gradient.
    """
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")
    out = []
    for grad, var in grads_and_vars:
        if var in gradient_multipliers or var.op.name in gradient_multipliers:
            key = var if var in gradient_multipliers else var.op.name
            if grad is None:
                raise ValueError("Requested multiple of `None` gradient.")
            multiplier = gradient_multipliers[key]
            if not isinstance(multiplier, Tensor):
                multiplier = array_ops.constant(multiplier, dtype=grad.dtype)
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(grad.values * multiplier, grad.indices, grad.dense_shape)
            else:
                grad = grad * multiplier
        out.append((grad, var))
    return out


def add_gradients_summaries(grads_and_vars, _separator="/"):
    """Histogram and norm summaries `<var>/gradient`, `<var>/gradient_norm`."""
    summaries = []
    for grad, var in grads_and_vars:
        if grad is None:
            logging.info("Var %s has no gradient", var.op.name)
            continue
        values = grad.values if isinstance(grad, IndexedSlices) else grad
        summaries.append(summary_lib.histogram(var.op.name + _separator + "gradient", values))
        summaries.append(summary_lib.scalar(var.op.name + _separator + "gradient_norm",
                                            clip_ops.global_norm([values])))
    return summaries


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                    variables_to_train=None, clip_gradient_norm=0, summarize_gradients=False,
                    gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None,
                    check_numerics=True):
    """A tensor that, when evaluated, computes the gradients of `total_loss`, applies them
    with `optimizer` (incrementing `global_step`, by default the graph's global step, made if
    missing) and returns the loss.

    Args:
      total_loss: the scalar loss.
      optimizer: a tf.train.Optimizer.
      update_ops: ops run before the gradients (default: GraphKeys.UPDATE_OPS).
      variables_to_train: default all trainable variables.
      clip_gradient_norm: clip each gradient to this norm if > 0.
      summarize_gradients: add histogram/norm summaries of the gradients.
      gradient_multipliers: {variable or name: factor}.
      check_numerics: fail the step when the loss is inf or nan.
    Returns:
      The train op (the loss, after the update); also added to GraphKeys.TRAIN_OP.
    """
    if global_step is _USE_GLOBAL_STEP:
        global_step = training_util.get_or_create_global_step()
    global_update_ops = set(get_collection(GraphKeys.UPDATE_OPS))
    update_ops = global_update_ops if update_ops is None else set(update_ops)
    if not global_update_ops.issubset(update_ops):
        logging.warning("update_ops in create_train_op does not contain all the update_ops "
                        "in GraphKeys.UPDATE_OPS")
    if update_ops:
        with control_dependencies(sorted(update_ops, key=lambda o: o.name)):
            barrier = control_flow_ops.no_op(name="update_barrier")
        total_loss = control_flow_ops.with_dependencies([barrier], total_loss)
    if variables_to_train is None:
        from flowloom.variables import trainable_variables

        variables_to_train = trainable_variables()
    if not variables_to_train:
        raise ValueError("No variables to optimize.")
    grads = optimizer.compute_gradients(total_loss, variables_to_train,
                                        gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method,
                                        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if gradient_multipliers:
        with name_scope("multiply_grads"):
            grads = multiply_gradients(grads, gradient_multipliers)
    if clip_gradient_norm > 0:
        with name_scope("clip_grads"):
            grads = clip_gradient_norms(grads, clip_gradient_norm)
    if summarize_gradients:
        with name_scope("summarize_grads"):
            # create_train_op names them `<var>_gradient` (tf.contrib.training's helper).
            add_gradients_summaries(grads, _separator="_")
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with name_scope("train_op"):
        if check_numerics:
            total_loss = logging_ops.check_numerics(total_loss, "LossTensor is inf or nan")
        train_op = control_flow_ops.with_dependencies([grad_updates], total_loss)
    train_ops = get_collection_ref(GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        train_ops.append(train_op)
    return train_op


def train_step(sess, train_op, global_step, train_step_kwargs):
    """Runs `train_op` once; returns (loss, should_stop)."""
    start = time.time()
    total_loss, step = sess.run([train_op, global_step])
    elapsed = time.time() - start
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        logging.info("global step %d: loss = %.4f (%.3f sec/step)", step, total_loss, elapsed)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) \
        if "should_stop" in train_step_kwargs else False
    return total_loss, should_stop


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT,
          log_every_n_steps=1, graph=None, master="", is_chief=True, global_step=None,
          number_of_steps=None, init_op=_USE_DEFAULT, init_feed_dict=None,
          local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT,
          startup_delay_steps=0, saver=None, save_interval_secs=600, sync_optimizer=None,
          session_config=None, session_wrapper=None, trace_every_n_steps=None,
          ignore_live_threads=False):
    """Runs `train_op` until `number_of_steps` (of the global step) is reached.

    With a `logdir`: restores its latest checkpoint if there is one (otherwise runs
    `init_op` and `init_fn(sess)`), writes summaries every `save_summaries_secs` and a
    checkpoint `model.ckpt-<step>` every `save_interval_secs` and at the end.

    Returns:
      The last loss.
    Raises:
      ValueError: a None train_op, summary_op/saver/trace with no logdir, or a non-positive
        number_of_steps.
      NotImplementedError: sync_optimizer, a master other than '' (distributed training).
    """
    from flowloom import variables as tf_variables
    from flowloom.runtime.session import Session
    from flowloom.train.checkpoint_management import latest_checkpoint
    from flowloom.train.saver import Saver

    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op != _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if sync_optimizer is not None:
        raise NotImplementedError("slim.learning.train with a sync_optimizer")
    if master:
        raise NotImplementedError("slim.learning.train with a master (distributed training)")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    graph = graph or get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = training_util.get_or_create_global_step()
        saver = saver or (Saver() if logdir else None)
        with name_scope("init_ops"):
            if init_op is _USE_DEFAULT:
                init_op = tf_variables.global_variables_initializer()
            if local_init_op is _USE_DEFAULT:
                local_init_op = tf_variables.local_variables_initializer()
        if summary_op is _USE_DEFAULT:
            summary_op = summary_lib.merge_all() if logdir else None
        if train_step_kwargs is _USE_DEFAULT:
            with name_scope("train_step"):
                train_step_kwargs = {}
                if number_of_steps:
                    train_step_kwargs["should_stop"] = math_ops.greater_equal(global_step,
                                                                              number_of_steps)
                if log_every_n_steps > 0:
                    train_step_kwargs["should_log"] = math_ops.equal(
                        math_ops.mod(global_step, log_every_n_steps), 0)
    writer = None
    if logdir and summary_op is not None and summary_writer is not None:
        writer = summary_lib.FileWriter(logdir, graph) if summary_writer is _USE_DEFAULT \
            else summary_writer
    total_loss = None
    with Session(graph=graph, config=session_config) as sess:
        if session_wrapper is not None:
            sess = session_wrapper(sess)
        restored = latest_checkpoint(logdir) if logdir and file_system.isdir_ok(logdir) \
            else None
        if restored:
            saver.restore(sess, restored)
        else:
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn is not None:
                init_fn(sess)
        if local_init_op is not None:
            sess.run(local_init_op)
        last_summary = last_save = time.time()
        while True:
            total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                    train_step_kwargs)
            now = time.time()
            if writer is not None and (should_stop or now - last_summary >= save_summaries_secs):
                writer.add_summary(sess.run(summary_op), sess.run(global_step))
                last_summary = now
            if saver is not None and (should_stop or now - last_save >= save_interval_secs):
                saver.save(sess, os.path.join(logdir, "model.ckpt"), global_step=global_step)
                last_save = now
            if should_stop:
                break
    if writer is not None:
        writer.close()
    return total_loss
