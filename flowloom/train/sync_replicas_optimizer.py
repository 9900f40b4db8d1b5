"""`tf.train.SyncReplicasOptimizer`: synchronous training of replicas through the ps.

Each replica applies its gradients to one conditional accumulator per variable (on the
variable's device); the chief's queue runner takes the mean of `replicas_to_aggregate`
gradients per variable, applies it with the wrapped optimizer, increments the global step
and puts one token per replica into `sync_token_q`. A replica's train op ends by taking a
token (the new global step), which becomes its local step: gradients computed against older
variables are stale and dropped by the accumulators. The graph is TF 1.15's (op and variable
names, devices).
"""

import logging

from flowloom import variables
from flowloom.data.accumulators import ConditionalAccumulator, SparseConditionalAccumulator
from flowloom.data.queues import FIFOQueue
from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, colocate_with, control_dependencies, device, \
    name_scope
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.state import state_ops
from flowloom.train import queue_runner
from flowloom.train.optimizer import Optimizer
from flowloom.train.session_run_hook import SessionRunHook

_log = logging.getLogger("flowloom")


class SyncReplicasOptimizer(Optimizer):
    """Aggregates the gradients of `replicas_to_aggregate` replicas before applying them.

    ```python
    opt = tf.train.GradientDescentOptimizer(0.1)
    opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=2)
    train_op = opt.minimize(loss, global_step=global_step)
    hook = opt.make_session_run_hook(is_chief)
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           hooks=[hook]) as sess:
      while not sess.should_stop():
        sess.run(train_op)
    ```

    Args:
      opt: the optimizer that applies the aggregated gradients.
      replicas_to_aggregate: gradients aggregated per variable update.
      total_num_replicas: replicas taking part (default `replicas_to_aggregate`); more than
        `replicas_to_aggregate` gives backup replicas.
      variable_averages: an optional `ExponentialMovingAverage` the chief applies after each
        update to `variables_to_average`.
      variables_to_average: the variables `variable_averages` averages.
      use_locking: passed to the base Optimizer.
      name: the name scope of the accumulators.
    """

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None,
                 variable_averages=None, variables_to_average=None, use_locking=False,
                 name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        _log.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                  replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's `compute_gradients`."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the accumulators, the chief's update and the token queue; returns the train
        op of a replica (apply its gradients, then wait for a token).

        Raises:
          ValueError: no gradients, no `global_step`, or a gradient of an unknown type.
        """
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated_grad, var_list = [], [], []
        # The local step lives on the replica's own device (where this no-op is placed).
        local_anchor = control_flow_ops.no_op()
        with colocate_with(local_anchor):
            self._local_step = variables.Variable(
                initial_value=0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables.report_uninitialized_variables(
            variables.global_variables())
        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)
                        continue
                    if isinstance(grad, Tensor):
                        accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                       shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_grad(self._replicas_to_aggregate))
                    else:
                        if not isinstance(grad, IndexedSlices):
                            raise ValueError("Unknown grad type!")
                        accum = SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_indexed_slices_grad(
                            grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_indexed_slices_grad(
                            self._replicas_to_aggregate))
                    self._accumulator_list.append((accum, var.device))
            aggregated_grads_and_vars = zip(aggregated_grad, var_list)
            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)
            with device(global_step.device), name_scope(""):
                sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                             name="sync_token_q", shared_name="sync_token_q")
                self._sync_token_queue = sync_token_queue
                dummy_queue = FIFOQueue(1, dtypes.int32, shapes=(), name="dummy_queue",
                                        shared_name="dummy_queue")
            with device(global_step.device), name_scope(""):
                with control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = queue_runner.QueueRunner(dummy_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step,
                                                                name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner the chief runs: it takes the aggregated gradients, updates the
        variables and hands out tokens.

        Raises:
          ValueError: called before apply_gradients().
        """
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op the chief runs once to fill the token queue (`num_tokens`; -1:
        `replicas_to_aggregate`), or a no-op for 0 tokens.

        Raises:
          ValueError: called before apply_gradients(), or too few tokens for the first step.
        """
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError("Too few tokens to finish the first step: %d (given) vs %d "
                             "(needed)" % (num_tokens, tokens_needed))
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A SessionRunHook that initializes the local step (and, on the chief, the tokens
        and the chief's queue runner) after the session is created."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs SyncReplicasOptimizer's local init (and the chief's tokens and queue runner)."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        from flowloom.train.session_manager import _ready

        ok, msg = _ready(self._ready_for_local_init_op, session,
                         "Model is not ready for SyncReplicasOptimizer local init.")
        if not ok:
            raise RuntimeError("Init operations did not make model ready for "
                               "SyncReplicasOptimizer local_init. Init op: %s, error: %s"
                               % (self._local_init_op.name, msg))
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
