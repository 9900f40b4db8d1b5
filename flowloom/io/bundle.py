"""V2 checkpoints (tensor bundles) at the array level: write and read `{name: ndarray}`.

A bundle with prefix P is two files:
  P.index                  a table (see `table.py`): key "" -> BundleHeaderProto,
                           tensor name -> BundleEntryProto (dtype, shape, shard,
                           offset, size, masked crc32c of the stored bytes)
  P.data-00000-of-00001    the tensors' bytes, back to back

Fixed-width tensors are stored as their little-endian memory. A string tensor is
stored as varint64 lengths, a masked CRC32C of the lengths (each taken as a
uint32, or uint64 above 4 GiB), then the string bytes; its entry's CRC covers
those lengths, the length checksum and the bytes.
"""

import os
import struct

import numpy as np
from google.protobuf.message import DecodeError

from flowloom.framework import errors
from flowloom.io import crc32c
from flowloom.io.atomic_file import AtomicFile, write_atomic
from flowloom.io.bundle_dtypes import dtype_name, enum_for_array, numpy_dtype
from flowloom.io.table import Table, build_table
from flowloom.io.varint import decode_varint, encode_varint
from flowloom.proto import tensor_bundle_pb2, types_pb2
from flowloom.io import file_system

HEADER_KEY = b""
BUNDLE_VERSION = 1  # kTensorBundleVersion
BUNDLE_MIN_CONSUMER = 0


def index_filename(prefix):
    """Returns the name of a bundle's index file: `prefix + ".index"`."""
    return f"{os.fspath(prefix)}.index"


def data_filename(prefix, shard_id=0, num_shards=1):
    """Returns the name of a bundle's data file, e.g. `prefix.data-00000-of-00001`."""
    return f"{os.fspath(prefix)}.data-{shard_id:05d}-of-{num_shards:05d}"


def _string_elements(array):
    out = []
    for item in array.reshape(-1):
        if isinstance(item, str):
            item = item.encode("utf-8")
        elif isinstance(item, np.ndarray):  # object arrays may hold 0-d arrays
            item = item.item()
            item = item.encode("utf-8") if isinstance(item, str) else item
        if not isinstance(item, (bytes, bytearray, memoryview)):
            raise TypeError(f"string tensor element {item!r} is not bytes or str")
        out.append(bytes(item))
    return out


def _encode_strings(elements):
    """Returns (stored bytes, unmasked crc32c) of a string tensor."""
    lengths = bytearray()
    checksum = 0
    for element in elements:
        size = len(element)
        lengths += encode_varint(size)
        packed = struct.pack("<I", size) if size <= 0xFFFFFFFF else struct.pack("<Q", size)
        checksum = crc32c.crc32c(packed, checksum)
    length_checksum = struct.pack("<I", crc32c.mask(checksum))
    checksum = crc32c.crc32c(length_checksum, checksum)
    body = b"".join(elements)
    checksum = crc32c.crc32c(body, checksum)
    return bytes(lengths) + length_checksum + body, checksum


def _encode_variants(elements):
    """Returns (stored bytes, unmasked crc32c) of a variant tensor, framed as TF frames it:
    per element varint64(length), the serialized VariantTensorDataProto, and the masked
    crc32c of (length as 8 bytes, proto); the entry's crc32c covers the same."""
    out = bytearray()
    checksum = 0
    for element in elements:
        body = element.SerializeToString()
        size = struct.pack("<Q", len(body))
        element_sum = crc32c.crc32c(body, crc32c.crc32c(size))
        tail = struct.pack("<I", crc32c.mask(element_sum))
        checksum = crc32c.crc32c(tail, crc32c.crc32c(body, crc32c.crc32c(size, checksum)))
        out += encode_varint(len(body)) + body + tail
    return bytes(out), checksum


def _is_variant(array):
    from flowloom.proto import tensor_pb2

    return array.dtype == object and array.size and all(
        isinstance(v, tensor_pb2.VariantTensorDataProto) for v in array.reshape(-1))


