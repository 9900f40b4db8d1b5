"""Merging V2 checkpoints written shard by shard into one (TF's MergeBundles).

A sharded save writes one bundle per device under `<prefix>_temp/part-0000i-of-0000n`; the
merge renames their data files to `<prefix>.data-0000i-of-0000n` and then writes the merged
`<prefix>.index` (temporary file, fsync, rename), so the index appears only once every data
file it names is in place.
"""

import os

from flowloom.framework import errors
from flowloom.io.atomic_file import _fsync_directory, write_atomic
from flowloom.io.bundle import HEADER_KEY, BundleReader, data_filename, index_filename
from flowloom.io.table import Table, build_table
from flowloom.proto import tensor_bundle_pb2
from flowloom.io import file_system


def merge_bundles(prefixes, merged_prefix, allow_missing_files=False, delete_old_dirs=False):
    """Merges the bundles at `prefixes` into one bundle at `merged_prefix`.

    Args:
      prefixes: the source checkpoint prefixes, in shard order.
      merged_prefix: the destination prefix.
      allow_missing_files: skip sources without an index instead of failing.
      delete_old_dirs: afterwards remove the sources' directories if they are empty.

    Raises:
      InvalidArgumentError: for a missing source (unless allowed), duplicate tensor names,
        or sources of different endianness or version.
      DataLossError: for a corrupt source index.
    """
    merged_prefix = os.fspath(merged_prefix)
    directory = os.path.dirname(merged_prefix)
    if directory:
        file_system.makedirs(directory, exist_ok=True)
    present = []
    for prefix in prefixes:
        if not file_system.exists(index_filename(prefix)):
            if allow_missing_files:
                continue
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint prefix {prefix} does not exist (no {index_filename(prefix)})")
        present.append(os.fspath(prefix))
    if not present:
        raise errors.InvalidArgumentError(None, None, "No checkpoint files found to merge")
    entries = {}
    renames = []  # (source data file, destination shard index)
    header = None
    for prefix in present:
        reader = BundleReader(prefix)  # validates the index and its header
        source_header = _header_of(prefix)
        if header is None:
            header = source_header
        elif (source_header.endianness != header.endianness
              or source_header.version != header.version):
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {prefix} differs in endianness or version from "
                f"{present[0]}")
        first = len(renames)
        for shard in range(source_header.num_shards):
            renames.append((data_filename(prefix, shard, source_header.num_shards),
                            first + shard))
        for key, source in reader.raw_entries():
            name = key.decode("utf-8", "replace")
            found = entries.get(key)
            if found is not None and not found.slices:
                raise errors.InvalidArgumentError(
                    None, None, f"Duplicate tensor keyed by {name} encountered, when merging "
                    f"prefix: {prefix}")
            if found is not None:
                # Slices of one tensor saved in several shards: one entry lists them all.
                if not source.slices:
                    raise errors.InternalError(
                        None, None, f"Duplicate tensor keyed by {name}; attempting to merge in "
                        "a non-slice bundle entry")
                if source.dtype != found.dtype or source.shape != found.shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"Slices of {name} differ in dtype or shape between "
                        f"checkpoints being merged ({prefix})")
                found.slices.extend(source.slices)
                continue
            entry = tensor_bundle_pb2.BundleEntryProto()
            entry.CopyFrom(source)
            entry.shard_id = first + entry.shard_id
            entries[key] = entry
    num_shards = len(renames)
    for source, shard in renames:
        if file_system.exists(source):
            file_system.replace(source, data_filename(merged_prefix, shard, num_shards))
    _fsync_directory(file_system.local_path(directory or "."))
    merged = tensor_bundle_pb2.BundleHeaderProto()
    merged.CopyFrom(header)
    merged.num_shards = num_shards
    items = [(HEADER_KEY, merged.SerializeToString())]
    items += [(key, entries[key].SerializeToString()) for key in sorted(entries)]
    write_atomic(index_filename(merged_prefix), build_table(items))
    for prefix in present:  # best effort, as TF
        try:
            file_system.remove(index_filename(prefix))
        except errors.OpError:
            pass
    if delete_old_dirs:
        for prefix in present:
            source_dir = os.path.dirname(prefix)
            source_dir, merged_dir = (os.path.abspath(file_system.local_path(d or "."))
                                      for d in (source_dir, directory))
            if source_dir != merged_dir:
                try:
                    os.rmdir(source_dir)
                except OSError:
                    pass


def _header_of(prefix):
    table = Table.open(index_filename(prefix))
    value = table.get(HEADER_KEY)
    if value is None:
        raise errors.DataLossError(None, None, f"{index_filename(prefix)}: no header entry")
    return tensor_bundle_pb2.BundleHeaderProto.FromString(value)
