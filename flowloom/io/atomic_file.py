"""Crash-safe file creation: write a temporary file, fsync, rename over the target.

Every failure (a full disk, a read-only directory) removes the temporary file and raises the
TF error class of its errno (ENOSPC → ResourceExhaustedError); a committed file gets the mode
the process umask gives a new file (0644 under umask 022), not the temporary file's 0600.
"""

import os
import tempfile
import threading

from flowloom.framework import errors
from flowloom.io import file_system

_umask_lock = threading.Lock()


def _current_umask():
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _open_temp(fd):
    """The file object that writes the temporary file (a seam for fault-injection tests)."""
    return os.fdopen(fd, "wb")


class AtomicFile:
    """A file that appears at `path` complete or not at all.

    Writes go to a temporary file in the same directory; `commit()` flushes,
    fsyncs and renames it over `path`, `abort()` deletes it.

    Args:
      path: the final file name (a plain or `file://` path: the file system is local).
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._local = file_system.local_path(self.path)
        directory = os.path.dirname(os.path.abspath(self._local))
        try:
            fd, self.temp_path = tempfile.mkstemp(
                dir=directory, prefix=os.path.basename(self._local) + ".", suffix=".tmp"
            )
        except OSError as e:
            raise errors.error_from_os_error(e, self.path) from None
        self.file = _open_temp(fd)

    def write(self, data):
        """Appends `data`; on failure the temporary file is removed and a TF error raised."""
        try:
            self.file.write(data)
        except OSError as e:
            self.abort()
            raise errors.error_from_os_error(e, self.path) from None

    def commit(self):
        """Makes the written bytes durable and visible at `path`.

        Raises:
          tf.errors.OpError: the class of the OS error (ResourceExhaustedError for a full
            disk); the temporary file is gone and `path` is as it was.
        """
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            os.fchmod(self.file.fileno(), 0o666 & ~_current_umask())
            self.file.close()
            os.replace(self.temp_path, self._local)
        except OSError as e:
            self.abort()
            raise errors.error_from_os_error(e, self.path) from None
        _fsync_directory(os.path.dirname(os.path.abspath(self._local)))

    def abort(self):
        """Discards what was written (never raises for the file it cannot close)."""
        try:
            self.file.close()
        except OSError:
            pass  # a failed flush of a full disk; the file is removed below
        try:
            os.remove(self.temp_path)
        except OSError:
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
        atomic.write(data)
    except errors.OpError:
        raise  # already aborted
    except BaseException:
        atomic.abort()
        raise
    atomic.commit()
