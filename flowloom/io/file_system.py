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


def dirname(name):
    """TF's `io::Dirname`: `name` up to its path's last '/' (kept when it is the first)."""
    path = parse_uri(name)[2]
    head = name[:len(name) - len(path)]
    pos = path.rfind("/")
    if pos < 0:
        return head
    return head + path[:max(pos, 1)]


def join_path(a, b):
    """TF's `io::JoinPath` of two pieces (one '/' between them)."""
    if not a:
        return b
    if not b:
        return a
    if a.endswith("/"):
        return a + (b[1:] if b.startswith("/") else b)
    return a + (b if b.startswith("/") else "/" + b)


def _pattern_regex(pattern):
    """fnmatch(3) with FNM_PATHNAME as a regex: `*`, `?` and `[...]` never match '/',
    a backslash quotes the next character."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i < n:
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            j = i + (1 if i < n and pattern[i] in "!^" else 0)
            j += 1 if j < n and pattern[j] == "]" else 0
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
                continue
            body = pattern[i:j].replace("\\", "\\\\")
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append(f"(?!/)[{'^' if negate else ''}{body}]")
            i = j + 1
        else:
            out.append(re.escape(c))
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob(pattern):
    """The names matching `pattern`, as TF 1.15's `GetMatchingPaths`: the directory of the
    pattern's fixed prefix ("." when it has none, so `*.txt` gives `./a.txt`) is listed
    breadth first, through the directories that extend the fixed prefix, and each name is
    matched whole (fnmatch with FNM_PATHNAME: `*` stops at '/'; a pattern ending in '/'
    matches nothing). Listings are sorted (TF keeps the directory's order).

    Raises:
      UnimplementedError: for a scheme with no file system.
      NotFoundError: if the prefix's directory does not exist ('DIR; No such file...').
    """
    pattern = os.fsdecode(pattern)
    file_system = get(pattern)
    if not pattern:
        return []
    cut = min((k for k in map(pattern.find, "*?[\\") if k >= 0), default=len(pattern))
    fixed = pattern[:cut]
    top, evaluated = dirname(fixed), pattern
    if not top:
        top, fixed, evaluated = ".", join_path(".", fixed), join_path(".", pattern)
    regex, depth = _pattern_regex(evaluated), evaluated.count("/")
    found, queue = [], [top]
    for current in queue:
        try:
            children = sorted(file_system.listdir(current))
        except errors.PermissionDeniedError:
            continue
        except errors.OpError:
            if current == top:
                raise
            continue
        for child in children:
            path = join_path(current, child)
            if not path.startswith(fixed):
                continue
            # A match has as many '/' as the pattern: deeper directories cannot hold one.
            if path.count("/") < depth and file_system.isdir(path):
                queue.append(path)
            if regex.match(path):
                found.append(path)
    return found
