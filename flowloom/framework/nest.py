"""Nested structures of tensors (`tf.nest`): lists, tuples, namedtuples, dicts and attrs-less
objects are structure; everything else (Tensors, arrays, numbers, None) is a leaf.

Dicts flatten in sorted-key order, as TF's nest does, and are rebuilt with their own type.
"""

import collections
import collections.abc as _abc


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_attrs(x):
    """An instance of an `attrs` class: its fields are its children, in definition order."""
    return hasattr(type(x), "__attrs_attrs__")


def _attrs_names(x):
    return [a.name for a in type(x).__attrs_attrs__]


def is_nested(structure):
    """True if `structure` is a list, tuple, namedtuple, mapping, mapping view (`d.values()`,
    as TF's nest counts them; not a string) or an `attrs` instance."""
    return isinstance(structure, (list, tuple, _abc.Mapping, _abc.MappingView)) or \
        _is_attrs(structure)


is_sequence = is_nested


def _is_composite(x):
    """A composite tensor (SparseTensor, IndexedSlices): with `expand_composites` its
    component tensors are its children."""
    return hasattr(x, "_to_components") and hasattr(x, "_from_components")


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(structure):
    if isinstance(structure, _abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    if _is_attrs(structure):
        return [getattr(structure, n) for n in _attrs_names(structure)]
    return list(structure)


def _rebuild(instance, children):
    if isinstance(instance, _abc.Mapping):
        # Values come in sorted-key order; the rebuilt mapping keeps the instance's key order.
        by_key = dict(zip(_sorted_keys(instance), children))
        if isinstance(instance, collections.defaultdict):
            out = type(instance)(instance.default_factory)
            for k in instance:
                out[k] = by_key[k]
            return out
        return type(instance)((k, by_key[k]) for k in instance)
    if isinstance(instance, _abc.MappingView):
        return list(children)
    if _is_attrs(instance):
        return type(instance)(*children)
    if _is_namedtuple(instance):
        return type(instance)(*children)
    if isinstance(instance, tuple):
        return tuple(children)
    return list(children)


def flatten(structure, expand_composites=False):
    """Returns the leaves of `structure` in TF's order (dicts by sorted key).

    Args:
      structure: a nested structure, or a single leaf.

    Returns:
      A Python list of the leaves; `[structure]` for a leaf (including None).
    """
    out = []
    stack = [structure]
    while stack:
        s = stack.pop()
        if is_nested(s):
            stack.extend(reversed(_children(s)))
        elif expand_composites and _is_composite(s):
            stack.extend(reversed(s._to_components()))
        else:
            out.append(s)
    return out


class _Dot:
    """A leaf drawn as "." in a structure's picture (str and repr)."""

    def __repr__(self):
        return "."


_DOT = _Dot()


def _described(s):
    return f"type={type(s).__name__} str={s}"


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError if the two structures nest differently, TypeError if their sequence
    types differ (when `check_types`); the message ends with both structures drawn with "."
    for their leaves, as TF's does."""
    try:
        _assert_same(nest1, nest2, check_types, nest1, nest2, expand_composites)
    except (ValueError, TypeError) as e:
        def dots(s):
            return str(pack_sequence_as(s, [_DOT] * len(flatten(s)))) if is_nested(s) else "."
        raise type(e)(f"{e}\nEntire first structure:\n{dots(nest1)}\nEntire second "
                      f"structure:\n{dots(nest2)}") from None


def _assert_same(a, b, check_types, top1, top2, composites=False):
    if composites and (_is_composite(a) or _is_composite(b)):
        if type(a) is not type(b):
            raise TypeError(f"The two structures don't have the same sequence type: {a!r} "
                            f"and {b!r}.")
        a, b = a._to_components(), b._to_components()
        if len(a) != len(b):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{top1!r} and {top2!r}.")
    a_seq, b_seq = is_nested(a), is_nested(b)
    if a_seq != b_seq:
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {top1!r}\n\nSecond structure: {top2!r}\n\n"
            f"More specifically: Substructure \"{_described(a if a_seq else b)}\" is a "
            f"sequence, while substructure \"{_described(b if a_seq else a)}\" is not")
    if not a_seq:
        return
    if check_types and type(a) is not type(b):
        # Two namedtuple classes of one name and fields count as one type (as TF).
        same_named = _is_namedtuple(a) and _is_namedtuple(b) and \
            type(a).__name__ == type(b).__name__ and a._fields == b._fields
        if not same_named and not (isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping)):
            raise TypeError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {top1!r}\n\nSecond structure: {top2!r}\n\n"
                "More specifically: The two namedtuples don't have the same sequence type. "
                f"First structure {a!r} has type {type(a).__name__}, while second structure "
                f"{b!r} has type {type(b).__name__}")
    if check_types and isinstance(a, _abc.Mapping) and set(a) != set(b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {top1!r}\n\nSecond structure: {top2!r}\n\n"
            "More specifically: The two dictionaries don't have the same set of keys. First "
            f"structure has keys {list(a)}, while second structure has keys {list(b)}.")
    ca, cb = _children(a), _children(b)
    for x, y in zip(ca, cb):  # as TF: children pairwise first, the lengths after
        _assert_same(x, y, check_types, top1, top2, composites)
    if len(ca) != len(cb):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {top1!r}\n\nSecond structure: {top2!r}\n\n"
            f"More specifically: The two structures don't have the same number of elements. "
            f"First structure: {a!r}. Second structure: {b!r}.")


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Returns `flat_sequence` packed into the nesting of `structure`.

    Raises:
      ValueError: the number of leaves differs.
    """
    if not is_nested(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    flat_sequence = list(flat_sequence)
    if not is_nested(structure) and not (expand_composites and _is_composite(structure)):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = len(flatten(structure, expand_composites))
    if n != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {n} elements, but flat_sequence had "
            f"{len(flat_sequence)} elements.  Structure: {structure}, flat_sequence: "
            f"{flat_sequence}.")
    it = iter(flat_sequence)

    def build(s):
        if is_nested(s):
            return _rebuild(s, [build(c) for c in _children(s)])
        if expand_composites and _is_composite(s):
            return s._from_components([build(c) for c in s._to_components()])
        return next(it)

    return build(structure)


def map_structure(func, *structure, **kwargs):
    """Applies `func` to corresponding leaves of the structures; returns the same nesting.

    Args:
      func: a callable taking one argument per structure.
      *structure: structures of the same nesting.
      **kwargs: `check_types` (default True), `expand_composites` (default False: composite
        tensors are leaves).
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{', '.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types,
                              expand_composites=expand)
    flats = [flatten(s, expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)], expand)


