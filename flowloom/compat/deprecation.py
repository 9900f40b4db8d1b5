"""`tensorflow.python.util.deprecation`, as TF1 programs use it: decorators and the switch.

Programs set `deprecation._PRINT_DEPRECATION_WARNINGS = False` to quiet TF; flowloom prints
no deprecation warnings, so the switch is kept only for them to set. The decorators return
the function unchanged.
"""

import contextlib

_PRINT_DEPRECATION_WARNINGS = True


def deprecated(date, instructions, warn_once=True):
    """Marks a function deprecated (flowloom: returns it unchanged)."""
    return lambda func: func


def deprecated_args(date, instructions, *deprecated_arg_names_or_tuples, **kwargs):
    """Marks arguments deprecated (flowloom: returns the function unchanged)."""
    return lambda func: func


def deprecated_arg_values(date, instructions, warn_once=True, **deprecated_kwargs):
    """Marks argument values deprecated (flowloom: returns the function unchanged)."""
    return lambda func: func


def deprecated_alias(deprecated_name, name, func_or_class, warn_once=True):
    """Returns `func_or_class` (flowloom prints no deprecation warnings)."""
    return func_or_class


@contextlib.contextmanager
def silence():
    """Turns deprecation warnings off in the block."""
    global _PRINT_DEPRECATION_WARNINGS
    previous, _PRINT_DEPRECATION_WARNINGS = _PRINT_DEPRECATION_WARNINGS, False
    try:
        yield
    finally:
        _PRINT_DEPRECATION_WARNINGS = previous
