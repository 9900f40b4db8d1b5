"""Helpers of tf.contrib.layers: output collections with aliases, per-variable collections."""

import collections as _collections

from flowloom.framework.graph import add_to_collections, get_collection


def append_tensor_alias(tensor, alias):
    """Appends `alias` (a scope name, trailing '/' dropped) to `tensor.aliases`."""
    if alias[-1] == "/":
        alias = alias[:-1]
    if hasattr(tensor, "aliases"):
        tensor.aliases.append(alias)
    else:
        tensor.aliases = [alias]
    return tensor


def collect_named_outputs(collections, alias, outputs):
    """Adds `outputs` (with `alias` appended to its aliases) to `collections`; returns it."""
    if collections:
        append_tensor_alias(outputs, alias)
        add_to_collections(collections, outputs)
    return outputs


def gather_tensors_aliases(tensors):
    """The last alias (or name) of each tensor."""
    return [t.aliases[-1] if getattr(t, "aliases", None) else t.name for t in tensors]


def convert_collection_to_dict(collection, clear_collection=False):
    """An OrderedDict {alias: tensor} of the tensors of `collection`."""
    from flowloom.framework.graph import get_default_graph

    output = _collections.OrderedDict((alias, tensor) for tensor in get_collection(collection)
                                      for alias in getattr(tensor, "aliases", [tensor.name]))
    if clear_collection:
        get_default_graph().clear_collection(collection)
    return output


def get_variable_collections(variables_collections, name):
    """The collections for variable `name`: `variables_collections[name]` for a dict, else the
    list itself."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name, None)
    return variables_collections


def _n_positive(n, value):
    if isinstance(value, int):
        if value > 0:
            return (value,) * n
    elif isinstance(value, (list, tuple)) and len(value) == n and \
            all(isinstance(v, int) and v > 0 for v in value):
        return tuple(value)
    raise ValueError("n_positive_integers: invalid value %r" % (value,))


def n_positive_integers(n, value):
    """`value` as a tuple of `n` positive ints (an int is repeated)."""
    return _n_positive(n, value)


def two_element_tuple(int_or_tuple):
    """An int or a pair as a pair (TensorShape pairs accepted)."""
    if isinstance(int_or_tuple, (list, tuple)):
        if len(int_or_tuple) != 2:
            raise ValueError("Must be a list with 2 elements: %s" % (int_or_tuple,))
        return int(int_or_tuple[0]), int(int_or_tuple[1])
    if isinstance(int_or_tuple, int):
        return int(int_or_tuple), int(int_or_tuple)
    raise ValueError("Must be an int, a list with 2 elements or a TensorShape of length 2")


def last_dimension(shape, min_rank=1):
    """The last dimension of `shape`, checked to be known and the rank at least `min_rank`."""
    dims = shape.dims
    if dims is None:
        raise ValueError("dims of shape must be known but is None")
    if len(dims) < min_rank:
        raise ValueError("rank of shape must be at least %d not: %d" % (min_rank, len(dims)))
    value = dims[-1].value
    if value is None:
        raise ValueError("last dimension shape must be known but is None")
    return value
