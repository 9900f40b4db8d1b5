"""`flowloom run script.py [args...]`: runs an unmodified TF1 script on flowloom.

The script sees what `python script.py args...` would give it: `sys.argv`, `__name__ ==
"__main__"`, `__file__`, its folder first on `sys.path`; tracebacks start at the script's
frame and the exit status is Python's (1 after an uncaught exception, a SystemExit's code as
given). `import tensorflow` inside it imports flowloom (flowloom/compat/importer.py).
"""

import builtins
import importlib.machinery
import os
import signal
import sys
import types

import numpy as np

from flowloom.compat.importer import install_as_tensorflow


def _user_traceback(tb, script):
    """`tb` without the frames of this runner that come before the script's."""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == script:
            return tb
        tb = tb.tb_next
    return None  # a SyntaxError in the script: Python prints no traceback lines either


def _main_module(script):
    """A fresh `__main__` as the interpreter makes one for `python script.py`."""
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    main.__spec__ = None
    main.__package__ = None
    main.__builtins__ = builtins
    return main


def _print_numpy_scalars_as_tf1_did():
    """NumPy 2 shows a scalar inside a list or dict as `np.float32(0.5)`; the NumPy that TF 1.x
    ran on showed `0.5`, and TF1 scripts print `sess.run` results and metric dicts that way."""
    if int(np.__version__.split(".")[0]) >= 2:
        np.set_printoptions(legacy="1.25")


def run_script(path, args):
    """Runs the Python file `path` as `__main__` with `sys.argv == [path] + args`.

    Returns:
      The exit status `python path args...` would end with.
    """
    if not os.path.exists(path):
        sys.stderr.write(f"{sys.executable}: can't open file {os.path.abspath(path)!r}: "
                         f"[Errno 2] No such file or directory\n")
        return 2
    script = os.path.abspath(path)
    sys.argv = [path] + list(args)
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    install_as_tensorflow()
    _print_numpy_scalars_as_tf1_did()
    main = _main_module(script)
    try:
        with open(script, "rb") as f:
            code = compile(f.read(), script, "exec")
        # The script's __main__ replaces this program's for good, as it would be in
        # `python script.py` (atexit handlers and pickling look it up after the run).
        sys.modules["__main__"] = main
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except KeyboardInterrupt as e:
        e = e.with_traceback(_user_traceback(e.__traceback__, script))
        sys.excepthook(type(e), e, e.__traceback__)
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    except BaseException as e:  # noqa: BLE001 - reported as Python reports it
        e = e.with_traceback(_user_traceback(e.__traceback__, script))
        sys.excepthook(type(e), e, e.__traceback__)
        return 1
    return 0
