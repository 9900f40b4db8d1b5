"""`tf.gfile` / `tf.io.gfile`: TF's file API over the local file system.

OS errors become TF's error classes (NotFoundError, AlreadyExistsError,
PermissionDeniedError, FailedPreconditionError), as TF's file system layer raises them.
"""

import contextlib
import errno
import glob as _glob
import os
import shutil

from flowloom.framework import errors

_ERRNO_CLASS = {
    errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
    errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
    errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError,
}


@contextlib.contextmanager
def _tf_errors(path):
    try:
        yield
    except OSError as e:
        if isinstance(e, errors.OpError):
            raise
        cls = _ERRNO_CLASS.get(e.errno, errors.UnknownError)
        raise cls(None, None, f"{path}; {e.strerror or e}") from None


# OS errors on `path` as TF's classes (for file-reading ops too).
tf_errors = _tf_errors


class GFile:
    """A file object with TF's interface (`tf.gfile.GFile(name, mode)`).

    Args:
      name: the path.
      mode: "r", "w", "a", "rb", "wb", "ab" (and "+" variants).

    Raises:
      NotFoundError: when reading a file that does not exist.
    """

    def __init__(self, name, mode="r"):
        self.name = os.fspath(name)
        self.mode = mode
        self._file = None

    def _open(self):
        if self._file is None:
            kwargs = {} if "b" in self.mode else {"encoding": "utf-8", "newline": ""}
            with _tf_errors(self.name):
                self._file = open(self.name, self.mode, **kwargs)  # noqa: SIM115
        return self._file

    def size(self):
        """The file's size in bytes."""
        with _tf_errors(self.name):
            if self._file is not None and not self._file.closed:
                self._file.flush()
            return os.stat(self.name).st_size

    def read(self, n=-1):
        return self._open().read(n)

    def readline(self):
        return self._open().readline()

    def readlines(self):
        return self._open().readlines()

    def write(self, file_content):
        f = self._open()
        if "b" in self.mode and isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif "b" not in self.mode and isinstance(file_content, bytes):
            file_content = file_content.decode("utf-8")
        return f.write(file_content)

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        return self._open().seek(offset, whence)

    def tell(self):
        return self._open().tell()

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def seekable(self):
        return True

    def __iter__(self):
        return iter(self._open())

    def __next__(self):
        return next(self._open())

    def __enter__(self):
        self._open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False


Open = FastGFile = GFile


def Exists(filename):
    """True if a file or directory exists at `filename`."""
    return os.path.exists(os.fspath(filename))


def IsDirectory(dirname):
    return os.path.isdir(os.fspath(dirname))


def MakeDirs(dirname):
    """Creates a directory and its parents; an existing directory is fine."""
    with _tf_errors(dirname):
        os.makedirs(os.fspath(dirname), exist_ok=True)


def MkDir(dirname):
    """Creates one directory (AlreadyExistsError if it exists, NotFoundError without parent)."""
    with _tf_errors(dirname):
        os.mkdir(os.fspath(dirname))


def Glob(filename):
    """The paths matching a pattern (`*`, `?`, `[...]`)."""
    patterns = [filename] if isinstance(filename, (str, bytes, os.PathLike)) else filename
    out = []
    for pattern in patterns:
        pattern = os.fsdecode(pattern)
        out.extend(sorted(_glob.glob(pattern)))
    return out


def ListDirectory(dirname):
    """The names (not paths) in a directory.

    Raises:
      NotFoundError: if the directory does not exist.
    """
    dirname = os.fspath(dirname)
    if not os.path.isdir(dirname):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    with _tf_errors(dirname):
        return os.listdir(dirname)


def Remove(filename):
    """Deletes a file (NotFoundError if it does not exist)."""
    with _tf_errors(filename):
        os.remove(os.fspath(filename))


def DeleteRecursively(dirname):
    """Deletes a directory tree, or a file (NotFoundError if nothing is there)."""
    dirname = os.fspath(dirname)
    with _tf_errors(dirname):
        if os.path.isdir(dirname) and not os.path.islink(dirname):
            shutil.rmtree(dirname)
        else:
            os.remove(dirname)


def Rename(oldname, newname, overwrite=False):
    """Renames a file; AlreadyExistsError if `newname` exists and not `overwrite`."""
    oldname, newname = os.fspath(oldname), os.fspath(newname)
    if not overwrite and os.path.exists(newname):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newname}")
    with _tf_errors(oldname):
        os.replace(oldname, newname)


def Copy(oldpath, newpath, overwrite=False):
    """Copies a file; AlreadyExistsError if `newpath` exists and not `overwrite`."""
    oldpath, newpath = os.fspath(oldpath), os.fspath(newpath)
    if not overwrite and os.path.exists(newpath):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newpath}")
    with _tf_errors(oldpath):
        shutil.copyfile(oldpath, newpath)


class FileStatistics:
    """What `Stat` returns: length in bytes, mtime in nanoseconds, is_directory."""

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Stat(filename):
    """FileStatistics of a path (NotFoundError if it does not exist)."""
    with _tf_errors(filename):
        st = os.stat(os.fspath(filename))
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(os.fspath(filename)))


def Walk(top, in_order=True):
    """Yields (dirname, subdirectory names, file names) for each directory under `top`."""
    top = os.fspath(top)
    if not os.path.isdir(top):
        return
    for dirpath, subdirs, files in os.walk(top, topdown=in_order):
        yield dirpath, sorted(subdirs), sorted(files)


def write_string_to_file(filename, file_content):
    """Writes `file_content` (str or bytes) to `filename`, replacing what it held."""
    with GFile(filename, mode="wb") as f:
        f.write(file_content if isinstance(file_content, bytes) else
                file_content.encode("utf-8"))


def read_file_to_string(filename, binary_mode=False):
    """The contents of `filename` (bytes with `binary_mode`, else str)."""
    with GFile(filename, mode="rb" if binary_mode else "r") as f:
        return f.read()


# tf.io.gfile spellings.
exists = Exists
isdir = IsDirectory
makedirs = MakeDirs
mkdir = MkDir
glob = Glob
listdir = ListDirectory
remove = Remove
rmtree = DeleteRecursively
rename = Rename
copy = Copy
stat = Stat
walk = Walk
