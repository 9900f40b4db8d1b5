"""SavedModelBuilder: writes `saved_model.pb`, `variables/` and `assets/` as TF1 does.

    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.SERVING],
                                         signature_def_map={"serving_default": sig})
    builder.save()
"""

import filecmp
import os

from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection
from flowloom.framework.ops import Operation, Tensor
from flowloom.io.atomic_file import write_atomic
from flowloom.platform import tf_logging
from flowloom.proto import meta_graph_pb2, saved_model_pb2, saver_pb2, types_pb2
from flowloom.saved_model import constants
from flowloom.io import file_system


class SavedModelBuilder:
    """Builds a SavedModel: one set of variables and assets, one or more tagged MetaGraphs.

    Args:
      export_dir: the directory to write; it must not exist or be empty.

    Raises:
      AssertionError: `export_dir` exists and is not empty (TF's error).
    """

    def __init__(self, export_dir):
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._export_dir = os.fsdecode(export_dir)
        if file_system.exists(self._export_dir):
            if file_system.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the specified "
                    f"directory: {self._export_dir}")
        else:
            file_system.makedirs(self._export_dir)
        self._has_saved_variables = False
        self._assets = {}  # file name in assets/ -> source path

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables and adds the graph as the first MetaGraph.

        Args:
          sess: the Session holding the variables' values.
          tags: the MetaGraph's tags (e.g. `[tag_constants.SERVING]`).
          signature_def_map: signature key -> `SignatureDef`.
          assets_collection: string Const tensors naming asset files to copy into assets/.
          legacy_init_op, main_op: an op the loader runs after restoring (one of them).
          clear_devices: drop device assignments from the stored graph.
          strip_default_attrs: drop attrs at their default values.
          saver: the Saver to save with (default: a sharded Saver of all saveables).

        Raises:
          AssertionError: variables were saved already, or a TensorInfo is incomplete.
        """
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been "
                                 "saved. Please invoke `add_meta_graph()` instead.")
        signature_def_map = signature_def_map or {}
        _validate_signature_def_map(signature_def_map)
        asset_defs = self._add_collections(assets_collection, main_op or legacy_init_op)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        file_system.makedirs(variables_dir, exist_ok=True)
        saver = saver or _default_saver()
        saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                   write_meta_graph=False, write_state=False)
        meta = saver.export_meta_graph(clear_devices=clear_devices,
                                       strip_default_attrs=strip_default_attrs,
                                       graph=sess.graph)
        self._tag_and_add(meta, tags, signature_def_map, asset_defs)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None):
        """Adds another MetaGraph that shares the variables saved first.

        Raises:
          AssertionError: `add_meta_graph_and_variables` was not called first.
        """
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved "
                                 "yet. Please invoke `add_meta_graph_and_variables()` first.")
        signature_def_map = signature_def_map or {}
        _validate_signature_def_map(signature_def_map)
        asset_defs = self._add_collections(assets_collection, main_op or legacy_init_op)
        saver = saver or _default_saver()
        meta = saver.export_meta_graph(clear_devices=clear_devices,
                                       strip_default_attrs=strip_default_attrs)
        self._tag_and_add(meta, tags, signature_def_map, asset_defs)

    def save(self, as_text=False):
        """Writes `saved_model.pb` (or `.pbtxt`) and copies the assets; returns the path."""
        from google.protobuf import text_format

        file_system.makedirs(self._export_dir, exist_ok=True)
        if self._assets:
            assets_dir = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY)
            file_system.makedirs(assets_dir, exist_ok=True)
            for name, source in self._assets.items():
                target = os.path.join(assets_dir, name)
                same = {os.path.abspath(file_system.local_path(p)) for p in (source, target)}
                if len(same) == 2:
                    file_system.copyfile(source, target)
            tf_logging.info("Assets written to: %s", assets_dir)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model).encode("utf-8")
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString()
        write_atomic(path, data)
        tf_logging.info("SavedModel written to: %s", path)
        return path.encode("utf-8")

    # -- internals ---------------------------------------------------------------------------
    def _add_collections(self, assets_collection, main_op):
        asset_defs = []
        for tensor in assets_collection or ():
            source = _asset_path(tensor)
            name = self._asset_name(source)
            asset_defs.append(meta_graph_pb2.AssetFileDef(
                tensor_info=meta_graph_pb2.TensorInfo(name=tensor.name), filename=name))
            self._assets[name] = source
        # TF's log lines (its builder copies the assets here; this one at save()).
        tf_logging.info("No assets to save." if assets_collection is None
                        else "Assets added to graph.")
        if not asset_defs:
            tf_logging.info("No assets to write.")
        if main_op is not None:
            if not isinstance(main_op, Operation):
                raise TypeError(f"main_op needs to be an Operation: {main_op!r}")
            for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
                if get_collection(key):
                    raise ValueError("Graph already contains one or more main ops under the "
                                     f"collection {key}.")
            add_to_collection(constants.MAIN_OP_KEY, main_op)
        return asset_defs

    def _asset_name(self, source):
        name = os.path.basename(source)
        if name not in self._assets or self._assets[name] == source or \
                filecmp.cmp(source, self._assets[name], shallow=False):
            return name
        k = 1
        unique = name
        while unique in self._assets:
            unique = f"{name}_{k}"
            k += 1
        return unique

    def _tag_and_add(self, meta, tags, signature_def_map, asset_defs):
        meta.meta_info_def.tags.extend(tags)
        for key, sig in signature_def_map.items():
            meta.signature_def[key].CopyFrom(sig)
        if asset_defs:
            # TF1's builder keeps AssetFileDefs in the `saved_model_assets` collection.
            coll = meta.collection_def[constants.ASSETS_KEY].any_list
            for a in asset_defs:
                coll.value.add().Pack(a)
        self._saved_model.meta_graphs.add().CopyFrom(meta)


def _default_saver():
    from flowloom.train.saver import Saver

    return Saver(_all_saveables(), sharded=True, write_version=saver_pb2.SaverDef.V2,
                 allow_empty=True)


def _all_saveables():
    return get_collection(GraphKeys.GLOBAL_VARIABLES) + \
        get_collection(GraphKeys.SAVEABLE_OBJECTS)


def _asset_path(tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError("Asset path tensor must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError("Asset path tensor must be of type constant.")
    if tensor.dtype.base_dtype.as_datatype_enum != types_pb2.DT_STRING:
        raise TypeError("Asset path tensor must be of dtype string.")
    value = tensor.op._attrs["value"]
    if getattr(value, "ndim", 1) != 0:
        raise TypeError("Asset path tensor must be a scalar.")
    path = value.item()
    path = path.decode("utf-8") if isinstance(path, bytes) else str(path)
    if not path:
        raise ValueError(f"Invalid asset filepath tensor {tensor}")
    return path


def _validate_tensor_info(info):
    if info is None:
        raise AssertionError("All TensorInfo protos used in the SignatureDefs must have the "
                             "name and dtype fields set.")
    encoding = info.WhichOneof("encoding")
    if encoding is None:
        raise AssertionError("All TensorInfo protos used in the SignatureDefs must have one of "
                             f"the 'encoding' fields (e.g., name or coo_sparse) set: {info}")
    if encoding == "composite_tensor":
        for component in info.composite_tensor.components:
            _validate_tensor_info(component)
    elif info.dtype == types_pb2.DT_INVALID:
        raise AssertionError("All TensorInfo protos used in the SignatureDefs must have the "
                             f"dtype field set: {info}")


def _validate_signature_def_map(signature_def_map):
    for sig in signature_def_map.values():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            _validate_tensor_info(info)
    for key in (constants.INIT_OP_SIGNATURE_KEY, constants.TRAIN_OP_SIGNATURE_KEY):
        if key in signature_def_map:
            what = "initialization" if key == constants.INIT_OP_SIGNATURE_KEY else "the train op"
            raise KeyError(f'SignatureDef map key "{key}" is reserved for {what}. Please use a '
                           "different key.")
