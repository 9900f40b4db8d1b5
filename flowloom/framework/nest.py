"""Nested structures of tensors (`tf.nest`): lists, tuples, namedtuples, dicts and attrs-less
objects are structure; everything else (Tensors, arrays, numbers, None) is a leaf.

Dicts flatten in sorted-key order, as TF's nest does, and are rebuilt with their own type.
"""

import collections
import collections.abc as _abc


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(structure):
    """True if `structure` is a list, tuple, namedtuple, mapping or mapping view (`d.values()`,
    as TF's nest counts them; not a string)."""
    return isinstance(structure, (list, tuple, _abc.Mapping, _abc.MappingView))


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


def _structure_repr(s):
    return repr(s)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError if the two structures nest differently, TypeError if their sequence
    types differ (when `check_types`)."""
    _assert_same(nest1, nest2, check_types, nest1, nest2, expand_composites)


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
            f"More specifically: Substructure \"{a if a_seq else b!r}\" is a sequence, while "
            f"substructure \"{b if a_seq else a!r}\" is not")
    if not a_seq:
        return
    if check_types and type(a) is not type(b):
        if not (isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping)):
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
    if len(ca) != len(cb):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {top1!r}\n\nSecond structure: {top2!r}\n\n"
            f"More specifically: The two structures don't have the same number of elements. "
            f"First structure: {a!r}. Second structure: {b!r}.")
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types, top1, top2, composites)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Returns `flat_sequence` packed into the nesting of `structure`.

    Raises:
      ValueError: the number of leaves differs.
    """
    flat_sequence = list(flat_sequence)
    if not is_nested(structure) and not (expand_composites and _is_composite(structure)):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = len(flatten(structure, expand_composites))
    if n != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: "
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


def flatten_up_to(shallow_tree, input_tree):
    """The parts of `input_tree` at the leaves of `shallow_tree`, flattened."""
    if not is_nested(shallow_tree):
        return [input_tree]
    out = []
    for s, t in zip(_children(shallow_tree), _children(input_tree)):
        out.extend(flatten_up_to(s, t))
    return out


def map_structure_up_to(shallow_tree, func, *inputs):
    """`map_structure` that stops at the leaves of `shallow_tree`."""
    flats = [flatten_up_to(shallow_tree, x) for x in inputs]
    return pack_sequence_as(shallow_tree, [func(*xs) for xs in zip(*flats)])


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
