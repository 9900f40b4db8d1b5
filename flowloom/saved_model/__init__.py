"""SavedModels, as TF1 writes and reads them (`tf.saved_model`).

    builder = tf.saved_model.builder.SavedModelBuilder("/tmp/model/1")
    builder.add_meta_graph_and_variables(
        sess, [tf.saved_model.tag_constants.SERVING],
        signature_def_map={"serving_default":
                           tf.saved_model.predict_signature_def({"x": x}, {"y": y})})
    builder.save()

    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], "/tmp/model/1")
"""

from flowloom.saved_model import constants, signature_constants, tag_constants
from flowloom.saved_model import builder, loader, main_op, signature_def_utils, utils
from flowloom.saved_model.builder import SavedModelBuilder
from flowloom.saved_model.constants import (ASSETS_DIRECTORY, ASSETS_KEY, LEGACY_INIT_OP_KEY,
                                            MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB,
                                            SAVED_MODEL_FILENAME_PBTXT,
                                            SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY,
                                            VARIABLES_FILENAME)
from flowloom.saved_model.loader import contains_saved_model, load, maybe_saved_model_directory
from flowloom.saved_model.main_op import main_op_with_restore
from flowloom.saved_model.signature_constants import (
    CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS,
    REGRESS_INPUTS, REGRESS_METHOD_NAME, REGRESS_OUTPUTS)
from flowloom.saved_model.signature_def_utils import (build_signature_def,
                                                      classification_signature_def,
                                                      is_valid_signature,
                                                      predict_signature_def,
                                                      regression_signature_def)
from flowloom.saved_model.simple_save import simple_save
from flowloom.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
from flowloom.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info

Builder = SavedModelBuilder
