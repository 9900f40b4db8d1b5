"""`tf.contrib.framework` variable helpers: model variables, lookups by scope and name, and
assignment from values or checkpoints (as slim uses them)."""

import contextlib
import functools
import logging
import re

import numpy as np

from flowloom import variables as tf_variables
from flowloom.contrib.framework.arg_scope import add_arg_scope
from flowloom.framework.graph import GraphKeys, add_to_collection, device, get_collection
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.variable_scope import VariableScope, get_variable, get_variable_scope


def zero_initializer(ref, use_locking=True, name="zero_initializer"):
    """An op that assigns zeros to the (uninitialized) variable `ref`."""
    from flowloom.ops.state import state_ops

    return state_ops.assign(ref, array_ops.zeros_like(ref.initialized_value()),
                            use_locking=use_locking, name=name)


def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A variable holding `initial_value`, in `GraphKeys.LOCAL_VARIABLES`, not trainable."""
    return tf_variables.Variable(initial_value, trainable=False,
                                 collections=[GraphKeys.LOCAL_VARIABLES],
                                 validate_shape=validate_shape, name=name)


def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A variable holding `initial_value`, in `GraphKeys.GLOBAL_VARIABLES`, not trainable."""
    return tf_variables.Variable(initial_value, trainable=False,
                                 collections=[GraphKeys.GLOBAL_VARIABLES],
                                 validate_shape=validate_shape, name=name)


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
             collections=None, caching_device=None, device=None, partitioner=None,
             custom_getter=None, use_resource=None, synchronization=None, aggregation=None):
    """Gets an existing variable with these parameters or creates a new one.

    Args:
      name: the variable's name in the current variable scope.
      shape, dtype, initializer, regularizer, trainable: as `tf.get_variable`.
      collections: the collections to add it to (default `[GLOBAL_VARIABLES]`).
      device: the device to place it on.
      custom_getter: a getter called as `custom_getter(get_variable, name, ..., reuse=...)`.
    Returns:
      The created or existing variable.
    """
    collections = list(collections if collections is not None
                       else [GraphKeys.GLOBAL_VARIABLES])
    collections = list(dict.fromkeys(collections))
    getter = get_variable
    if custom_getter is not None:
        getter = functools.partial(custom_getter, reuse=get_variable_scope().reuse)
    with _device(device):
        return getter(name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, trainable=trainable, collections=collections,
                      caching_device=caching_device, partitioner=partitioner,
                      use_resource=use_resource)


@add_arg_scope
def model_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=True, collections=None, caching_device=None, device=None,
                   partitioner=None, custom_getter=None, use_resource=None,
                   synchronization=None, aggregation=None):
    """Like `variable`, and also adds it to `GraphKeys.MODEL_VARIABLES`."""
    collections = list(collections or [])
    collections += [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=collections,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


def _device(spec):
    return device(spec) if spec else contextlib.nullcontext()


def add_model_variable(var):
    """Adds `var` to `GraphKeys.MODEL_VARIABLES` (once)."""
    if var not in get_collection(GraphKeys.MODEL_VARIABLES):
        add_to_collection(GraphKeys.MODEL_VARIABLES, var)


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES):
    """The variables of `collection` whose names match the regex `scope` (and end in `suffix`)."""
    if isinstance(scope, VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None):
    """The model variables, filtered by scope and suffix."""
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope=None, suffix=None):
    """The local variables, filtered by scope and suffix."""
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    """The trainable variables, filtered by scope and suffix."""
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_to_restore(include=None, exclude=None):
    """The global variables under the `include` scopes and not under the `exclude` scopes.

    Raises:
      TypeError: `include` or `exclude` is given but is not a list or tuple.
    """
    if include is None:
        chosen = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        chosen = []
        for scope in include:
            chosen += get_variables(scope)
    excluded = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        for scope in exclude:
            excluded |= set(get_variables(scope))
    return [v for v in chosen if v not in excluded]


def get_variables_by_suffix(suffix, scope=None):
    """The global variables whose names end in `suffix`."""
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name, scope=None):
    """The global variables whose last name component is `given_name`."""
    suffix = "/" + given_name + ":|^" + given_name + ":"
    return get_variables(scope=scope, suffix=suffix)


def get_unique_variable(var_op_name):
    """The variable whose op is named `var_op_name`.

    Raises:
      ValueError: no variable, or no single variable, has that name.
    """
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError("Couldn't find variable %s" % var_op_name)
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError("Variable %s does not uniquely identify a variable" % var_op_name)


def get_variable_full_name(var):
    """The name a variable has in a checkpoint (its op name)."""
    info = getattr(var, "_save_slice_info", None)
    return info.full_name if info else var.op.name


def _assign_through_placeholder(var, value, feed_dict, assign_ops):
    holder = array_ops.placeholder(dtype=var.dtype.base_dtype, shape=var.get_shape(),
                                   name="placeholder/" + var.op.name)
    assign_ops.append(var.assign(holder))
    feed_dict[holder] = value