def flatten_dict_items(dictionary):
    """A dict whose nested keys are flattened against their values (`Session.run` feeds).

    A key that is a structure (an `LSTMStateTuple` of placeholders, a tuple of tensors) pairs
    its leaves with the leaves of its value, as TF's `nest.flatten_dict_items` does.

    Args:
      dictionary: a mapping.

    Returns:
      A dict of leaf keys to leaf values.

    Raises:
      TypeError: if `dictionary` is not a mapping.
      ValueError: if a key's and its value's structures have other numbers of leaves, or a
        leaf key appears twice.
    """
    if not isinstance(dictionary, _abc.Mapping):
        raise TypeError("input must be a dictionary")
    flat = {}
    for key, value in dictionary.items():
        if not is_nested(key):
            pairs = [(key, value)]
        else:
            flat_keys, flat_values = flatten(key), flatten(value)
            if len(flat_keys) != len(flat_values):
                raise ValueError(
                    f"Could not flatten dictionary. Key had {len(flat_keys)} elements, but "
                    f"value had {len(flat_values)} elements. Key: {flat_keys}, value: "
                    f"{flat_values}.")
            pairs = zip(flat_keys, flat_values)
        for k, v in pairs:
            if k in flat:
                raise ValueError(f"Could not flatten dictionary: key {k} is not unique.")
            flat[k] = v
    return flat


# TF's functions over part of a structure and with paths (they use the functions above).
from flowloom.framework.nest_paths import (  # noqa: E402,F401 - TF's nest names
    _IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ, _INPUT_TREE_SMALLER_THAN_SHALLOW_TREE,
    _SHALLOW_TREE_HAS_INVALID_KEYS, _STRUCTURES_HAVE_MISMATCHING_LENGTHS,
    _STRUCTURES_HAVE_MISMATCHING_TYPES, assert_shallow_structure, flatten_up_to,
    flatten_with_joined_string_paths, flatten_with_tuple_paths, flatten_with_tuple_paths_up_to,
    get_traverse_shallow_structure, map_structure_up_to, map_structure_with_paths,
    map_structure_with_tuple_paths, map_structure_with_tuple_paths_up_to, yield_flat_paths)
