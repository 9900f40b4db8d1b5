"""`tf.logging`: TF1's logger, the Python logger named "tensorflow".

As in TF 1.x: messages go to stderr as `INFO:tensorflow:message` (Python's BASIC_FORMAT) unless
the root logger already has handlers; the default threshold is the root's (WARNING), so
`tf.logging.info` prints only after `tf.logging.set_verbosity(tf.logging.INFO)`.
"""

import logging as _logging
import sys as _sys
import threading as _threading
import time as _time
import os as _os
from logging import DEBUG, ERROR, FATAL, INFO, WARN  # noqa: F401 - the tf.logging constants

_logger = None
_logger_lock = _threading.Lock()
_counts = {}
_level_names = {FATAL: "FATAL", ERROR: "ERROR", WARN: "WARN", INFO: "INFO", DEBUG: "DEBUG"}


def _caller(skip):
    """TF 1.x's count key for log_every_n / log_first_n: from the frame `skip` levels up (the
    caller), the first frame in a different file. So every call made from one file shares one
    count, as in TF 1.x; kept so programs log the same lines."""
    f = _sys._getframe(skip)
    own_file = f.f_code.co_filename
    f = f.f_back
    while f is not None and f.f_code.co_filename == own_file:
        f = f.f_back
    return (f.f_code, f) if f is not None else (None, None)


def _find_caller(stack_info=False, stacklevel=1):
    # Records carry the user's file and line, not this module's or logging's.
    f = _sys._getframe(1)
    while f is not None and (f.f_code.co_filename in (__file__, _logging.__file__)):
        f = f.f_back
    if f is None:
        return "(unknown file)", 0, "(unknown function)", None
    return f.f_code.co_filename, f.f_lineno, f.f_code.co_name, None


def get_logger():
    """Returns the logger TF writes to (`logging.getLogger("tensorflow")`)."""
    global _logger
    if _logger is not None:
        return _logger
    with _logger_lock:
        if _logger is None:
            logger = _logging.getLogger("tensorflow")
            logger.findCaller = _find_caller
            # No second handler when TensorFlow itself (imported first) already added one.
            if not _logging.getLogger().handlers and not logger.handlers:
                interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
                if interactive:
                    logger.setLevel(INFO)
                handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
                handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level`."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Logs `msg % args` at DEBUG level."""
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Logs `msg % args` at INFO level."""
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Logs `msg % args` at WARN level."""
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    """Logs `msg % args` at ERROR level."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Logs `msg % args` at FATAL level (as TF 1.x, it does not exit)."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level`."""
    get_logger().log(level, msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    """Logs `msg` at ERROR level."""
    error(msg)


def flush():
    """Not available in TF 1.x either: raises NotImplementedError."""
    raise NotImplementedError("tf.logging.flush")


def _next_count(token):
    _counts[token] = _counts.get(token, -1) + 1
    return _counts[token]


def _file_and_line():
    code, f = _caller(3)  # 0 _caller, 1 here, 2 log_every_n / log_first_n, 3 their caller
    return ("<unknown>", 0) if code is None else (code.co_filename, f.f_lineno)


def log_if(level, msg, condition, *args):
    """Logs `msg % args` at `level` only if `condition` holds."""
    if condition:
        vlog(level, msg, *args)


def log_every_n(level, msg, n, *args):
    """Logs `msg % args` at `level` on the 1st, (n+1)th, (2n+1)th, ... call from one line."""
    count = _next_count(_file_and_line())
    log_if(level, msg, not count % n, *args)


def log_first_n(level, msg, n, *args):
    """Logs `msg % args` at `level` the first `n` times it is called from one line."""
    count = _next_count(_file_and_line())
    log_if(level, msg, count < n, *args)


def get_verbosity():
    """Returns the logger's effective threshold (WARN = 30 unless set)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    """Sets the threshold below which messages are not logged (`tf.logging.INFO`, ...)."""
    get_logger().setLevel(v)


def google2_log_prefix(level, timestamp=None, file_and_line=None):
    """The `I1201 10:00:00.123456  1234 file.py:12] ` prefix of Google-style logs."""
    now = timestamp or _time.time()
    t = _time.localtime(now)
    filename, line = file_and_line or _file_and_line()
    severity = _level_names.get(level, "I")[0]
    return "%c%02d%02d %02d:%02d:%02d.%06d %5d %s:%d] " % (
        severity, t[1], t[2], t[3], t[4], t[5], int(1e6 * (now % 1.0)),
        _threading.get_ident() & (2 * _sys.maxsize + 1), _os.path.basename(filename), line)


get_logger()  # as TF does at import: its handler is in place before absl's (tf.app.run)
