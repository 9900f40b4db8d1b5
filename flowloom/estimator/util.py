"""Helpers the Estimator shares: argument inspection and input_fn results."""

import functools
import inspect

from flowloom.train.session_run_hook import SessionRunHook


def fn_args(fn):
    """The names of `fn`'s positional-or-keyword arguments, as TF's `function_utils.fn_args`
    gives them: a `functools.partial` loses the names it binds, a callable object is inspected
    through `__call__`, a bound method loses `self`."""
    if isinstance(fn, functools.partial):
        args = fn_args(fn.func)
        return tuple(a for a in args[len(fn.args):] if a not in (fn.keywords or {}))
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and callable(fn):
        fn = fn.__call__
    args = list(inspect.getfullargspec(fn).args)
    if inspect.ismethod(fn) and "self" in args:
        args.remove("self")
    return tuple(args)


def parse_input_fn_result(result):
    """(features, labels, input_hooks) from what an `input_fn` returned: a `tf.data.Dataset`
    (iterated through an initializable iterator a hook initializes), a `(features, labels)`
    tuple, or features alone."""
    from flowloom.data.dataset import Dataset

    input_hooks = []
    if isinstance(result, Dataset):
        iterator = result.make_initializable_iterator()
        input_hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    return parse_iterator_result(result) + (input_hooks,)


def parse_iterator_result(result):
    """(features, labels) from one element: a len-2 tuple or list, or features alone."""
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1]
    return result, None


class DatasetInitializerHook(SessionRunHook):
    """Runs a dataset iterator's initializer when the session is created."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def check_hooks_type(hooks):
    """A list of `hooks`, each checked to be a SessionRunHook (TypeError otherwise)."""
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {h}")
    return hooks


def check_listeners_type(saving_listeners):
    """A list of `saving_listeners`, each checked to be a CheckpointSaverListener."""
    from flowloom.train.basic_session_run_hooks import CheckpointSaverListener

    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError("saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener}")
    return listeners
