"""MetaGraphDef export and import: a GraphDef plus its SaverDef, collections and op list.

Collections are serialized as TF serializes them: variables as VariableDef bytes, savers as
SaverDef bytes, Operations and Tensors as lists of names, strings/ints/floats as themselves.
Importing rebuilds Variable objects (one per variable, shared across collections) and a
Saver over the imported save/restore ops.
"""

import logging
import os

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from flowloom.framework import graph_def as graph_def_lib
from flowloom.framework import lazy_registry
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.graph_def import prepend_name_scope, strip_name_scope
from flowloom.framework.importer import import_graph_def
from flowloom.framework.ops import Operation, Tensor
from flowloom.io.atomic_file import write_atomic
from flowloom.proto import meta_graph_pb2, op_def_pb2, saver_pb2, variable_pb2

_log = logging.getLogger("flowloom")

_VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES, GraphKeys.METRIC_VARIABLES,
    GraphKeys.CONCATENATED_VARIABLES, GraphKeys.GLOBAL_STEP)


# -- OpDef protos for meta_info_def.stripped_op_list ---------------------------------------------
def _arg_proto(arg):
    proto = op_def_pb2.OpDef.ArgDef(name=arg.name, is_ref=arg.is_ref)
    if arg.fixed_dtype is not None:
        proto.type = arg.fixed_dtype.as_datatype_enum
    if arg.type_attr:
        proto.type_attr = arg.type_attr
    if arg.number_attr:
        proto.number_attr = arg.number_attr
    if arg.type_list_attr:
        proto.type_list_attr = arg.type_list_attr
    return proto


def op_def_proto(opdef):
    """The OpDef proto of a flowloom op type (signature, attrs with kinds and defaults)."""
    from flowloom.framework.importer import _expected_kind

    proto = op_def_pb2.OpDef(name=opdef.type, is_stateful=opdef.stateful)
    proto.input_arg.extend(_arg_proto(a) for a in opdef.input_args)
    proto.output_arg.extend(_arg_proto(a) for a in opdef.output_args)
    names = []
    for arg in opdef.input_args + opdef.output_args:
        for attr in (arg.type_attr, arg.number_attr, arg.type_list_attr):
            if attr and attr not in names:
                names.append(attr)
    names += [k for k in opdef.attr_defaults if k not in names]
    for name in names:
        attr = proto.attr.add(name=name, type=_expected_kind(opdef, name) or "")
        default = opdef.attr_defaults.get(name)
        if default is not None:
            attr.default_value.CopyFrom(graph_def_lib.attr_value_from_python(default, default))
        if name in opdef.allowed_types:
            attr.allowed_values.list.type.extend(
                t.as_datatype_enum for t in opdef.allowed_types[name])
    if opdef.deprecation is not None:
        proto.deprecation.version, proto.deprecation.explanation = opdef.deprecation
    return proto


def stripped_op_list_for_graph(graph_def):
    """The OpList of the op types a GraphDef uses, sorted by name."""
    op_list = op_def_pb2.OpList()
    for name in sorted({node.op for node in graph_def.node}):
        opdef = op_registry.get(name)
        if opdef is not None:
            op_list.op.append(op_def_proto(opdef))
    return op_list


def _strip_default_attrs(graph_def):
    for node in graph_def.node:
        opdef = op_registry.get(node.op)
        if opdef is None:
            continue
        for key, default in opdef.attr_defaults.items():
            if default is not None and key in node.attr and node.attr[key] == \
                    graph_def_lib.attr_value_from_python(default, default):
                del node.attr[key]


# -- collections ------------------------------------------------------------------------------------
# Collections whose elements have a proto form of their own (TF's register_proto_function):
# key -> (to_proto(value, export_scope) or None, from_proto(bytes, import_scope)).
_PROTO_FUNCTIONS = {}


def register_proto_function(collection_name, to_proto, from_proto):
    """Stores collection `collection_name` through `to_proto`/`from_proto` (as TF's
    `ops.register_proto_function`)."""
    lazy_registry.note("proto_function", collection_name)
    _PROTO_FUNCTIONS[collection_name] = (to_proto, from_proto)


def _proto_functions(key):
    """The (to_proto, from_proto) of collection `key`, importing the module that registers
    them; None for a collection without a proto form of its own."""
    if key not in _PROTO_FUNCTIONS and isinstance(key, str):
        lazy_registry.load("proto_function", key)
    return _PROTO_FUNCTIONS.get(key)


