"""Crash-safe file creation: write a temporary file, fsync, rename over the target."""

import os
import tempfile


class AtomicFile:
    """A file that appears at `path` complete or not at all.

    Writes go to a temporary file in the same directory; `commit()` flushes,
    fsyncs and renames it over `path`, `abort()` deletes it.

    Args:
      path: the final file name.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(self.path))
        fd, self.temp_path = tempfile.mkstemp(
            dir=directory, prefix=os.path.basename(self.path) + ".", suffix=".tmp"
        )
        self.file = os.fdopen(fd, "wb")

    def commit(self):
        """Makes the written bytes durable and visible at `path`."""
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        os.replace(self.temp_path, self.path)
        _fsync_directory(os.path.dirname(os.path.abspath(self.path)))

    def abort(self):
        """Discards what was written."""
        self.file.close()
        try:
            os.remove(self.temp_path)
        except FileNotFoundError:
            pass


def _fsync_directory(directory):
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path, data):
    """Writes `data` to `path` crash-safely (temp file, fsync, rename).

    Args:
      path: the final file name.
      data: bytes to write.
    """
    atomic = AtomicFile(path)
    try:
        atomic.file.write(data)
    except BaseException:
        atomic.abort()
        raise
    atomic.commit()
