"""Loading a SavedModel into a session (TF's `tf.saved_model.loader`).

    meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
    sig = meta.signature_def["serving_default"]
    y = sess.graph.get_tensor_by_name(sig.outputs["y"].name)
"""

import os

from flowloom.proto import meta_graph_pb2, saved_model_pb2
from flowloom.saved_model import constants
from flowloom.io import file_system

# A saved_model.pb larger than this is refused before it is read (protobuf's own limit).
MAX_SAVED_MODEL_BYTES = 2 ** 31 - 1


def parse_saved_model(export_dir):
    """Reads the `SavedModel` proto of `export_dir` (`saved_model.pb` or `.pbtxt`).

    Raises:
      IOError: neither file exists, or one cannot be parsed (TF's error and wording).
    """
    from google.protobuf import message, text_format

    export_dir = os.fsdecode(export_dir)
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = saved_model_pb2.SavedModel()
    if file_system.exists(pb):
        if file_system.getsize(pb) > MAX_SAVED_MODEL_BYTES:
            raise IOError(f"Cannot parse file {pb}: larger than 2 GiB.")
        try:
            with file_system.open_file(pb, "rb") as f:
                saved_model.ParseFromString(f.read())
        except message.DecodeError as e:
            raise IOError(f"Cannot parse file {pb}: {e}.") from None
        return saved_model
    if file_system.exists(pbtxt):
        try:
            with file_system.open_file(pbtxt, "rb") as f:
                text_format.Merge(f.read().decode("utf-8"), saved_model)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise IOError(f"Cannot parse file {pbtxt}: {e}.") from None
        return saved_model
    raise IOError(f"SavedModel file does not exist at: {export_dir}/"
                  f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
                  f"{constants.SAVED_MODEL_FILENAME_PB}}}")


def maybe_saved_model_directory(export_dir):
    """Whether `export_dir` holds a `saved_model.pb` or `saved_model.pbtxt`."""
    export_dir = os.fsdecode(export_dir)
    return any(file_system.exists(os.path.join(export_dir, name)) for name in
               (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


contains_saved_model = maybe_saved_model_directory


def meta_graph_for_tags(saved_model, tags):
    """The MetaGraphDef whose tag set equals `tags`.

    Raises:
      RuntimeError: no MetaGraph has exactly these tags (TF's wording).
    """
    available = []
    for meta in saved_model.meta_graphs:
        available.append(set(meta.meta_info_def.tags))
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    raise RuntimeError(
        "MetaGraphDef associated with tags " + str(list(tags)).strip("[]") +
        " could not be found in SavedModel. To inspect available tag-sets in the SavedModel, "
        "please use the SavedModel CLI: `saved_model_cli`\navailable_tags: " + str(available))


def get_asset_tensors(export_dir, meta_graph_def, import_scope=None):
    """Asset tensor name -> absolute path of the asset file in `export_dir/assets`."""
    assets = list(meta_graph_def.asset_file_def)
    if not assets and constants.ASSETS_KEY in meta_graph_def.collection_def:
        for any_proto in meta_graph_def.collection_def[constants.ASSETS_KEY].any_list.value:
            asset = meta_graph_pb2.AssetFileDef()
            any_proto.Unpack(asset)
            assets.append(asset)
    assets_dir = os.path.join(os.fsdecode(export_dir), constants.ASSETS_DIRECTORY)
    out = {}
    for asset in assets:
        name = asset.tensor_info.name
        if import_scope:
            name = f"{import_scope}/{name}"
        filename = os.path.basename(asset.filename)  # never a path out of assets/
        out[name] = os.path.join(assets_dir, filename)
    return out


def _init_op(meta_graph_def, graph, import_scope):
    sig = meta_graph_def.signature_def.get(constants.INIT_OP_SIGNATURE_KEY)
    if sig is not None and constants.INIT_OP_SIGNATURE_KEY in sig.outputs:
        name = sig.outputs[constants.INIT_OP_SIGNATURE_KEY].name
        if import_scope:
            name = f"{import_scope}/{name}"
        return graph.as_graph_element(name)
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta_graph_def.collection_def:
            nodes = meta_graph_def.collection_def[key].node_list.value
            if len(nodes) != 1:
                raise RuntimeError("Expected exactly one SavedModel init op. "
                                   f"Found: {list(nodes)}")
            ops = graph.get_collection(key)
            if ops:
                return ops[0]
    return None


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the MetaGraph tagged `tags` into `sess`'s graph and restores its variables.

    Then runs the SavedModel's main op (or legacy init op), feeding the asset paths.

    Args:
      sess: the Session to restore into (its graph receives the ops).
      tags: the tag set of the MetaGraph to load.
      export_dir: the SavedModel directory.
      import_scope: put the loaded names under this name scope.
      **saver_kwargs: passed to `tf.train.import_meta_graph`.

    Returns:
      The loaded `MetaGraphDef` (signatures, collections, ...).

    Raises:
      IOError: no SavedModel at `export_dir`.
      RuntimeError: no MetaGraph with these tags.
    """
    from flowloom.framework.meta_graph import import_meta_graph
    from flowloom.train.saver import Saver

    saved_model = parse_saved_model(export_dir)
    meta = meta_graph_for_tags(saved_model, tags)
    graph = sess.graph
    with graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        variables_path = os.path.join(os.fsdecode(export_dir), constants.VARIABLES_DIRECTORY,
                                      constants.VARIABLES_FILENAME)
        if isinstance(saver, Saver):
            saver.restore(sess, variables_path)
        elif saver is not None:
            raise ValueError("No tf.train.Saver object was passed to the function "
                             "SavedModelLoader.restore_variables. Since there are variables in "
                             "the graph, a saver is required.")
        init_op = _init_op(meta, graph, import_scope)
        if init_op is not None:
            assets = get_asset_tensors(export_dir, meta, import_scope)
            sess.run([init_op], feed_dict=assets)
    return meta


