"""File systems by URI scheme, as TF's `Env`: every path a program hands to flowloom (gfile,
checkpoints, summaries, records, readers, datasets, SavedModel) goes through `get(path)`.

A name is `scheme://host/path` (TF's `io::ParseURI`: a scheme is `[a-zA-Z][0-9a-zA-Z.]*`
followed by `://`) or a plain path (scheme ""). The local file system is registered under ""
and "file" (`file:///tmp/x` and `file://localhost/tmp/x` are `/tmp/x`); a name whose scheme has
no file system is `UnimplementedError("File system scheme 'gs' not implemented (file: ...)")`.
TF 1.15 has no `ram://` (TF 2.x added it); its pip builds also register `gs`, `hdfs` and `s3`,
which need their cloud services and are not part of flowloom.

Consumers keep the name as the user gave it (paths TF returns, such as `Saver.save`'s prefix,
`glob`'s matches and readers' keys, keep the scheme) and call this module's functions, which
translate it for the file system that owns it.
"""

import contextlib
import errno
import glob as _glob
import os
import re
import shutil

from flowloom.framework import errors

_SCHEME = re.compile(r"([a-zA-Z][0-9a-zA-Z.]*)://")


def parse_uri(name):
    """(scheme, host, path) of `name`, as TF's `io::ParseURI`; ("", "", name) without a scheme.

    Example:
      parse_uri("gs://bucket/dir/x") == ("gs", "bucket", "/dir/x")
    """
    name = os.fsdecode(name)
    match = _SCHEME.match(name)
    if match is None:
        return "", "", name
    rest = name[match.end():]
    slash = rest.find("/")
    if slash < 0:
        return match.group(1), rest, ""
    return match.group(1), rest[:slash], rest[slash:]


_ERRNO_CLASS = {
    errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
    errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
    errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError,
}


@contextlib.contextmanager
def tf_errors(name):
    """OS errors on `name` as TF's classes ('NAME; strerror', as TF's local file system)."""
    try:
        yield
    except OSError as e:
        if isinstance(e, errors.OpError):
            raise
        if e.errno in _ERRNO_CLASS:
            raise _ERRNO_CLASS[e.errno](None, None, f"{name}; {e.strerror or e}") from None
        raise errors.error_from_os_error(e, name) from None


class LocalFileSystem:
    """The machine's file system (TF's `PosixFileSystem`), for "" and "file://" names."""

    def local_path(self, name):
        """The operating-system path of `name` (the host of `file://host/p` is dropped)."""
        return parse_uri(name)[2]

    def open(self, name, mode="rb"):
        kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
        with tf_errors(name):
            return open(self.local_path(name), mode, **kwargs)  # noqa: SIM115 (caller's)

    def glob(self, pattern):
        # Matches keep the pattern's scheme and host, as TF's GetMatchingPaths.
        path = self.local_path(pattern)
        prefix = pattern[:len(pattern) - len(path)]
        return [prefix + p for p in sorted(_glob.glob(path))]


def _local_call(function):
    def call(self, name, *args, **kwargs):
        with tf_errors(name):
            return function(self.local_path(name), *args, **kwargs)
    call.__name__ = function.__name__
    return call


for _name, _function in {
        "exists": os.path.exists, "isdir": os.path.isdir, "isfile": os.path.isfile,
        "stat": os.stat, "getsize": os.path.getsize, "listdir": os.listdir,
        "makedirs": os.makedirs, "mkdir": os.mkdir, "remove": os.remove,
        "rmtree": shutil.rmtree}.items():
    setattr(LocalFileSystem, _name, _local_call(_function))


def _two_paths(function):
    def call(self, old, new):
        with tf_errors(old):
            return function(self.local_path(old), self.local_path(new))
    return call


LocalFileSystem.replace = _two_paths(os.replace)
LocalFileSystem.copyfile = _two_paths(shutil.copyfile)

_registry = {}


def register(scheme, file_system):
    """Makes `file_system` own the names of `scheme` ("" for plain paths)."""
    _registry[scheme] = file_system


def get(name):
    """The file system that owns `name`.

    Raises:
      UnimplementedError: if no file system is registered for its scheme (TF's text).
    """
    name = os.fsdecode(name)
    scheme = parse_uri(name)[0]
    file_system = _registry.get(scheme)
    if file_system is None:
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{scheme}' not implemented (file: '{name}')")
    return file_system


_local = LocalFileSystem()
register("", _local)
register("file", _local)


def local_path(name):
    """The operating-system path of `name`, for code that needs one (temporary files, fsync).

    Raises:
      UnimplementedError: for a scheme with no file system, or one that is not local.
    """
    file_system = get(name)
    if not hasattr(file_system, "local_path"):
        raise errors.UnimplementedError(
            None, None, f"{name}: this operation needs a local file system")
    return file_system.local_path(os.fsdecode(name))


def _dispatch(method):
    def call(name, *args, **kwargs):
        name = os.fsdecode(name)
        return getattr(get(name), method)(name, *args, **kwargs)
    call.__name__ = method
    call.__doc__ = f"`{method}` of the file system that owns the name (see `get`)."
    return call


open_file = _dispatch("open")
exists = _dispatch("exists")
isdir = _dispatch("isdir")
isfile = _dispatch("isfile")
stat = _dispatch("stat")
getsize = _dispatch("getsize")
listdir = _dispatch("listdir")
makedirs = _dispatch("makedirs")
mkdir = _dispatch("mkdir")
remove = _dispatch("remove")
rmtree = _dispatch("rmtree")
glob = _dispatch("glob")


def replace(old, new):
    """Renames `old` over `new` (both of one file system)."""
    old, new = os.fsdecode(old), os.fsdecode(new)
    get(new)
    return get(old).replace(old, new)


def copyfile(old, new):
    """Copies file `old` to `new`."""
    old, new = os.fsdecode(old), os.fsdecode(new)
    get(new)
    return get(old).copyfile(old, new)


def exists_ok(name):
    """True if `name` exists; False also when asking fails (TF's `FileExists(...).ok()`)."""
    try:
        return exists(name)
    except errors.OpError:
        return False


def isdir_ok(name):
    """True if `name` is a directory; False for any failure (TF's `gfile.IsDirectory`)."""
    try:
        return isdir(name)
    except errors.OpError:
        return False


_STATUS_NAMES = {
    "NotFoundError": "Not found", "InvalidArgumentError": "Invalid argument",
    "PermissionDeniedError": "Permission denied", "AlreadyExistsError": "Already exists",
    "FailedPreconditionError": "Failed precondition", "DataLossError": "Data loss",
    "ResourceExhaustedError": "Resource exhausted", "UnimplementedError": "Unimplemented",
}


def status_text(error):
    """An OpError as TF's `Status::ToString()` ("Unimplemented: ...")."""
    return f"{_STATUS_NAMES.get(type(error).__name__, 'Unknown')}: {error.message}"