def _encode_tensor(array):
    """Returns (dtype enum, stored bytes, masked crc32c) for one array."""
    if _is_variant(array):
        data, checksum = _encode_variants(array.reshape(-1))
        return types_pb2.DT_VARIANT, data, crc32c.mask(checksum)
    dtype_enum = enum_for_array(array)
    if dtype_enum == types_pb2.DT_STRING:
        data, checksum = _encode_strings(_string_elements(array))
        return dtype_enum, data, crc32c.mask(checksum)
    data = np.ascontiguousarray(array, dtype=numpy_dtype(dtype_enum)).tobytes()
    return dtype_enum, data, crc32c.masked_crc32c(data)


def _header_bytes():
    header = tensor_bundle_pb2.BundleHeaderProto(
        num_shards=1, endianness=tensor_bundle_pb2.BundleHeaderProto.LITTLE
    )
    header.version.producer = BUNDLE_VERSION
    header.version.min_consumer = BUNDLE_MIN_CONSUMER
    return header.SerializeToString()


def write_bundle(prefix, tensors):
    """Writes a V2 checkpoint holding `tensors`, as TF's BundleWriter does.

    Tensors are stored in sorted key order. Both files are written crash-safely
    (temporary file, fsync, rename), the data file first, so a complete
    `.index` always describes a complete data file.

    Args:
      prefix: checkpoint prefix, e.g. "/tmp/model.ckpt-100".
      tensors: dict of name (str) -> array-like. bytes/str/object arrays are
        stored as DT_STRING.

    Raises:
      InvalidArgumentError: for an empty name (reserved for the header).
      TypeError: for an array of a dtype a bundle cannot hold.

    Example:
      write_bundle("/tmp/ckpt", {"w": np.ones([2, 3], np.float32)})
    """
    write_bundle_items(prefix, [(name, "", tensors[name]) for name in
                                sorted(tensors, key=lambda n: n.encode("utf-8"))])


def write_bundle_items(prefix, items):
    """Writes a V2 checkpoint of `items`, [(name, shape_and_slice spec or "", array)], storing
    the data in the order given (as TF's SaveV2 does) and the index in key order. An item
    with a spec is one slice of the tensor `name` (see bundle_slices.py).

    Raises:
      InvalidArgumentError: for an empty or repeated name, a malformed spec, or an array
        whose shape is not its spec's slice shape.
    """
    from flowloom.io import bundle_slices

    prefix = os.fspath(prefix)
    directory = os.path.dirname(prefix)
    if directory:
        file_system.makedirs(directory, exist_ok=True)
    entries = {}
    data_file = AtomicFile(data_filename(prefix))
    try:
        offset = 0
        for name, spec, value in items:
            key = name.encode("utf-8")
            if not key:
                raise errors.InvalidArgumentError(None, None, "tensor name must not be empty")
            array = np.asarray(value)
            if spec:
                full_shape, starts, lengths = bundle_slices.parse_shape_and_slice(spec)
                if list(array.shape) != lengths:
                    raise errors.InvalidArgumentError(
                        None, None, "Slice in shape_and_slice specification does not match "
                        f"the shape of the tensor to  save: {spec}, tensor: "
                        f"{bundle_slices.shape_debug(array.shape)}")
                if not bundle_slices.is_full(starts, lengths, full_shape):
                    full = entries.setdefault(key, tensor_bundle_pb2.BundleEntryProto())
                    full.dtype = enum_for_array(array)
                    full.shape.SetInParent()
                    del full.shape.dim[:]
                    for dim in full_shape:
                        full.shape.dim.add(size=dim)
                    full.slices.add().CopyFrom(bundle_slices.to_proto(starts, lengths,
                                                                      full_shape))
                    key = bundle_slices.slice_key(key, starts, lengths)
            if key in entries and not entries[key].slices:
                raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {name}")
            dtype_enum, data, checksum = _encode_tensor(array)
            entry = tensor_bundle_pb2.BundleEntryProto(
                dtype=dtype_enum, offset=offset, size=len(data), crc32c=checksum
            )
            entry.shape.SetInParent()  # TF writes an empty shape for scalars
            for dim in array.shape:
                entry.shape.dim.add(size=dim)
            data_file.write(data)
            offset += len(data)
            entries[key] = entry
    except BaseException:
        data_file.abort()  # a second abort is harmless
        raise
    data_file.commit()
    write_atomic(index_filename(prefix), build_table(
        [(HEADER_KEY, _header_bytes())] +
        [(key, entries[key].SerializeToString()) for key in sorted(entries)]))


