"""`Dataset.cache(filename)`: a cache on disk in TF's format.

The first complete pass over the input writes its elements to a tensor bundle at `filename`
(`filename.index` + `filename.data-00000-of-00001`, read and written by flowloom/io/bundle.py)
under TF's keys: `"%7d_%Nd" % (element, component)`, N the digits of the last component
index. While a pass writes, `filename_0.lockfile` exists (TF's name), so a second writer of
the same prefix fails with AlreadyExistsError. A pass that stops early writes nothing. Once
the bundle exists, every pass reads it instead of the input; TF reads flowloom's caches and
flowloom reads TF's.
"""

import os
import time

from flowloom.framework import errors
from flowloom.io import bundle
from flowloom.ops.data.dataset_values import DatasetValue
from flowloom.io import file_system

MAX_ITEMS = 10_000_000  # TF's kMaxItems


def _key_format(num_components):
    return "%7d_%" + str(len(str(max(num_components - 1, 0)))) + "d"


class CacheFileValue(DatasetValue):
    """Elements of `input_value`, cached in the bundle at `filename` (see the module doc)."""

    def __init__(self, input_value, filename, num_components, op):
        self.input, self.filename, self.op = input_value, filename, op
        self.keys = _key_format(num_components)
        self.n = num_components

    def iterate(self):
        if file_system.exists(bundle.index_filename(self.filename)):
            yield from self._read()
        else:
            yield from self._write()

    def _read(self):
        reader = bundle.BundleReader(self.filename)
        listed = reader.list()
        i = 0
        while self.keys % (i, 0) in listed:
            yield tuple(reader.get(self.keys % (i, j)) for j in range(self.n))
            i += 1

    def _write(self):
        lockfile = self.filename + "_0.lockfile"
        if file_system.exists(lockfile):
            with file_system.open_file(lockfile, "rb") as f:
                contents = f.read(150).decode("utf-8", "replace")
            raise errors.AlreadyExistsError(
                None, self.op, "There appears to be a concurrent caching iterator running - "
                f"cache lockfile already exists ('{lockfile}'). If you are sure no other "
                "running TF computations are using this cache prefix, delete the lockfile "
                f"and re-initialize the iterator. Lockfile contents: {contents}")
        directory = os.path.dirname(self.filename)
        if directory:
            file_system.makedirs(directory, exist_ok=True)
        with file_system.open_file(lockfile, "w") as f:
            f.write(f"Created at: {int(time.time())}")
        tensors = {}
        try:
            for i, elem in enumerate(self.input.iterate()):
                if i >= MAX_ITEMS:
                    raise errors.InvalidArgumentError(
                        None, self.op, f"Upstream iterator is producing more than {MAX_ITEMS} "
                        "items, which is more than the cache limit.")
                for j, component in enumerate(elem):
                    tensors[self.keys % (i, j)] = component
                yield elem
            bundle.write_bundle(self.filename, tensors)
        finally:
            # a complete pass has written the bundle; an incomplete one leaves nothing
            file_system.remove(lockfile)
