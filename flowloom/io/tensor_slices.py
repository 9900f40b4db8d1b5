"""V1 checkpoints (`Saver(write_version=SaverDef.V1)`): TF's tensor-slice table files.

One checkpoint file (or one per shard, `<prefix>-0000i-of-0000n`) is a table (table.py)
holding SavedTensorSlices protos:
  key ""               -> `meta`: per tensor its name, full shape, dtype and stored slices,
                          and the checkpoint versions (producer 1);
  one key per slice    -> `data`: the slice's name, extent and values, the values in the
                          TensorProto's typed fields (float_val, int_val, ...), no shape.
Slice keys are TF's EncodeTensorNameSlice (bundle_slices.slice_key; a whole dimension is
start 0, length -1). The file is written to a temporary name and renamed into place.
Reading opens every file matching the pattern and assembles any slice asked for from the
stored ones.
"""

import os

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.io import bundle_slices, table
from flowloom.io.bundle_slices import FULL
from flowloom.proto import saved_tensor_slice_pb2, tensor_shape_pb2, types_pb2
from flowloom.io import file_system

CHECKPOINT_VERSION = 1  # TF_CHECKPOINT_VERSION
_MAX_MESSAGE_BYTES = 1 << 31  # TF's bound on one serialized slice
_HEADER_BYTES = 16

# dtype enum -> (TensorProto field, the NumPy type the field's values are kept as, the most
# bytes one value takes in the proto).
_FIELDS = {
    types_pb2.DT_FLOAT: ("float_val", np.float32, 4),
    types_pb2.DT_DOUBLE: ("double_val", np.float64, 8),
    types_pb2.DT_INT32: ("int_val", np.int32, 10),
    types_pb2.DT_UINT16: ("int_val", np.uint16, 3),
    types_pb2.DT_INT16: ("int_val", np.int16, 10),
    types_pb2.DT_UINT8: ("int_val", np.uint8, 2),
    types_pb2.DT_INT8: ("int_val", np.int8, 10),
    types_pb2.DT_INT64: ("int64_val", np.int64, 10),
    types_pb2.DT_BOOL: ("bool_val", np.bool_, 1),
    types_pb2.DT_HALF: ("half_val", np.float16, 3),
    types_pb2.DT_COMPLEX64: ("scomplex_val", np.complex64, 8),
    types_pb2.DT_COMPLEX128: ("dcomplex_val", np.complex128, 16),
    types_pb2.DT_QINT8: ("int_val", np.int8, 10),
    types_pb2.DT_QUINT8: ("int_val", np.uint8, 2),
    types_pb2.DT_QINT32: ("int_val", np.int32, 10),
    types_pb2.DT_STRING: ("string_val", object, None),
}


def _dtype_text(enum):
    return dtypes.as_dtype(enum).name


def _fill(proto, enum, values):
    """Puts the flat `values` into the TensorProto field TF's V1 writer uses."""
    field, _, _ = _FIELDS[enum]
    target = getattr(proto, field)
    if enum == types_pb2.DT_HALF:
        target.extend(np.asarray(values, np.float16).view(np.uint16).tolist())
    elif enum in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128):
        pairs = np.empty((values.size, 2), np.float64)
        pairs[:, 0], pairs[:, 1] = values.real, values.imag
        target.extend(pairs.ravel().tolist())
    elif enum == types_pb2.DT_STRING:
        target.extend(v if isinstance(v, bytes) else str(v).encode("utf-8") for v in values)
    else:
        target.extend(values.tolist())


def _values(proto, enum, count, where):
    """The flat values of a stored slice's TensorProto (`count` of them)."""
    field, np_type, _ = _FIELDS[enum]
    raw = getattr(proto, field)
    if enum == types_pb2.DT_HALF:
        out = np.array(raw, np.uint16).view(np.float16)
    elif enum in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128):
        pairs = np.array(raw, np.float64).reshape(-1, 2)
        out = (pairs[:, 0] + 1j * pairs[:, 1]).astype(np_type)
    elif enum == types_pb2.DT_STRING:
        out = np.array(list(raw), dtype=object)
    else:
        out = np.array(raw, dtype=np_type)
    if out.size != count:
        raise errors.DataLossError(None, None, f"{where}: a stored slice holds {out.size} "
                                   f"values where its extent needs {count}")
    return out


