"""How a call of a variable class becomes a variable: the variable-creator stack.

`tf.Variable(...)` (TF's VariableV1) and the V2 class (`VariableV2`, TF 1.15's module-level
`variables.Variable`) are not constructed directly: their metaclass binds the call to the
class's signature and hands the keyword arguments down the current thread's stack of variable
creators (`tf.variable_creator_scope`), innermost first; the last one is the default creator,
which builds a reference variable or a resource variable. A creator is
`creator(next_creator, **kwargs)`: it may change the arguments, return another variable, or
build nothing. Subclasses (`ResourceVariable`, `RefVariable`) are constructed directly, as in TF.

Example:
  def log_names(next_creator, **kwargs):
      print(kwargs["name"])
      return next_creator(**kwargs)

  with tf.variable_creator_scope(log_names):
      v = tf.Variable(1.0, name="v")      # prints "v"
"""

import contextlib
import inspect

from flowloom.framework.graph import get_default_graph


class VariableMetaclass(type):
    """Routes `Cls(...)` through the creator stack for classes whose body defines
    `_variable_call` (the V1 and V2 variable classes, not their subclasses)."""

    def __call__(cls, *args, **kwargs):
        call = cls.__dict__.get("_variable_call")
        if call is not None:
            return call.__func__(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def bind_arguments(signature_of, args, kwargs):
    """The keyword arguments of a call `(*args, **kwargs)` to `signature_of(...)`, defaults
    filled in (TypeError as Python gives for a bad call)."""
    bound = inspect.signature(signature_of).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def create_through_stack(default_creator, kwargs):
    """Calls the default graph's variable creators (innermost first) and finally
    `default_creator(**kwargs)`; returns what the outermost call returns."""
    previous = default_creator
    for _, creator in get_default_graph()._variable_creator_stack:
        previous = _chained(creator, previous)
    return previous(**kwargs)


def _chained(creator, next_creator):
    def getter(**kwargs):
        return creator(next_creator, **kwargs)
    return getter


@contextlib.contextmanager
def variable_creator_scope(variable_creator, priority=100):
    """Makes `variable_creator(next_creator, **kwargs)` see every variable created in the
    block (in this thread, in the default graph); see the module docstring.

    Creators of a higher `priority` are called first; within a priority, inner scopes first.

    Raises:
      RuntimeError: when scopes are exited out of order.
    """
    g = get_default_graph()
    old = g._variable_creator_stack
    new = sorted(list(old) + [(priority, variable_creator)], key=lambda item: item[0])
    g._variable_creator_stack = new
    try:
        yield
    finally:
        if g._variable_creator_stack is not new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        g._variable_creator_stack = old


def default_variable_creator(next_creator=None, **kwargs):
    """The last creator for `tf.Variable` (V1): a resource variable when `use_resource`,
    the variable scope's use_resource or tf.enable_resource_variables() says so, else a
    reference variable."""
    if not _names:  # (imported on first use: these modules import this one)
        from flowloom.resource_variable import ResourceVariable
        from flowloom.variable_scope import get_variable_scope
        from flowloom.variables import RefVariable, resource_variables_enabled

        _names.extend((RefVariable, ResourceVariable, get_variable_scope,
                       resource_variables_enabled))
    ref_variable, resource_variable, get_variable_scope, resource_enabled = _names
    assert next_creator is None
    use_resource = kwargs.pop("use_resource", None)
    if use_resource is None:
        use_resource = get_variable_scope().use_resource
    if use_resource is None:
        use_resource = resource_enabled()
    variable_def = kwargs.get("variable_def")
    if use_resource or getattr(variable_def, "is_resource", False):
        kwargs.pop("expected_shape", None)
        return resource_variable(**kwargs)
    kwargs.pop("distribute_strategy", None)
    return type.__call__(ref_variable, **kwargs)  # (a subclass: no creators, as TF's)


_names = []


def default_variable_creator_v2(next_creator=None, **kwargs):
    """The last creator for the V2 class: always a resource variable."""
    from flowloom.resource_variable import ResourceVariable

    assert next_creator is None
    return ResourceVariable(**kwargs)
