"""Estimator exports: a SavedModel with one MetaGraph per requested mode, written into a
`temp-<timestamp>` directory and renamed to `<timestamp>` when complete."""

import os

from flowloom.estimator.mode_keys import ModeKeys
from flowloom.io import file_system


def export_all_saved_models(estimator, export_dir_base, input_receiver_fn_map,
                            assets_extra=None, as_text=False, checkpoint_path=None,
                            strip_default_attrs=True):
    """Writes the SavedModel of `estimator`'s checkpoint; returns its directory (bytes).

    Raises:
      ValueError: no checkpoint, or no mode in `input_receiver_fn_map`.
    """
    from flowloom.estimator.export.export_utils import (get_temp_export_dir,
                                                        get_timestamped_export_dir)
    from flowloom.saved_model.builder import SavedModelBuilder
    from flowloom.train.checkpoint_management import latest_checkpoint

    if not checkpoint_path:
        checkpoint_path = latest_checkpoint(estimator._model_dir)
    if not checkpoint_path:
        settings = estimator._warm_start_settings
        if not settings:
            raise ValueError(f"Couldn't find trained model at {estimator._model_dir}.")
        checkpoint_path = settings.ckpt_to_initialize_from
        if file_system.isdir_ok(checkpoint_path):
            checkpoint_path = latest_checkpoint(checkpoint_path)
    export_dir = get_timestamped_export_dir(export_dir_base)
    temp_export_dir = get_temp_export_dir(export_dir)
    builder = SavedModelBuilder(os.fsdecode(temp_export_dir))
    save_variables = True
    for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
        if input_receiver_fn_map.get(mode):
            _add_meta_graph_for_mode(estimator, builder, input_receiver_fn_map,
                                     checkpoint_path, save_variables, mode=mode,
                                     strip_default_attrs=strip_default_attrs)
            save_variables = False
    if save_variables:
        raise ValueError(f"No valid modes for exporting found. Got "
                         f"{input_receiver_fn_map.keys()}.")
    builder.save(as_text)
    if assets_extra:
        extra_path = os.path.join(os.fsdecode(temp_export_dir), "assets.extra")
        for dest_relative, source in assets_extra.items():
            dest = os.path.join(extra_path, os.fsdecode(dest_relative))
            file_system.makedirs(os.path.dirname(dest), exist_ok=True)
            file_system.copyfile(source, dest)
    file_system.replace(temp_export_dir, export_dir)
    return export_dir


def _add_meta_graph_for_mode(estimator, builder, input_receiver_fn_map, checkpoint_path,
                             save_variables=True, mode=ModeKeys.PREDICT, export_tags=None,
                             check_variables=True, strip_default_attrs=True):
    from flowloom.estimator.export.export_utils import (EXPORT_TAG_MAP,
                                                        build_all_signature_defs,
                                                        export_outputs_for_mode)
    from flowloom.framework import errors
    from flowloom.framework.graph import GraphKeys, Graph, add_to_collection, get_collection
    from flowloom.ops.random.random_ops import set_random_seed
    from flowloom.runtime.session import Session
    from flowloom.saved_model.constants import TRAIN_OP_KEY
    from flowloom.train.saver import Saver
    from flowloom.train.scaffold import Scaffold

    if export_tags is None:
        export_tags = EXPORT_TAG_MAP[mode]
    input_receiver_fn = input_receiver_fn_map[mode]
    with Graph().as_default() as g:
        estimator._create_and_assert_global_step(g)
        set_random_seed(estimator._config.tf_random_seed)
        input_receiver = input_receiver_fn()
        spec = estimator._call_model_fn(features=input_receiver.features,
                                        labels=getattr(input_receiver, "labels", None),
                                        mode=mode, config=estimator.config)
        export_outputs = export_outputs_for_mode(
            mode=spec.mode, serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions, loss=spec.loss, metrics=spec.eval_metric_ops)
        signature_def_map = build_all_signature_defs(
            input_receiver.receiver_tensors, export_outputs,
            getattr(input_receiver, "receiver_tensors_alternatives", None),
            serving_only=(mode == ModeKeys.PREDICT))
        with Session(config=estimator._session_config) as session:
            local_init_op = (spec.scaffold.local_init_op
                             if spec.scaffold.local_init_op is not None
                             else Scaffold.default_local_init_op())
            graph_saver = spec.scaffold.saver or Saver(sharded=True)
            if save_variables and not check_variables:
                raise ValueError("If `save_variables` is `True, `check_variables`must not be "
                                 "`False`.")
            if check_variables:
                try:
                    graph_saver.restore(session, checkpoint_path)
                except errors.NotFoundError as e:
                    raise ValueError(
                        "Could not load all requested variables from checkpoint. Please make "
                        "sure your model_fn does not expect variables that were not saved in "
                        "the checkpoint.\n\nEncountered error with mode `{}` while restoring "
                        "checkpoint from: `{}`. Full Traceback:\n\n{}".format(
                            mode, checkpoint_path, e)) from e
            if spec.train_op is not None:
                add_to_collection(TRAIN_OP_KEY, spec.train_op)
            kwargs = dict(tags=export_tags, signature_def_map=signature_def_map,
                          assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
                          main_op=local_init_op, saver=graph_saver,
                          strip_default_attrs=strip_default_attrs)
            if save_variables:
                builder.add_meta_graph_and_variables(session, **kwargs)
            else:
                builder.add_meta_graph(**kwargs)
