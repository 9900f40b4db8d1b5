"""`tf.flags` / `tf.app.flags`: absl's flags, as TF 1.x exposed them.

Two differences from `absl.flags`, both TF 1.x's: the DEFINE functions also take the old keyword
names (`flag_name`, `default_value`, `docstring`), and reading a flag before the flags are
parsed parses `sys.argv` first instead of raising.
"""

import functools as _functools
import logging as _logging
import sys as _sys

from absl import flags as _absl_flags
from absl.flags import *  # noqa: F401,F403 - tf.flags is absl.flags

_OLD_NAMES = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_names(define):
    @_functools.wraps(define)
    def wrapper(*args, **kwargs):
        renamed = False
        for old, new in _OLD_NAMES.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
                renamed = True
        if renamed:
            _logging.warning("Use of the keyword argument names (flag_name, default_value, "
                             "docstring) is deprecated, please use (name, default, help) "
                             "instead.")
        return define(*args, **kwargs)
    return wrapper


class _FlagValuesWrapper:
    """absl's FLAGS, parsing `sys.argv` the first time a flag is read before parsing."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return getattr(wrapped, name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_wrapped"], name)

    def __dir__(self):
        return dir(self.__dict__["_wrapped"])

    def __getitem__(self, name):
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name, flag):
        self.__dict__["_wrapped"][name] = flag

    def __contains__(self, name):
        return name in self.__dict__["_wrapped"]

    def __len__(self):
        return len(self.__dict__["_wrapped"])

    def __iter__(self):
        return iter(self.__dict__["_wrapped"])

    def __str__(self):
        return str(self.__dict__["_wrapped"])

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"](*args, **kwargs)


DEFINE_string = _accept_old_names(_absl_flags.DEFINE_string)
DEFINE_boolean = _accept_old_names(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accept_old_names(_absl_flags.DEFINE_float)
DEFINE_integer = _accept_old_names(_absl_flags.DEFINE_integer)
FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)