def _slice_of(spec, shape):
    """(starts, lengths) a save writes for `spec` ("" = the whole tensor of `shape`; a "-"
    dimension stays whole, an explicit extent stays explicit, as TF keeps them)."""
    if not spec:
        return [0] * len(shape), [FULL] * len(shape)
    full_shape, _, resolved = bundle_slices.parse_shape_and_slice(spec)
    starts, lengths = bundle_slices.parse_slice(spec.split(" ")[-1])
    if list(shape) != resolved:
        raise errors.InvalidArgumentError(
            None, None, f"Shape of the slice {list(shape)} does not match the spec {spec}")
    return starts, lengths


def write_slices(path, items):
    """Writes the V1 checkpoint file `path`.

    Args:
      items: [(name, shape_and_slice spec or "", ndarray)] (a spec's array is that slice).

    Raises:
      InvalidArgumentError: for a bad spec, a slice given twice, a shape that differs from
        the same tensor's other slices, or a slice too large to serialize.
      UnimplementedError: for a dtype TF's V1 format cannot hold.
    """
    meta = saved_tensor_slice_pb2.SavedTensorSlices()
    meta.meta.versions.producer = CHECKPOINT_VERSION
    by_name, data = {}, {}
    for name, spec, value in items:
        value = np.asarray(value)
        enum = dtypes.as_dtype(value.dtype if value.dtype != object else dtypes.string) \
            .as_datatype_enum
        if enum not in _FIELDS:
            raise errors.UnimplementedError(
                None, None, f"Saving data type {_dtype_text(enum)} not supported")
        full_shape = bundle_slices.parse_shape_and_slice(spec)[0] if spec else list(value.shape)
        starts, lengths = _slice_of(spec, value.shape)
        entry = by_name.get(name)
        if entry is None:
            entry = by_name[name] = meta.meta.tensor.add()
            entry.name = name
            entry.shape.CopyFrom(_shape_proto(full_shape))
            entry.type = enum
        elif list(d.size for d in entry.shape.dim) != full_shape or entry.type != enum:
            raise errors.InvalidArgumentError(
                None, None, f"Mismatching shapes or types for the slices of tensor {name}")
        key = bundle_slices.slice_key(name, starts, lengths)
        if key in data:
            raise errors.InvalidArgumentError(
                None, None, f"Duplicate slice {bundle_slices.debug_string(starts, lengths)} "
                f"of tensor {name}")
        entry.slice.add().CopyFrom(bundle_slices.to_proto(starts, lengths, full_shape))
        saved = saved_tensor_slice_pb2.SavedTensorSlices()
        saved.data.name = name
        saved.data.slice.CopyFrom(bundle_slices.to_proto(starts, lengths, full_shape))
        _check_size(saved, enum, value, name)
        _fill(saved.data.data, enum, value.reshape(-1))
        data[key] = saved.SerializeToString()
    rows = [(b"", meta.SerializeToString())] + sorted(data.items())
    table.write_table(path, rows)


def _check_size(saved, enum, value, name):
    per = _FIELDS[enum][2]
    if per is None:
        payload = sum(len(v) + 10 for v in value.reshape(-1) if isinstance(v, bytes))
    else:
        payload = per * value.size
    bound = saved.ByteSize() + _HEADER_BYTES + payload
    if bound > _MAX_MESSAGE_BYTES:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor slice is too large to serialize (conservative estimate: "
            f"{bound} bytes): {name}")


def _shape_proto(shape):
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add().size = int(d)
    return proto


def is_v1_file(path):
    """True when `path` is a table file (a V1 checkpoint), not a V2 prefix."""
    try:
        with file_system.open_file(path, "rb") as f:
            f.seek(-8, os.SEEK_END)
            return int.from_bytes(f.read(8), "little") == table.TABLE_MAGIC
    except (OSError, errors.OpError):
        return False


