"""`tf.saved_model.simple_save`: a serving SavedModel in one call."""

from flowloom.framework.graph import GraphKeys, get_collection
from flowloom.saved_model import signature_constants, tag_constants
from flowloom.saved_model.builder import SavedModelBuilder
from flowloom.saved_model.signature_def_utils import predict_signature_def


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves `session`'s graph and variables as a SavedModel tagged "serve", with one
    Predict signature ("serving_default") from the `inputs` and `outputs` dicts of tensors.
    Devices are cleared; assets come from the `asset_filepaths` collection."""
    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                         predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(session, tags=[tag_constants.SERVING],
                                   signature_def_map=signature_def_map,
                                   assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
                                   main_op=legacy_init_op, clear_devices=True)
    b.save()
