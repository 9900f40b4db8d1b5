"""`flowloom inspect PATH`: what is in a file TF1 wrote (what `saved_model_cli show` and
`inspect_checkpoint` tell), for every file flowloom reads.

  SavedModel directory    tags, signatures (inputs/outputs: names, dtypes, shapes);
                          with --run, runs a signature on --input name=file.npy values
  checkpoint              variables, shapes, dtypes (--values: their values)
  .pb / .pbtxt / .meta    op counts by type, inputs (placeholders), outputs, devices
  event file              tags with their step ranges and counts
  TFRecord of Examples    record count, feature names with kinds and lengths
"""

import collections
import os

import numpy as np


def describe(path, values=False):
    """The report of `flowloom inspect` for `path`, as a list of lines."""
    kind = detect(path)
    return {"savedmodel": _savedmodel, "checkpoint": _checkpoint, "graph": _graph,
            "events": _events, "tfrecord": _tfrecord}[kind](path, values)


def detect(path):
    """What kind of file `path` is: savedmodel, checkpoint, graph, events or tfrecord."""
    from flowloom.saved_model.loader import maybe_saved_model_directory

    if os.path.isdir(path):
        if maybe_saved_model_directory(path):
            return "savedmodel"
        if os.path.exists(os.path.join(path, "checkpoint")):
            return "checkpoint"
        raise ValueError(f"{path}: a directory with neither a SavedModel nor a checkpoint")
    if os.path.exists(path + ".index"):
        return "checkpoint"
    base = os.path.basename(path)
    if "tfevents" in base:
        return "events"
    if base.endswith((".pb", ".pbtxt", ".meta", ".graphdef")):
        return "graph"
    return "tfrecord"


def _dtype_name(enum):
    from flowloom.framework import dtypes

    try:
        return dtypes.as_dtype(enum).name
    except (TypeError, ValueError, KeyError):
        return f"dtype {enum}"


def _shape_str(shape_proto):
    if shape_proto.unknown_rank:
        return "unknown rank"
    return "(" + ", ".join("-1" if d.size < 0 else str(d.size) for d in shape_proto.dim) + ")"


def _savedmodel(path, values):
    from flowloom.saved_model.loader import parse_saved_model

    sm = parse_saved_model(path)
    lines = [f"SavedModel {path} (schema version {sm.saved_model_schema_version})"]
    for meta in sm.meta_graphs:
        lines.append(f"MetaGraph with tags {sorted(meta.meta_info_def.tags)}: "
                     f"{len(meta.graph_def.node)} nodes")
        for key in sorted(meta.signature_def):
            sig = meta.signature_def[key]
            lines.append(f"  signature '{key}' ({sig.method_name or 'no method name'}):")
            for title, infos in (("inputs", sig.inputs), ("outputs", sig.outputs)):
                for name in sorted(infos):
                    info = infos[name]
                    where = info.name or f"sparse {info.coo_sparse.values_tensor_name}"
                    lines.append(f"    {title[:-1]} {name}: {where} {_dtype_name(info.dtype)} "
                                 f"{_shape_str(info.tensor_shape)}")
    variables = os.path.join(path, "variables", "variables")
    if os.path.exists(variables + ".index"):
        lines.extend("  " + line for line in _checkpoint(variables, values))
    assets = os.path.join(path, "assets")
    if os.path.isdir(assets):
        lines.append(f"  assets: {sorted(os.listdir(assets))}")
    return lines


def _checkpoint(path, values):
    from flowloom.train.checkpoint_utils import load_checkpoint

    reader = load_checkpoint(path)
    shapes = reader.get_variable_to_shape_map()
    dtypes_ = reader.get_variable_to_dtype_map()
    lines = [f"checkpoint {path}: {len(shapes)} variables"]
    for name in sorted(shapes):
        lines.append(f"  {name} {dtypes_[name].name} {tuple(shapes[name])}")
        if values:
            lines.append("    " + np.array2string(np.asarray(reader.get_tensor(name)),
                                                  threshold=20).replace("\n", "\n    "))
    return lines