class SliceReader:
    """Reads the V1 checkpoint files matching `pattern` (TF's TensorSliceReader).

    Raises:
      NotFoundError: if no file matches.
      DataLossError: if a file is not a table or its metadata is corrupt.
    """

    def __init__(self, pattern):
        self.pattern = os.fspath(pattern)
        try:
            files = [p for p in file_system.glob(self.pattern) if file_system.isfile(p)]
        except errors.OpError as e:
            raise errors.InvalidArgumentError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to get matching "
                f"files on {self.pattern}: {file_system.status_text(e)}") from None
        if not files:
            raise errors.NotFoundError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                f"matching files for {self.pattern}")
        self._tensors = {}  # name -> [dtype enum, shape, [(starts, lengths, (table, key))]]
        for path in files:
            try:
                data = table.Table.open(path)
            except errors.DataLossError as e:
                raise errors.DataLossError(
                    None, None, f"Unable to open table file {path}: {e.message}: perhaps your "
                    "file is in a different file format and you need to use a different "
                    "restore operator?") from None
            raw = data.get(b"")
            if raw is None:
                raise errors.DataLossError(None, None, f"{path}: no checkpoint metadata")
            meta = saved_tensor_slice_pb2.SavedTensorSlices()
            try:
                meta.ParseFromString(raw)
            except Exception:
                raise errors.DataLossError(
                    None, None, f"{path}: corrupt checkpoint metadata") from None
            if meta.meta.versions.min_consumer > CHECKPOINT_VERSION:
                raise errors.InvalidArgumentError(
                    None, None, f"Checkpoint min consumer version "
                    f"{meta.meta.versions.min_consumer} above current version "
                    f"{CHECKPOINT_VERSION} for TensorFlow")
            for entry in meta.meta.tensor:
                shape = [d.size for d in entry.shape.dim]
                known = self._tensors.setdefault(entry.name, [entry.type, shape, []])
                if known[0] != entry.type or known[1] != shape:
                    raise errors.DataLossError(
                        None, None, f"{path}: tensor {entry.name} has another shape or type "
                        "in another checkpoint file")
                for piece in entry.slice:
                    starts, lengths = bundle_slices.from_proto(piece)
                    key = bundle_slices.slice_key(entry.name, starts, lengths)
                    known[2].append((starts, lengths, (data, key, path)))

    def __contains__(self, name):
        return name in self._tensors

    def list(self):
        """{name: (dtype enum, shape list)}."""
        return {name: (enum, list(shape)) for name, (enum, shape, _) in self._tensors.items()}

    def num_slices(self, name):
        return len(self._tensors[name][2])

    def _missing(self, name):
        return errors.NotFoundError(
            None, None, f'Tensor name "{name}" not found in checkpoint files {self.pattern}')

    def _read(self, name, enum, full_shape, handle, starts, lengths):
        data, key, path = handle
        raw = data.get(key)
        if raw is None:
            raise errors.DataLossError(None, None, f"{path}: slice of {name} is missing")
        saved = saved_tensor_slice_pb2.SavedTensorSlices()
        try:
            saved.ParseFromString(raw)
        except Exception:
            raise errors.DataLossError(None, None, f"{path}: corrupt slice of {name}") from None
        shape = [d if n == FULL else n for n, d in zip(lengths, full_shape)]
        count = int(np.prod(shape, dtype=np.int64))
        return _values(saved.data.data, enum, count, path).reshape(shape)

    def get(self, name, starts=None, lengths=None):
        """The values of tensor `name`, or of its slice (starts, lengths).

        Raises:
          NotFoundError: if the files hold no tensor `name`.
          InvalidArgumentError: if the stored slices do not cover the slice asked for.
        """
        if name not in self._tensors:
            raise self._missing(name)
        enum, shape, stored = self._tensors[name]
        if starts is None:
            starts, lengths = [0] * len(shape), list(shape)
        np_type = _FIELDS[enum][1] if enum in _FIELDS else None
        if np_type is None:
            raise errors.UnimplementedError(
                None, None, f"Restoring data type {_dtype_text(enum)} not supported")
        pieces = [(s, n, (h, s, n)) for s, n, h in stored]
        return bundle_slices.assemble(
            shape, starts, lengths, pieces,
            lambda item: self._read(name, enum, shape, item[0], item[1], item[2]),
            np_type, name)

    def debug_string(self):
        """`name (DT_FLOAT) [2,3]` per tensor (`, 2 slices` when sliced), sorted by name."""
        lines = []
        for name in sorted(self._tensors):
            enum, shape, stored = self._tensors[name]
            line = f"{name} ({types_pb2.DataType.Name(int(enum))}) " \
                   f"{bundle_slices.shape_debug(shape)}"
            if len(stored) > 1:
                line += f", {len(stored)} slices"
            lines.append(line)
        return ("\n".join(lines) + "\n").encode("utf-8")
