"""The TF1 summary functions: `tf.summary.scalar`, `histogram`, `image`, `audio`, `text`,
`tensor_summary`, `merge`, `merge_all`, and the pre-1.0 spellings (`tf.scalar_summary`...).

Each function opens a name scope named after the summary, so the op's name is unique in the
graph, and uses that scope (without its '/') as the summary's tag: two `scalar('loss', ...)`
calls give tags 'loss' and 'loss_1', and a summary built inside `name_scope('layer')` gets
the tag 'layer/loss'. The summaries are added to `GraphKeys.SUMMARIES`.
"""

import json
import re

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.summary import summary_ops  # noqa: F401 - registers the op types
from flowloom.proto import summary_pb2

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name):
    """Replaces characters TF does not allow in summary names by '_' and strips leading '/'."""
    if name is not None:
        name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    return name


class _SummaryScope:
    """TF's summary_scope: a name scope for the op, and the tag derived from it."""

    def __init__(self, name, family=None, default_name=None, values=None):
        name = clean_tag(name)
        family = clean_tag(family)
        self._family = family
        base = name if family is None else f"{family}/{name}"
        self._scope = name_scope(base, default_name, values)

    def __enter__(self):
        scope = self._scope.__enter__()
        tag = scope.rstrip("/")
        if self._family is not None:
            tag = f"{self._family}/{tag}"
        return tag, scope

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def _collect(value, collections, default):
    for key in (default if collections is None else collections):
        add_to_collection(key, value)


