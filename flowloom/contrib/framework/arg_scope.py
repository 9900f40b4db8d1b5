"""`arg_scope` / `add_arg_scope`: default keyword arguments for decorated functions, as in TF1.

    with arg_scope([layers.conv2d, layers.fully_connected], activation_fn=tf.nn.tanh):
        net = layers.conv2d(images, 32, [3, 3])      # activation_fn=tf.nn.tanh

A decorated function is keyed by `str(func)` of the undecorated function (TF's key), so a
scope given the decorated function applies to every call of it; arguments passed in the call
win over the scope's.
"""

import contextlib
import functools
import threading

_state = threading.local()
_DECORATED_OPS = {}


def _get_arg_stack():
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = [{}]
    return stack


def current_arg_scope():
    """The innermost arg scope: a dict {function key: {argument: value}}."""
    return _get_arg_stack()[-1]


def arg_scope_func_key(op):
    return getattr(op, "_key_op", str(op))


def _kwarg_names(func):
    code = func.__code__
    n_defaults = len(func.__defaults__) if func.__defaults__ else 0
    names = code.co_varnames[code.co_argcount - n_defaults:code.co_argcount]
    return tuple(names) + tuple(code.co_varnames[code.co_argcount:
                                                 code.co_argcount + code.co_kwonlyargcount])


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Stores default arguments for the functions in `list_ops_or_scope`.

    Args:
      list_ops_or_scope: a list or tuple of functions decorated with `add_arg_scope`, or a
        scope dict (as yielded by an outer `arg_scope`) to re-enter; then kwargs must be empty.
      **kwargs: the defaults for every function in the list.
    Yields:
      the current scope, a dict {function key: {argument: value}}.
    Raises:
      TypeError: `list_ops_or_scope` is neither a list/tuple nor a dict.
      ValueError: a function was not decorated with `add_arg_scope`, or a dict came with kwargs.
    """
    stack = _get_arg_stack()
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling adictionary, "
                             "kwargs must be empty.")
        current = list_ops_or_scope.copy()
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            "(i.e. dict)")
        current = current_arg_scope().copy()
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError("%s is not decorated with @add_arg_scope"
                                 % ((getattr(op, "__module__", None),
                                     getattr(op, "__name__", repr(op))),))
            key = arg_scope_func_key(op)
            merged = dict(current.get(key, {}))
            merged.update(kwargs)
            current[key] = merged
    stack.append(current)
    try:
        yield current
    finally:
        stack.pop()


def add_arg_scope(func):
    """Decorates `func` so that `arg_scope` can set its keyword arguments."""
    key = arg_scope_func_key(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scope = current_arg_scope()
        if key in scope:
            merged = dict(scope[key])
            merged.update(kwargs)
            kwargs = merged
        return func(*args, **kwargs)

    _DECORATED_OPS[key] = _kwarg_names(func)
    func_with_args._key_op = key
    return func_with_args


def has_arg_scope(func):
    """Whether `func` was decorated with `add_arg_scope`."""
    return arg_scope_func_key(func) in _DECORATED_OPS


def arg_scoped_arguments(func):
    """The keyword arguments `arg_scope` can set for `func`."""
    assert has_arg_scope(func)
    return _DECORATED_OPS[arg_scope_func_key(func)]
