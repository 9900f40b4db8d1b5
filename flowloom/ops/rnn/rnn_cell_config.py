"""RNN cells' configs (`get_config` / `from_config`, as TF 1.15's cells give them) and their
tracked sub-cells (`_checkpoint_dependencies`).

A cell's config is the arguments its constructor was called with (recorded by RNNCell), plus
`name`, `trainable` and `dtype`; a wrapped cell is `{"class_name", "config"}`, an activation
its name. Python functions other than activations are not serialized: turning them back into
code is what reading a config must never do.
"""

import collections
import functools
import inspect

TrackableReference = collections.namedtuple("TrackableReference", ["name", "ref"])


def record_init_args(cls):
    """Wraps `cls.__init__` so that the outermost constructor call records its arguments."""
    init = cls.__dict__.get("__init__")
    if init is None:
        return
    signature = inspect.signature(init)

    @functools.wraps(init)
    def recording_init(self, *args, **kwargs):
        if "_init_arguments" not in self.__dict__:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            arguments.pop("self", None)
            for name, p in signature.parameters.items():
                if p.kind == p.VAR_KEYWORD:
                    arguments.update(arguments.pop(name, {}))
                elif p.kind == p.VAR_POSITIONAL:
                    arguments.pop(name, None)
            self.__dict__["_init_arguments"] = arguments
        init(self, *args, **kwargs)
    cls.__init__ = recording_init


def _activation_names():
    from flowloom.ops.math import math_ops
    from flowloom.ops.nn import nn_ops

    names = {}
    for module in (math_ops, nn_ops):
        for n in ("tanh", "sigmoid", "relu", "relu6", "elu", "selu", "softplus", "softsign"):
            fn = getattr(module, n, None)
            if fn is not None:
                names.setdefault(n, fn)
    return names


def serialize(value):
    """A config entry for a constructor argument."""
    from flowloom.ops.rnn.rnn_cell_impl import RNNCell

    if isinstance(value, RNNCell):
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if isinstance(value, (list, tuple)):
        return [serialize(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "get_config"):  # an initializer
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if hasattr(value, "name") and hasattr(value, "as_numpy_dtype"):  # a DType
        return value.name
    for name, fn in _activation_names().items():
        if value is fn:
            return name
    raise NotImplementedError(f"get_config of a cell with argument {value!r}: flowloom does "
                              "not serialize Python functions")


def deserialize(key, value):
    """The constructor argument for a config entry."""
    from flowloom.ops.rnn import rnn_cell_impl, rnn_cell_wrappers

    if isinstance(value, dict) and set(value) == {"class_name", "config"}:
        cls = getattr(rnn_cell_impl, value["class_name"], None) or \
            getattr(rnn_cell_wrappers, value["class_name"], None)
        if cls is not None and hasattr(cls, "from_config"):
            return cls.from_config(value["config"])
        from flowloom.ops.state import init_ops

        cls = getattr(init_ops, value["class_name"], None)
        if cls is None:
            raise ValueError(f"Unknown class in a cell config: {value['class_name']}")
        return cls(**value["config"])
    if isinstance(value, list) and key == "cells":
        return [deserialize(key, v) for v in value]
    if key == "activation" and isinstance(value, str):
        fn = _activation_names().get(value)
        if fn is None:
            raise ValueError(f"Unknown activation in a cell config: {value!r}")
        return fn
    return value


def get_config(cell):
    config = {k: serialize(v) for k, v in cell.__dict__.get("_init_arguments", {}).items()
              if k not in ("name", "trainable", "dtype")}
    dtype = getattr(cell, "dtype", None)
    config.update(name=cell.name, trainable=cell.trainable,
                  dtype=getattr(dtype, "name", dtype))
    return config


def from_config(cls, config):
    return cls(**{k: deserialize(k, v) for k, v in config.items()})
