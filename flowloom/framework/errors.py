"""TensorFlow's error classes and codes (`tf.errors`)."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A run-time error in an op, as TensorFlow reports it.

    Attributes:
      node_def: the NodeDef-like view of the failing op (or None).
      op: the failing `Operation` (or None).
      message: the message, without the op context.
      error_code: one of the integer codes in `tf.errors`.
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    def __str__(self):
        return self._message

    def __reduce__(self):
        return (type(self), (self._node_def, None, self._message, self._error_code))


def _make(name, code):
    def __init__(self, node_def=None, op=None, message="", *args):
        # (UnknownError also takes the code it stands for, as TF's: an unknown code's.)
        error_code = args[0] if args and code == UNKNOWN and args[0] is not None else code
        OpError.__init__(self, node_def, op, message, error_code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": f"TF error code {code}."})


CancelledError = _make("CancelledError", CANCELLED)
UnknownError = _make("UnknownError", UNKNOWN)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _make("NotFoundError", NOT_FOUND)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _make("AbortedError", ABORTED)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED)
InternalError = _make("InternalError", INTERNAL)
UnavailableError = _make("UnavailableError", UNAVAILABLE)
DataLossError = _make("DataLossError", DATA_LOSS)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED)

_CODE_TO_CLASS = {
    code: cls
    for code, cls in [
        (CANCELLED, CancelledError), (UNKNOWN, UnknownError),
        (INVALID_ARGUMENT, InvalidArgumentError), (DEADLINE_EXCEEDED, DeadlineExceededError),
        (NOT_FOUND, NotFoundError), (ALREADY_EXISTS, AlreadyExistsError),
        (PERMISSION_DENIED, PermissionDeniedError), (RESOURCE_EXHAUSTED, ResourceExhaustedError),
        (FAILED_PRECONDITION, FailedPreconditionError), (ABORTED, AbortedError),
        (OUT_OF_RANGE, OutOfRangeError), (UNIMPLEMENTED, UnimplementedError),
        (INTERNAL, InternalError), (UNAVAILABLE, UnavailableError), (DATA_LOSS, DataLossError),
        (UNAUTHENTICATED, UnauthenticatedError),
    ]
}


def _errno_classes():
    import errno

    table = {}
    for cls, names in [
            (ResourceExhaustedError, "ENOSPC EDQUOT EMFILE ENFILE ENOBUFS ENOMEM EAGAIN"),
            (OutOfRangeError, "EFBIG EOVERFLOW ERANGE"),
            (PermissionDeniedError, "EACCES EPERM EROFS"),
            (NotFoundError, "ENOENT ENXIO ENODEV ESRCH"),
            (AlreadyExistsError, "EEXIST"),
            (FailedPreconditionError, "ENOTDIR EISDIR ENOTEMPTY EBUSY ETXTBSY ELOOP"),
            (InvalidArgumentError, "EINVAL ENAMETOOLONG E2BIG EBADF ESPIPE EXDEV"),
            (UnavailableError, "EIO ECONNREFUSED ECONNRESET EHOSTUNREACH ENETDOWN EPIPE"),
            (DeadlineExceededError, "ETIMEDOUT"), (UnimplementedError, "ENOSYS ENOTSUP")]:
        for name in names.split():
            if hasattr(errno, name):
                table.setdefault(getattr(errno, name), cls)
    return table


_ERRNO_CLASSES = None


def error_from_os_error(exc, what=""):
    """The TF error an `OSError` is (errno mapped as TF's IOError does: ENOSPC →
    ResourceExhaustedError, EACCES → PermissionDeniedError, ...), naming `what`."""
    global _ERRNO_CLASSES
    if _ERRNO_CLASSES is None:
        _ERRNO_CLASSES = _errno_classes()
    cls = _ERRNO_CLASSES.get(exc.errno, UnknownError)
    target = what or exc.filename or ""
    reason = exc.strerror or str(exc)
    return cls(None, None, f"{target}: {reason}" if target else reason)


def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    """The error code of an OpError class; for anything else TF's warning and an
    UnknownError (which TF returns in place of a code)."""
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    import warnings

    warnings.warn("Unknown class exception")
    return UnknownError(None, None, "Unknown class exception", None)


def _make_specific_exception(node_def, op, message, error_code):
    """The OpError of `error_code` (TF's errors_impl helper): for an unknown code, TF's
    warning and an UnknownError carrying the code."""
    cls = _CODE_TO_CLASS.get(error_code)
    if cls is not None:
        return cls(node_def, op, message)
    import warnings

    warnings.warn("Unknown error code: %d" % error_code)
    return UnknownError(node_def, op, message, error_code)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool(), iteration) that a symbolic Tensor cannot support."""
