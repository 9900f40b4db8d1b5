"""`tensorflow.python.platform.test` (and `googletest`): flowloom's `tf.test` module."""

import flowloom.test as _flowloom_test

from .importer import Missing


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "GetTempDir":
        name = "get_temp_dir"
    try:
        return getattr(_flowloom_test, name)
    except AttributeError:
        return Missing(f"tensorflow.python.platform.test.{name}")