class BundleReader:
    """Reads a V2 checkpoint written by TF or by `write_bundle`.

    Args:
      prefix: checkpoint prefix (the path without ".index").

    Raises:
      NotFoundError: if the index file does not exist.
      DataLossError: if the index is corrupt.
      UnimplementedError: for big-endian bundles.

    Example:
      reader = BundleReader("/tmp/model.ckpt-100")
      reader.list()      # {"w": (DT_FLOAT, (2, 3))}
      reader.get("w")    # ndarray
    """

    def __init__(self, prefix):
        self._prefix = os.fspath(prefix)
        self._index_path = index_filename(self._prefix)
        table = Table.open(self._index_path)
        self._entries = {}
        self._slice_entries = {}  # slice key (bytes) -> entry; see bundle_slices.py
        header = None
        for key, value in table.items():
            if key == HEADER_KEY:
                header = self._parse(tensor_bundle_pb2.BundleHeaderProto, key, value)
            elif key[:1] == b"\x00":
                self._slice_entries[key] = self._parse(tensor_bundle_pb2.BundleEntryProto, key,
                                                       value)
            else:
                self._entries[key.decode("utf-8", "replace")] = self._parse(
                    tensor_bundle_pb2.BundleEntryProto, key, value
                )
        if header is None:
            raise self._corrupt("no header entry")
        self._check_header(header)
        self._num_shards = header.num_shards

    def _corrupt(self, message):
        return errors.DataLossError(None, None, f"{self._index_path}: {message}")

    def _parse(self, message_class, key, value):
        try:
            return message_class.FromString(value)
        except (DecodeError, RuntimeError, ValueError):
            raise self._corrupt(f"entry for key {key!r} not parseable") from None

    def _check_header(self, header):
        if header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(
                None, None, f"{self._index_path}: big-endian tensor bundles are not supported"
            )
        if header.version.min_consumer > BUNDLE_VERSION:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{self._index_path}: checkpoint needs a reader of version "
                f">= {header.version.min_consumer}; this one is {BUNDLE_VERSION}",
            )
        if header.num_shards < 1:
            raise self._corrupt(f"bad num_shards {header.num_shards}")

    def list(self):
        """Returns {name: (DataType enum value, shape tuple)} for every tensor."""
        return {
            name: (entry.dtype, tuple(dim.size for dim in entry.shape.dim))
            for name, entry in self._entries.items()
        }

    def __contains__(self, name):
        return name in self._entries

    def entry(self, name):
        """Returns the BundleEntryProto stored for `name`.

        Raises:
          NotFoundError: if there is no such tensor.
        """
        try:
            return self._entries[name]
        except KeyError:
            raise errors.NotFoundError(
                None, None, f"Key {name} not found in checkpoint {self._prefix}"
            ) from None

    def get(self, name):
        """Reads one tensor, verifying its checksum.

        Args:
          name: tensor name.

        Returns:
          An ndarray; string tensors are object arrays of bytes.

        Raises:
          NotFoundError: if there is no such tensor or data file.
          DataLossError: on a checksum, size or shape mismatch.
          UnimplementedError: for sliced (partitioned) entries and dtypes such
            as bfloat16 that NumPy cannot hold here (variants come as VariantTensorDataProtos).
        """
        entry = self.entry(name)
        if entry.slices:
            shape = [dim.size for dim in entry.shape.dim]
            return self.get_slice(name, [0] * len(shape), [-1] * len(shape))
        return self._value(name, entry)

    def raw_entries(self):
        """[(key bytes, BundleEntryProto)] of every entry but the header, slices included."""
        items = [(name.encode("utf-8"), e) for name, e in self._entries.items()]
        return sorted(items + list(self._slice_entries.items()), key=lambda kv: kv[0])

    def get_slice(self, name, starts, lengths):
        """The slice (starts, lengths; length -1: the whole dimension) of tensor `name`,
        copied from the slices stored (or from the whole tensor when it was saved whole).

        Raises:
          NotFoundError: if there is no such tensor or a stored slice is missing.
          InvalidArgumentError: if the stored slices do not cover the slice asked for.
        """
        from flowloom.io import bundle_slices

        entry = self.entry(name)
        full_shape = [dim.size for dim in entry.shape.dim]
        if not entry.slices:
            stored = [([0] * len(full_shape), [-1] * len(full_shape), (name, entry))]
        else:
            stored = []
            for proto in entry.slices:
                s_starts, s_lengths = bundle_slices.from_proto(proto)
                key = bundle_slices.slice_key(name, s_starts, s_lengths)
                if key not in self._slice_entries:
                    spec = bundle_slices.debug_string(s_starts, s_lengths)
                    raise errors.NotFoundError(
                        None, None, f"Key {name} (slice {spec}) not found in checkpoint "
                        f"{self._prefix}")
                stored.append((s_starts, s_lengths, (name, self._slice_entries[key])))
        dtype = object if entry.dtype == types_pb2.DT_STRING else \
            numpy_dtype(entry.dtype)
        if dtype is None:
            raise errors.UnimplementedError(
                None, None, f"{name}: reading {dtype_name(entry.dtype)} tensors is not supported")
        return bundle_slices.assemble(full_shape, starts, lengths, stored,
                                      lambda h: self._value(*h), dtype, name)

    def _value(self, name, entry):
        shape = tuple(dim.size for dim in entry.shape.dim)
        if any(d < 0 for d in shape):
            raise self._corrupt(f"{name}: bad shape {shape}")
        num_elements = int(np.prod(shape, dtype=object)) if shape else 1
        if entry.dtype in (types_pb2.DT_STRING, types_pb2.DT_VARIANT):
            if num_elements > entry.size:  # every element needs a length byte
                raise self._corrupt(
                    f"{name}: {num_elements} elements cannot fit in {entry.size} bytes"
                )
        elif numpy_dtype(entry.dtype) is not None:
            expected = num_elements * numpy_dtype(entry.dtype).itemsize
            if expected != entry.size:
                raise self._corrupt(
                    f"{name}: {dtype_name(entry.dtype)}{list(shape)} needs {expected} bytes, "
                    f"entry says {entry.size}"
                )
        else:
            raise errors.UnimplementedError(
                None, None, f"{name}: reading {dtype_name(entry.dtype)} tensors is not supported"
            )
        data = self._read_data(name, entry)
        if entry.dtype == types_pb2.DT_STRING:
            strings, checksum = self._decode_strings(name, data, num_elements)
        elif entry.dtype == types_pb2.DT_VARIANT:
            strings, checksum = self._decode_variants(name, data, num_elements)
        else:
            checksum = crc32c.crc32c(data)
        if crc32c.mask(checksum) != entry.crc32c:
            raise errors.DataLossError(
                None,
                None,
                f"Checksum does not match for tensor {name} in {self._data_path(entry)}",
            )
        if entry.dtype in (types_pb2.DT_STRING, types_pb2.DT_VARIANT):
            return strings.reshape(shape)
        return np.frombuffer(data, dtype=numpy_dtype(entry.dtype)).reshape(shape).copy()

    def _data_path(self, entry):
        return data_filename(self._prefix, entry.shard_id, self._num_shards)

    def _read_data(self, name, entry):
        if not 0 <= entry.shard_id < self._num_shards:
            raise self._corrupt(f"{name}: bad shard_id {entry.shard_id}")
        path = self._data_path(entry)
        try:
            file = file_system.open_file(path, "rb")
        except errors.NotFoundError:
            raise errors.NotFoundError(None, None, f"{path}: No such file or directory") from None
        with file:
            file_size = os.fstat(file.fileno()).st_size
            if entry.offset < 0 or entry.size < 0:
                raise self._corrupt(f"{name}: bad offset {entry.offset} or size {entry.size} "
                                    f"in {path}")
            if entry.offset + entry.size > file_size:
                raise errors.DataLossError(
                    None,
                    None,
                    f"{path}: tensor {name} at offset {entry.offset} size {entry.size} "
                    f"runs past the end of the file ({file_size} bytes)",
                )
            file.seek(entry.offset)
            return file.read(entry.size)

    def _decode_strings(self, name, data, num_elements):
        """Returns (object array of bytes, unmasked entry checksum)."""
        pos = 0
        lengths = []
        checksum = 0
        try:
            for _ in range(num_elements):
                length, pos = decode_varint(data, pos, what="string length")
                lengths.append(length)
                packed = (
                    struct.pack("<I", length) if length <= 0xFFFFFFFF else struct.pack("<Q", length)
                )
                checksum = crc32c.crc32c(packed, checksum)
        except errors.DataLossError as e:
            raise self._corrupt(f"{name}: {e.message}") from None
        if pos + 4 > len(data) or struct.unpack_from("<I", data, pos)[0] != crc32c.mask(checksum):
            raise self._corrupt(f"{name}: string lengths checksum mismatch")
        checksum = crc32c.crc32c(data[pos : pos + 4], checksum)
        pos += 4
        body_start = pos
        if pos + sum(lengths) != len(data):
            raise self._corrupt(f"{name}: string lengths do not add up to the stored size")
        out = np.empty(num_elements, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = data[pos : pos + length]
            pos += length
        return out, crc32c.crc32c(data[body_start:], checksum)

    def _decode_variants(self, name, data, num_elements):
        """Returns (object array of VariantTensorDataProto, unmasked entry checksum): the
        protos are parsed as data (a variant's type name says what it holds; its reader
        decides whether it can use it)."""
        from google.protobuf.message import DecodeError

        from flowloom.proto import tensor_pb2

        out = np.empty(num_elements, dtype=object)
        pos, checksum = 0, 0
        for i in range(num_elements):
            try:
                length, pos = decode_varint(data, pos, what="variant length")
            except errors.DataLossError as e:
                raise self._corrupt(f"{name}: {e.message}") from None
            if pos + length + 4 > len(data):
                raise self._corrupt(f"{name}: variant element {i} runs past the entry")
            body = data[pos:pos + length]
            size = struct.pack("<Q", length)
            tail = data[pos + length:pos + length + 4]
            if struct.unpack("<I", tail)[0] != crc32c.mask(crc32c.crc32c(body,
                                                                         crc32c.crc32c(size))):
                raise errors.DataLossError(None, None, f"Checksum does not match for variant "
                                           f"element {i} of tensor {name}")
            checksum = crc32c.crc32c(tail, crc32c.crc32c(body, crc32c.crc32c(size, checksum)))
            proto = tensor_pb2.VariantTensorDataProto()
            try:
                proto.ParseFromString(body)
            except DecodeError:
                raise self._corrupt(f"{name}: variant element {i} is not a "
                                    "VariantTensorDataProto") from None
            out[i] = proto
            pos += length + 4
        if pos != len(data):
            raise self._corrupt(f"{name}: variant elements do not add up to the stored size")
        return out, checksum

    def read_all(self):
        """Returns {name: ndarray} for every tensor."""
        return {name: self.get(name) for name in self._entries}


def read_bundle(prefix):
    """Reads every tensor of a V2 checkpoint.

    Args:
      prefix: checkpoint prefix (the path without ".index").

    Returns:
      dict of name -> ndarray.

    Raises:
      NotFoundError, DataLossError: as `BundleReader`.
    """
    return BundleReader(prefix).read_all()