def _add_collection_def(meta, key, values, export_scope):
    from flowloom.train.saver import Saver
    from flowloom.variables import Variable

    values = [v for v in values if not (export_scope and hasattr(v, "name")
                                         and not v.name.startswith(export_scope))]
    if not values:
        return
    col = meta_graph_pb2.CollectionDef()
    if _proto_functions(key) is not None:
        protos = [_PROTO_FUNCTIONS[key][0](v, export_scope) for v in values]
        col.bytes_list.value.extend(p.SerializeToString() for p in protos if p is not None)
    elif all(isinstance(v, Variable) for v in values) or all(isinstance(v, Saver) for v in values):
        # A Saver built with defer_build has no proto yet: TF leaves it out.
        protos = [v.to_proto(export_scope) for v in values]
        col.bytes_list.value.extend(p.SerializeToString() for p in protos if p is not None)
    elif all(isinstance(v, (Tensor, Operation)) for v in values):
        col.node_list.value.extend(strip_name_scope(v.name, export_scope) for v in values)
    elif all(isinstance(v, (str, bytes)) for v in values):
        col.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else v
                                    for v in values)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        col.int64_list.value.extend(values)
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        col.float_list.value.extend(values)
    else:
        _log.warning("Issue encountered when serializing %s: its elements have no proto "
                     "form; the collection is left out of the MetaGraphDef.", key)
        return
    meta.collection_def[key].CopyFrom(col)


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns the MetaGraphDef of a graph, and writes it to `filename` if given.

    Args:
      filename: optional file to write (crash-safely).
      meta_info_def: optional MetaInfoDef to start from.
      graph_def: the GraphDef to store (default: the graph's, with `_output_shapes`).
      saver_def: optional SaverDef.
      collection_list: the collection keys to store (default: all).
      as_text: write text format instead of binary.
      graph: the Graph (default: the default graph).
      export_scope: keep only names under this scope, with it stripped.
      clear_devices: drop device assignments.
      strip_default_attrs: drop attrs at their op's default values.

    Returns:
      A `MetaGraphDef`.
    """
    del clear_extraneous_savers, save_debug_info, kwargs
    graph = graph or get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    exported = type(graph_def)()
    exported.CopyFrom(graph_def)
    if export_scope:
        del exported.node[:]
        for node in graph_def.node:
            if node.name.startswith(export_scope + "/") or node.name == export_scope:
                new = exported.node.add()
                new.CopyFrom(node)
                new.name = strip_name_scope(node.name, export_scope)
                new.input[:] = [strip_name_scope(i, export_scope) for i in node.input]
                if "_class" in new.attr:
                    values = [strip_name_scope(s.decode(), export_scope).encode()
                              for s in new.attr["_class"].list.s]
                    new.attr["_class"].list.s[:] = values
    if clear_devices:
        for node in exported.node:
            node.device = ""
    if strip_default_attrs:
        _strip_default_attrs(exported)
    meta.graph_def.CopyFrom(exported)
    from flowloom.version import GIT_VERSION

    # tensorflow_version stays empty: TF parses it as a version number (and an empty one
    # means "VariableDefs carry `trainable`", which they do).
    meta.meta_info_def.tensorflow_git_version = GIT_VERSION
    meta.meta_info_def.stripped_default_attrs = bool(strip_default_attrs)
    meta.meta_info_def.stripped_op_list.CopyFrom(stripped_op_list_for_graph(exported))
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        _add_collection_def(meta, key, graph.get_collection(key), export_scope)
    if filename:
        filename = os.fspath(filename)
        directory = os.path.dirname(filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        data = (text_format.MessageToString(meta).encode("utf-8") if as_text
                else meta.SerializeToString(deterministic=True))
        write_atomic(filename, data)
    return meta


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None,
                          collection_list=None, graph=None, export_scope=None,
                          exclude_nodes=None, clear_extraneous_savers=False,
                          strip_default_attrs=False):
    """Returns the MetaGraphDef of a graph (what `export_meta_graph` returns, no file).

    Raises:
      NotImplementedError: `exclude_nodes` is given.
    """
    if exclude_nodes:
        raise NotImplementedError("create_meta_graph_def(exclude_nodes=...) is not implemented")
    return export_meta_graph(meta_info_def=meta_info_def, graph_def=graph_def,
                             saver_def=saver_def, collection_list=collection_list, graph=graph,
                             export_scope=export_scope,
                             clear_extraneous_savers=clear_extraneous_savers,
                             strip_default_attrs=strip_default_attrs)


def read_meta_graph_file(filename):
    """Reads a MetaGraphDef from a binary or text file.

    Raises:
      IOError: if the file does not exist or parses as neither format.
    """
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except (DecodeError, RuntimeError, ValueError):
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from None
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraphDef's graph and collections; returns a Saver for it (or None).

    Args:
      meta_graph_or_file: a MetaGraphDef or the name of a file holding one.
      clear_devices: drop device assignments from the imported nodes.
      import_scope: name scope to put the imported names under.
      **kwargs: `input_map`, `return_elements` are passed to import_graph_def.

    Returns:
      A Saver built from the MetaGraphDef's SaverDef; a new Saver if there is none but there
      are variables; None if there are no variables. With `return_elements`, the pair
      (saver, elements).

    Example:
      saver = tf.train.import_meta_graph("/tmp/model.ckpt-100.meta")
      saver.restore(sess, "/tmp/model.ckpt-100")
    """
    from flowloom.train.saver import Saver

    meta, graph, elements = import_graph_and_collections(
        meta_graph_or_file, clear_devices, import_scope, get_default_graph(),
        input_map=kwargs.get("input_map"), return_elements=kwargs.get("return_elements"))
    return_elements = kwargs.get("return_elements")
    if meta.HasField("saver_def"):
        saver = Saver.from_proto(meta.saver_def, import_scope)
    elif graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
        saver = Saver()
    else:
        _log.info("Saver not created because there are no variables in the graph to restore")
        saver = None
    if return_elements is not None:
        return saver, elements
    return saver


def import_graph_and_collections(meta_graph_or_file, clear_devices, import_scope, graph,
                                 input_map=None, return_elements=None,
                                 restore_collections_predicate=None):
    """Imports a MetaGraphDef's graph into `graph` and restores its collections (those the
    predicate accepts); returns (meta_graph_def, graph, return_elements' elements)."""
    from flowloom.train.saver import Saver
    from flowloom.variables import Variable

    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    graph_def = type(meta.graph_def)()
    graph_def.CopyFrom(meta.graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    producer_op_list = None
    if meta.meta_info_def.HasField("stripped_op_list"):
        producer_op_list = meta.meta_info_def.stripped_op_list
    with graph.as_default():
        elements = import_graph_def(graph_def, input_map=input_map,
                                    return_elements=return_elements, name=import_scope or "",
                                    producer_op_list=producer_op_list)

    def scoped(name):
        return prepend_name_scope(name, import_scope)

    variables_by_name = {}
    for key in sorted(meta.collection_def):
        if restore_collections_predicate is not None and not restore_collections_predicate(key):
            continue
        col = meta.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind is None:
            continue
        values = list(getattr(col, kind).value)
        if key in _VARIABLE_COLLECTIONS and kind == "bytes_list":
            for raw in values:
                proto = variable_pb2.VariableDef.FromString(raw)
                name = scoped(proto.variable_name)
                if name not in variables_by_name:
                    with graph.as_default():
                        variables_by_name[name] = Variable(variable_def=proto,
                                                           import_scope=import_scope)
                graph.add_to_collection(key, variables_by_name[name])
        elif key == GraphKeys.SAVERS and kind == "bytes_list":
            for raw in values:
                graph.add_to_collection(key, Saver.from_proto(
                    saver_pb2.SaverDef.FromString(raw), import_scope))
        elif kind == "bytes_list" and _proto_functions(key) is not None:
            with graph.as_default():
                for raw in values:
                    graph.add_to_collection(key, _PROTO_FUNCTIONS[key][1](raw, import_scope))
        elif kind == "node_list":
            for name in values:
                graph.add_to_collection(key, graph.as_graph_element(scoped(name)))
        elif kind == "bytes_list":
            for raw in values:
                graph.add_to_collection(key, raw)
        else:
            for v in values:
                graph.add_to_collection(key, v)
    return meta, graph, elements


from flowloom.framework.meta_graph_scoped import (  # noqa: E402,F401
    export_scoped_meta_graph, import_scoped_meta_graph)
