"""`tf.gfile` / `tf.io.gfile`: TF's file API over the file-system registry (flowloom/io/
file_system.py: plain and `file://` paths are local, other schemes UnimplementedError).

OS errors become TF's error classes (NotFoundError, AlreadyExistsError,
PermissionDeniedError, FailedPreconditionError), as TF's file system layer raises them.
"""

import os

from flowloom.framework import errors
from flowloom.io import file_system as fs

# OS errors on `path` as TF's classes (for file-reading ops too).
tf_errors = fs.tf_errors


class GFile:
    """A file object with TF's interface (`tf.gfile.GFile(name, mode)`).

    Args:
      name: the path.
      mode: "r", "w", "a", "rb", "wb", "ab" (and "+" variants).

    Raises:
      InvalidArgumentError: for another mode (at construction, as TF).
      NotFoundError: when reading a file that does not exist.
      PermissionDeniedError: reading a file opened to write, or the reverse (TF's texts).
    """

    def __init__(self, name, mode="r"):
        self.name = os.fspath(name)
        self.mode = mode
        bare = mode.replace("b", "")
        if bare not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._readable = bare in ("r", "r+", "a+", "w+")
        self._writable = bare in ("a", "w", "r+", "a+", "w+")
        self._file = None

    def _open(self):
        if self._file is None:
            self._file = fs.open_file(self.name, self.mode)
        return self._file

    def _reading(self):
        if not self._readable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._open()

    def size(self):
        """The file's size in bytes."""
        if self._file is not None and not self._file.closed:
            self._file.flush()
        return fs.stat(self.name).st_size

    def read(self, n=-1):
        return self._reading().read(n)

    def readline(self):
        return self._reading().readline()

    def readlines(self):
        return self._reading().readlines()

    def write(self, file_content):
        if not self._writable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        f = self._open()
        if "b" in self.mode and isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif "b" not in self.mode and isinstance(file_content, bytes):
            file_content = file_content.decode("utf-8")
        f.write(file_content)  # TF's GFile.write returns None

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._open().seek(offset, whence)  # TF's GFile.seek returns None

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
        return iter(self._reading())

    def __next__(self):
        return next(self._reading())

    def __enter__(self):
        self._open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False


Open = FastGFile = GFile


def Exists(filename):
    """True if a file or directory exists at `filename`.

    Raises:
      UnimplementedError: for a scheme with no file system (TF: not False).
    """
    return fs.exists(filename)


def IsDirectory(dirname):
    """True if `dirname` is a directory; False for any failure, as TF."""
    try:
        return fs.isdir(dirname)
    except errors.OpError:
        return False


def MakeDirs(dirname):
    """Creates a directory and its parents; an existing directory (or file: TF 1.15 stops at
    whatever exists) is fine."""
    if not fs.exists(dirname):
        fs.makedirs(dirname, exist_ok=True)


def MkDir(dirname):
    """Creates one directory (NotFoundError without its parent); one that exists, even as a
    file, is left as it is (TF 1.15)."""
    try:
        fs.mkdir(dirname)
    except errors.AlreadyExistsError:
        pass


def Glob(filename):
    """The paths matching a pattern (`*`, `?`, `[...]`), with the pattern's scheme."""
    patterns = [filename] if isinstance(filename, (str, bytes, os.PathLike)) else filename
    out = []
    for pattern in patterns:
        out.extend(fs.glob(os.fsdecode(pattern)))
    return out


def ListDirectory(dirname):
    """The names (not paths) in a directory.

    Raises:
      NotFoundError: if the directory does not exist (or its scheme has no file system).
    """
    dirname = os.fsdecode(dirname)
    if not IsDirectory(dirname):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    return fs.listdir(dirname)


def Remove(filename):
    """Deletes a file (NotFoundError if it does not exist)."""
    fs.remove(filename)


def DeleteRecursively(dirname):
    """Deletes a directory tree, or a file (NotFoundError if nothing is there)."""
    dirname = os.fsdecode(dirname)
    file_system = fs.get(dirname)
    if not file_system.exists(dirname):
        raise errors.NotFoundError(None, None, f"{dirname} not found")
    if file_system.isdir(dirname) and not os.path.islink(fs.local_path(dirname)):
        file_system.rmtree(dirname)
    else:
        file_system.remove(dirname)


def Rename(oldname, newname, overwrite=False):
    """Renames a file; AlreadyExistsError if `newname` exists and not `overwrite`."""
    oldname, newname = os.fsdecode(oldname), os.fsdecode(newname)
    fs.get(oldname)
    if not overwrite and fs.exists(newname):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    fs.replace(oldname, newname)


def Copy(oldpath, newpath, overwrite=False):
    """Copies a file; AlreadyExistsError if `newpath` exists and not `overwrite`."""
    oldpath, newpath = os.fsdecode(oldpath), os.fsdecode(newpath)
    fs.get(oldpath)
    if not overwrite and fs.exists(newpath):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    fs.copyfile(oldpath, newpath)


class FileStatistics:
    """What `Stat` returns: length in bytes, mtime in nanoseconds, is_directory."""

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Stat(filename):
    """FileStatistics of a path (NotFoundError if it does not exist)."""
    st = fs.stat(filename)
    return FileStatistics(st.st_size, st.st_mtime_ns, IsDirectory(filename))


def Walk(top, in_order=True):
    """Yields (dirname, subdirectory names, file names) for each directory under `top`
    (nothing if `top` is not a directory), as TF over ListDirectory and IsDirectory."""
    top = os.fsdecode(top)
    try:
        listing = ListDirectory(top)
    except errors.NotFoundError:
        return
    subdirs, files = [], []
    for item in sorted(listing):
        (subdirs if IsDirectory(os.path.join(top, item)) else files).append(item)
    if in_order:
        yield top, subdirs, files
    for subdir in subdirs:
        yield from Walk(os.path.join(top, subdir), in_order)
    if not in_order:
        yield top, subdirs, files


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
