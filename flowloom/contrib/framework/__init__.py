"""`tf.contrib.framework`: arg scopes, the global step, variable helpers, `nest`."""

from flowloom.contrib.framework.arg_scope import (add_arg_scope, arg_scope,  # noqa: F401
                                                  arg_scope_func_key, arg_scoped_arguments,
                                                  current_arg_scope, has_arg_scope)
from flowloom.contrib.framework.variables import (VariableDeviceChooser,  # noqa: F401
                                                  add_model_variable, assign_from_checkpoint,
                                                  assign_from_checkpoint_fn, assign_from_values,
                                                  assign_from_values_fn, filter_variables,
                                                  get_local_variables, get_model_variables,
                                                  get_trainable_variables, get_unique_variable,
                                                  get_variable_full_name, get_variables,
                                                  get_variables_by_name, get_variables_by_suffix,
                                                  get_variables_to_restore, global_variable,
                                                  local_variable, model_variable, variable,
                                                  zero_initializer)
from flowloom.framework import nest  # noqa: F401
from flowloom.framework.graph import get_name_scope  # noqa: F401
from flowloom.train.training_util import (assert_global_step, create_global_step,  # noqa: F401
                                          get_global_step, get_or_create_global_step)


def assert_or_get_global_step(graph=None, global_step_tensor=None):
    """`global_step_tensor` checked to be a global step, or the graph's global step."""
    if global_step_tensor is None:
        return get_global_step(graph)
    assert_global_step(global_step_tensor)
    return global_step_tensor


def prepend_name_scope(name, import_scope):
    """`import_scope/name` (keeping a leading `^` of a control input)."""
    if not import_scope:
        return name
    if name.startswith("^"):
        return "^" + import_scope + "/" + name[1:]
    return import_scope + "/" + name


def strip_name_scope(name, export_scope):
    """`name` with a leading `export_scope/` removed."""
    if not export_scope:
        return name
    import re

    return re.sub(r"([\^]|loc:@|^)%s[\/]+(.*)" % re.escape(export_scope), r"\1\2", name,
                  count=1)