def scalar(name, tensor, collections=None, family=None):
    """Outputs a `Summary` protocol buffer containing a single scalar value.

    Args:
      name: name of the op; also the series name (tag) in TensorBoard.
      tensor: a real numeric tensor holding a single value.
      collections: graph collections the summary is added to (default
        `[GraphKeys.SUMMARIES]`).
      family: optional tag prefix (the TensorBoard tab).

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.

    Example:
      tf.summary.scalar('loss', loss)   # tag 'loss'
    """
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ScalarSummary", (tag, tensor), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """Outputs a `Summary` with a histogram of `values` (TF's default buckets).

    Args:
      name: name of the op and tag.
      values: a real numeric tensor of any shape; every value must be finite when run.
      collections: as for `scalar`.
      family: as for `scalar`.

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.

    Raises (at run time):
      InvalidArgumentError: if a value is NaN or infinite.
    """
    with _SummaryScope(name, family, values=[values],
                       default_name="HistogramSummary") as (tag, scope):
        val = apply_op("HistogramSummary", (tag, values), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """Outputs a `Summary` with up to `max_outputs` PNG images from a batch.

    Float images are rescaled per image (to [0, 255] if non-negative, else centred on
    128); uint8 images are written as they are. Tags are 'name/image' when `max_outputs`
    is 1, else 'name/image/0', 'name/image/1', ...

    Args:
      name: name of the op and tag prefix.
      tensor: a 4-D uint8/float32/float16/float64 tensor [batch, height, width, channels]
        with 1, 3 or 4 channels.
      max_outputs: the most images to write.
      collections: as for `scalar`.
      family: as for `scalar`.

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.
    """
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ImageSummary", (tag, tensor), name=scope,
                       max_images=max_outputs).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """Outputs a `Summary` with up to `max_outputs` clips encoded as 16-bit WAV.

    Args:
      name: name of the op and tag prefix ('name/audio' or 'name/audio/0', ...).
      tensor: float32 [batch, frames, channels] or [batch, frames], values in [-1, 1].
      sample_rate: scalar float32 tensor or number, in Hz.
      max_outputs: the most clips to write.
      collections: as for `scalar`.
      family: as for `scalar`.

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.
    """
    with _SummaryScope(name, family=family, values=[tensor]) as (tag, scope):
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", (tag, tensor, sample_rate), name=scope,
                       max_outputs=max_outputs).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """Outputs a `Summary` holding `tensor` as a TensorProto (op TensorSummaryV2).

    Args:
      name: name of the op and tag.
      tensor: a tensor of any type and shape.
      summary_description: optional long description (stored in the metadata).
      collections: as for `scalar`.
      summary_metadata: optional `SummaryMetadata` (plugin data for TensorBoard).
      family: as for `scalar`.
      display_name: optional display name stored in the metadata.

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.
    """
    if summary_metadata is None:
        summary_metadata = summary_pb2.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("TensorSummaryV2", (tag, tensor, serialized), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """Outputs a `Summary` of a string tensor, shown in TensorBoard's Text tab.

    Args:
      name: name of the op and tag.
      tensor: a string tensor.
      collections: as for `scalar`.

    Returns:
      A scalar string `Tensor`: the serialized `Summary`.

    Raises:
      ValueError: if `tensor` is not of type string.
    """
    if tensor.dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s"
                         % (tensor.name, tensor.dtype))
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata,
                          collections=collections)


def merge(inputs, collections=None, name=None):
    """Merges summaries into one `Summary` (op MergeSummary).

    Args:
      inputs: a list of string tensors holding serialized `Summary` protos.
      collections: graph collections to add the merged summary to (default: none).
      name: name of the op.

    Returns:
      A scalar string `Tensor`: the merged serialized `Summary`.

    Raises (at run time):
      InvalidArgumentError: if two inputs use the same tag.
    """
    name = clean_tag(name)
    with name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", (list(inputs),), name=name).outputs[0]
        _collect(val, collections, [])
    return val


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Merges all summaries of collection `key` (default `GraphKeys.SUMMARIES`).

    Returns:
      The merged summary tensor, or None if the collection is empty.
    """
    summaries = get_collection(key, scope=scope)
    if not summaries:
        return None
    return merge(summaries, name=name)


def get_summary_description(node_def):
    """Returns the `SummaryDescription` of a TensorSummary op's NodeDef.

    Raises:
      ValueError: if the node is not a TensorSummary op.
    """
    from google.protobuf import json_format

    if node_def.op != "TensorSummary":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    description = node_def.attr["description"].s
    if isinstance(description, bytes):
        description = description.decode("utf-8")
    result = summary_pb2.SummaryDescription()
    json_format.Parse(description or json.dumps({}), result)
    return result


# -- The pre-1.0 names (tf.scalar_summary, ...), which take the tag itself ---------------------

def scalar_summary(tags, values, collections=None, name=None):
    """Deprecated `tf.scalar_summary(tags, values)`: `tags` is the tag (or tags) itself."""
    with name_scope(name, "ScalarSummary", [tags, values]) as scope:
        val = apply_op("ScalarSummary", (tags, values), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram_summary(tag, values, collections=None, name=None):
    """Deprecated `tf.histogram_summary(tag, values)`: `tag` is used as given."""
    with name_scope(name, "HistogramSummary", [tag, values]) as scope:
        val = apply_op("HistogramSummary", (tag, values), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    """Deprecated `tf.image_summary(tag, tensor, max_images)`."""
    with name_scope(name, "ImageSummary", [tag, tensor]) as scope:
        val = apply_op("ImageSummary", (tag, tensor), name=scope,
                       max_images=max_images).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    """Deprecated `tf.audio_summary(tag, tensor, sample_rate)`."""
    with name_scope(name, "AudioSummary", [tag, tensor]) as scope:
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", (tag, tensor, sample_rate), name=scope,
                       max_outputs=max_outputs).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def merge_summary(inputs, collections=None, name=None):
    """Deprecated `tf.merge_summary(inputs)`."""
    with name_scope(name, "MergeSummary", inputs):
        val = apply_op("MergeSummary", (list(inputs),), name=name).outputs[0]
        _collect(val, collections, [])
    return val


def merge_all_summaries(key=GraphKeys.SUMMARIES):
    """Deprecated `tf.merge_all_summaries()`: merges collection `key`, or None if empty."""
    summaries = get_collection(key)
    if not summaries:
        return None
    return merge_summary(summaries)