def _graph(path, values):
    from flowloom.explain.static import load_graph_def

    gd = load_graph_def(path)
    types = collections.Counter(n.op for n in gd.node)
    consumed = {i.lstrip("^").split(":")[0] for n in gd.node for i in n.input}
    inputs = [n for n in gd.node if n.op in ("Placeholder", "PlaceholderV2",
                                             "PlaceholderWithDefault")]
    outputs = [n.name for n in gd.node if n.name not in consumed and n.op not in
               ("NoOp", "Const", "Assert", "SaveV2", "RestoreV2", "Placeholder")]
    devices = collections.Counter(n.device or "(none)" for n in gd.node)
    lines = [f"graph {path}: {len(gd.node)} nodes"]
    lines.append("  op types: " + ", ".join(f"{t} {c}" for t, c in types.most_common()))
    for n in inputs:
        shape = n.attr["shape"].shape if "shape" in n.attr else None
        lines.append(f"  input {n.name}: {_dtype_name(n.attr['dtype'].type)} "
                     f"{_shape_str(shape) if shape is not None else ''}".rstrip())
    lines.append(f"  outputs (consumed by nothing): {', '.join(outputs[:20])}"
                 + (" ..." if len(outputs) > 20 else ""))
    lines.append("  devices: " + ", ".join(f"{d} {c}" for d, c in devices.most_common()))
    return lines


def _events(path, values):
    from flowloom.train.summary_io import summary_iterator

    steps = collections.defaultdict(list)
    kinds = collections.Counter()
    events = 0
    for event in summary_iterator(path):
        events += 1
        kind = event.WhichOneof("what") or "empty"
        kinds[kind] += 1
        if kind == "summary":
            for v in event.summary.value:
                steps[(v.tag, v.WhichOneof("value") or "tensor")].append(event.step)
    lines = [f"event file {path}: {events} events ("
             + ", ".join(f"{k} {c}" for k, c in sorted(kinds.items())) + ")"]
    for (tag, kind), s in sorted(steps.items()):
        lines.append(f"  {tag} ({kind}): {len(s)} values, steps {min(s)}..{max(s)}")
    return lines


def _tfrecord(path, values):
    from google.protobuf import message

    from flowloom.io.tfrecord import TFRecordCompressionType, TFRecordOptions, read_records
    from flowloom.proto import example_pb2

    options = None
    with open(path, "rb") as f:
        head = f.read(2)
    if head == b"\x1f\x8b":
        options = TFRecordOptions(TFRecordCompressionType.GZIP)
    records = 0
    not_examples = 0
    features = collections.defaultdict(lambda: [None, 0, 0])  # kind, count, total length
    for _, data in read_records(path, options):
        records += 1
        ex = example_pb2.Example()
        try:
            ex.ParseFromString(data)
        except message.DecodeError:
            not_examples += 1
            continue
        for name, feature in ex.features.feature.items():
            kind = feature.WhichOneof("kind")
            entry = features[name]
            entry[0] = kind
            entry[1] += 1
            entry[2] += len(getattr(feature, kind).value) if kind else 0
    lines = [f"TFRecord file {path}: {records} records"
             + (f" ({not_examples} are not Examples)" if not_examples else "")]
    for name in sorted(features):
        kind, count, total = features[name]
        lines.append(f"  feature {name}: {kind or 'empty'}, in {count} records, "
                     f"{total / max(count, 1):g} values each on average")
    return lines


def run_signature(path, signature, inputs, tags=("serve",)):
    """Runs `signature` of the SavedModel at `path` on `inputs` (name -> array); returns
    output name -> array (what `saved_model_cli run` does)."""
    import flowloom as tf

    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, list(tags), path)
        if signature not in meta.signature_def:
            raise ValueError(f"no signature '{signature}' in {path}: "
                             f"{sorted(meta.signature_def)}")
        sig = meta.signature_def[signature]
        missing = set(sig.inputs) - set(inputs)
        if missing:
            raise ValueError(f"signature '{signature}' needs inputs {sorted(missing)}")
        fetches = {k: v.name for k, v in sig.outputs.items()}
        return sess.run(fetches, {sig.inputs[k].name: v for k, v in inputs.items()})


def load_input(spec):
    """`name=file.npy` (or `name=file.npz[key]`) -> (name, array); never unpickles."""
    name, _, source = spec.partition("=")
    if not name or not source:
        raise ValueError(f"--input takes name=file.npy, not {spec!r}")
    key = None
    if source.endswith("]") and "[" in source:
        source, key = source[:-1].split("[", 1)
    data = np.load(source, allow_pickle=False)
    if key is not None:
        data = data[key]
    return name, np.asarray(data)