def assign_from_values(var_names_to_values):
    """An op assigning values to the variables they name, fed through placeholders.

    Returns:
      (assign_op, feed_dict).
    Raises:
      ValueError: a name finds no variable, or more than one.
    """
    feed_dict = {}
    assign_ops = []
    for var_name, value in var_names_to_values.items():
        found = get_collection(GraphKeys.GLOBAL_VARIABLES, var_name)
        if not found:
            raise ValueError("Variable %s wasn't found" % var_name)
        if len(found) > 1:
            found = [v for v in found if v.op.name == var_name]
            if len(found) != 1:
                raise ValueError("Variable %s doesn't uniquely identify a variable" % var_name)
        var = found[0]
        _assign_through_placeholder(var, np.asarray(value).reshape(var.get_shape().as_list()),
                                    feed_dict, assign_ops)
    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_values_fn(var_names_to_values):
    """A function `fn(session)` that runs `assign_from_values(var_names_to_values)`."""
    assign_op, feed_dict = assign_from_values(var_names_to_values)

    def callback(session):
        return session.run(assign_op, feed_dict)
    return callback


def _group_by_checkpoint_name(var_list):
    grouped = {}
    if isinstance(var_list, (tuple, list)):
        for var in var_list:
            grouped.setdefault(get_variable_full_name(var), []).append(var)
    else:
        for name, value in var_list.items():
            grouped[name] = list(value) if isinstance(value, (tuple, list)) else [value]
    return grouped


def assign_from_checkpoint(model_path, var_list, ignore_missing_vars=False):
    """An op (and its feed dict) that assigns `var_list` from the checkpoint `model_path`.

    Args:
      model_path: a checkpoint prefix (e.g. from `tf.train.latest_checkpoint`).
      var_list: a list of variables, or a dict {checkpoint name: variable or variables}.
      ignore_missing_vars: skip (with a warning) names missing from the checkpoint.
    Returns:
      (assign_op, feed_dict).
    Raises:
      ValueError: a name is missing (unless ignored), or a shape differs from the checkpoint's.
    """
    from flowloom.train.checkpoint_utils import NewCheckpointReader

    reader = NewCheckpointReader(model_path)
    feed_dict = {}
    assign_ops = []
    for ckpt_name, group in _group_by_checkpoint_name(var_list).items():
        if not reader.has_tensor(ckpt_name):
            message = "Checkpoint is missing variable [%s]" % ckpt_name
            if ignore_missing_vars:
                logging.warning(message)
                continue
            raise ValueError(message)
        value = reader.get_tensor(ckpt_name)
        for var in group:
            if var.get_shape() != value.shape:
                raise ValueError("Total size of new array must be unchanged for %s lh_shape: "
                                 "[%s], rh_shape: [%s]" % (ckpt_name, str(value.shape),
                                                           str(var.get_shape())))
            _assign_through_placeholder(var, value, feed_dict, assign_ops)
    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False,
                              reshape_variables=False):
    """A function `fn(session)` restoring `var_list` from `model_path` with a Saver.

    Returns None (with a warning) when `ignore_missing_vars` leaves nothing to restore.

    Raises:
      ValueError: `var_list` is empty.
    """
    if not var_list:
        raise ValueError("var_list cannot be empty")
    if ignore_missing_vars:
        from flowloom.train.checkpoint_utils import NewCheckpointReader

        reader = NewCheckpointReader(model_path)
        var_dict = var_list if isinstance(var_list, dict) else \
            {var.op.name: var for var in var_list}
        available = {}
        for name, var in var_dict.items():
            if reader.has_tensor(name):
                available[name] = var
            else:
                logging.warning("Variable %s missing in checkpoint %s", name, model_path)
        var_list = available
    if not var_list:
        logging.warning("No Variables to restore")
        return None
    from flowloom.train.saver import Saver

    saver = Saver(var_list, reshape=reshape_variables)

    def callback(session):
        saver.restore(session, model_path)
    return callback


def filter_variables(var_list, include_patterns=None, exclude_patterns=None, reg_search=True):
    """The variables of `var_list` whose names match an include pattern and no exclude one."""
    match = re.search if reg_search else re.match
    chosen = list(var_list) if include_patterns is None else \
        [v for v in var_list if any(match(p, v.name) for p in include_patterns)]
    if exclude_patterns is None:
        return chosen
    return [v for v in chosen if not any(match(p, v.name) for p in exclude_patterns)]


class VariableDeviceChooser:
    """A device function placing variables round-robin on `num_tasks` parameter servers."""

    def __init__(self, num_tasks=0, job_name="ps", device_type="CPU", device_index=0,
                 replica=None):
        self._job_name = job_name
        self._device_type = device_type
        self._device_index = device_index
        self._replica = replica
        self._num_tasks = num_tasks
        self._next_task_id = 0

    def __call__(self, op):
        from flowloom.framework.device import DeviceSpec

        spec = DeviceSpec(replica=self._replica, device_type=self._device_type,
                          device_index=self._device_index)
        if self._num_tasks > 0:
            task_id = self._next_task_id
            self._next_task_id = (self._next_task_id + 1) % self._num_tasks
            spec = DeviceSpec(job=self._job_name, replica=self._replica, task=task_id,
                              device_type=self._device_type, device_index=self._device_index)
        return spec.to_string()
