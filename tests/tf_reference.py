"""Where the tests find a real TensorFlow to compare against (never a dependency).

FLOWLOOM_TF_PYTHON names a Python that imports tensorflow; otherwise /work/tfvenv (the
developers' reference install) or this interpreter if it has tensorflow. None: tests skip.
"""

import importlib.util
import os
import sys


def tensorflow_python():
    for candidate in (os.environ.get("FLOWLOOM_TF_PYTHON"), "/work/tfvenv/bin/python"):
        if candidate and os.path.exists(candidate):
            return candidate
    return sys.executable if importlib.util.find_spec("tensorflow") is not None else None
