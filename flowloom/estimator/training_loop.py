"""The Estimator's training loop: build the TRAIN graph, set up the hooks TF's Estimator sets
up, and run `train_op` in a MonitoredTrainingSession until a hook stops it."""

from flowloom.estimator.mode_keys import ModeKeys
from flowloom.platform import tf_logging as logging


def train_model(estimator, input_fn, hooks, saving_listeners):
    """Builds a fresh TRAIN graph for `estimator` and trains it; returns the last loss."""
    from flowloom.framework.graph import Graph
    from flowloom.ops.random.random_ops import set_random_seed
    from flowloom.train.basic_session_run_hooks import global_step_read_tensor
    from flowloom.train.training_util import get_global_step

    worker_hooks = []
    with Graph().as_default() as g, g.device(estimator._device_fn):
        set_random_seed(estimator._config.tf_random_seed)
        global_step_tensor = estimator._create_and_assert_global_step(g)
        if global_step_tensor is not None:
            global_step_read_tensor(g)
        features, labels, input_hooks = estimator._get_features_and_labels_from_input_fn(
            input_fn, ModeKeys.TRAIN)
        worker_hooks.extend(input_hooks)
        spec = estimator._call_model_fn(features, labels, ModeKeys.TRAIN, estimator.config)
        global_step_tensor = get_global_step(g)
        return _train_with_estimator_spec(estimator, spec, worker_hooks, hooks,
                                          global_step_tensor, saving_listeners)


def _train_with_estimator_spec(estimator, spec, worker_hooks, hooks, global_step_tensor,
                               saving_listeners):
    from flowloom import summary
    from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection
    from flowloom.train import basic_session_run_hooks as hooks_lib
    from flowloom.train.monitored_session import MonitoredTrainingSession
    from flowloom.train.saver import Saver

    config = estimator._config
    if estimator._warm_start_settings:
        from flowloom.estimator.warm_starting import warm_start

        logging.info("Warm-starting with WarmStartSettings: %s"
                     % (estimator._warm_start_settings,))
        warm_start(*estimator._warm_start_settings)
    if not any(x.op.name == "loss" for x in get_collection(GraphKeys.SUMMARIES)):
        summary.scalar("loss", spec.loss)
    add_to_collection(GraphKeys.LOSSES, spec.loss)
    worker_hooks.extend(hooks)
    worker_hooks.append(hooks_lib.NanTensorHook(spec.loss))
    if config.log_step_count_steps is not None:
        worker_hooks.append(hooks_lib.LoggingTensorHook(
            {"loss": spec.loss, "step": global_step_tensor},
            every_n_iter=config.log_step_count_steps))
    worker_hooks.extend(spec.training_hooks)
    if not (spec.scaffold.saver or get_collection(GraphKeys.SAVERS)):
        add_to_collection(GraphKeys.SAVERS, Saver(
            sharded=True, max_to_keep=config.keep_checkpoint_max,
            keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
            defer_build=True, save_relative_paths=True))
    chief_hooks = []
    all_hooks = worker_hooks + list(spec.training_chief_hooks)
    saver_hooks = [h for h in all_hooks if isinstance(h, hooks_lib.CheckpointSaverHook)]
    if config.save_checkpoints_secs or config.save_checkpoints_steps:
        if not saver_hooks:
            chief_hooks = [hooks_lib.CheckpointSaverHook(
                estimator._model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, scaffold=spec.scaffold)]
            saver_hooks = [chief_hooks[0]]
    if saving_listeners:
        if not saver_hooks:
            raise ValueError(
                "There should be a CheckpointSaverHook to use saving_listeners. Please set "
                "one of the RunConfig.save_checkpoints_steps or "
                "RunConfig.save_checkpoints_secs.")
        for listener in saving_listeners:
            if listener not in saver_hooks[0]._listeners:
                saver_hooks[0]._listeners.append(listener)
    with MonitoredTrainingSession(
            master=config.master, is_chief=config.is_chief,
            checkpoint_dir=estimator._model_dir, scaffold=spec.scaffold, hooks=worker_hooks,
            chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
            save_checkpoint_secs=0, save_summaries_steps=config.save_summary_steps,
            config=estimator._session_config,
            max_wait_secs=config.session_creation_timeout_secs,
            log_step_count_steps=config.log_step_count_steps) as mon_sess:
        loss = None
        any_step_done = False
        while not mon_sess.should_stop():
            _, loss = mon_sess.run([spec.train_op, spec.loss])
            any_step_done = True
    if not any_step_done:
        logging.warning("Training with estimator made no steps. "
                        "Perhaps input is empty or misspecified.")
    return loss
