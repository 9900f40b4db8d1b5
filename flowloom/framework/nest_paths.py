"""`tf.nest` over part of a structure and with paths (TF 1.15's `nest` functions that take a
`shallow_tree` or give each leaf its path).

A path is the tuple of keys from the root to a leaf: list and tuple indices, dict keys (in
sorted order), namedtuple and attrs field names. `flatten_with_joined_string_paths` joins
them with "/". A shallow tree is a structure whose leaves stand for whole subtrees of the
input: `flatten_up_to([0, 0], [[1, 2], 3])` is `[[1, 2], 3]`.
"""

import collections.abc as _abc

from flowloom.framework import nest as _nest

_SHALLOW_TREE_HAS_INVALID_KEYS = (
    "The shallow_tree's keys are not a subset of the input_tree's keys. The "
    "shallow_tree has the following keys that are not in the input_tree: {}.")
_STRUCTURES_HAVE_MISMATCHING_TYPES = (
    "The two structures don't have the same sequence type. Input structure has "
    "type {input_type}, while shallow structure has type {shallow_type}.")
_STRUCTURES_HAVE_MISMATCHING_LENGTHS = (
    "The two structures don't have the same sequence length. Input "
    "structure has length {input_length}, while shallow structure has length "
    "{shallow_length}.")
_INPUT_TREE_SMALLER_THAN_SHALLOW_TREE = (
    "The input_tree has fewer elements than the shallow_tree. Input structure "
    "has length {input_size}, while shallow structure has length "
    "{shallow_size}.")
_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ = (
    "If shallow structure is a sequence, input must also be a sequence. "
    "Input has type: {}.")


def _items(structure):
    """(key, child) pairs of a structure in flatten order."""
    if isinstance(structure, _abc.Mapping):
        return [(k, structure[k]) for k in _nest._sorted_keys(structure)]
    if _nest._is_attrs(structure):
        return [(name, getattr(structure, name)) for name in _nest._attrs_names(structure)]
    if _nest._is_namedtuple(structure):
        return [(f, getattr(structure, f)) for f in structure._fields]
    return list(enumerate(structure))


def _flat_up_to(shallow_tree, input_tree, path=()):
    """(path, value) of each leaf of `shallow_tree`, the value taken from `input_tree`."""
    if not _nest.is_nested(shallow_tree):
        yield path, input_tree
        return
    inputs = dict(_items(input_tree))
    for key, sub in _items(shallow_tree):
        yield from _flat_up_to(sub, inputs[key], path + (key,))


def yield_flat_paths(nest, expand_composites=False):
    """Yields the tuple path of each leaf of `nest`, in `flatten` order."""
    del expand_composites
    for path, _ in _flat_up_to(nest, nest):
        yield path


def flatten_with_tuple_paths(structure, expand_composites=False):
    """`[(path, leaf), ...]`: the leaves of `flatten(structure)` with their tuple paths."""
    return list(zip(yield_flat_paths(structure, expand_composites),
                    _nest.flatten(structure, expand_composites)))


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    """`[(path, leaf), ...]` with each path's keys joined by `separator` ("a/0/b")."""
    paths = [separator.join(str(k) for k in path)
             for path in yield_flat_paths(structure, expand_composites)]
    return list(zip(paths, _nest.flatten(structure, expand_composites)))


def _same_namedtuples(a, b):
    return type(a).__name__ == type(b).__name__ and a._fields == b._fields


def assert_shallow_structure(shallow_tree, input_tree, check_types=True,
                             expand_composites=False, check_subtrees_length=True):
    """Raises when `input_tree` does not have `shallow_tree`'s structure down to its leaves.

    Raises:
      TypeError: a sequence of the shallow tree is not one in the input, or (with
        `check_types`) their sequence types differ.
      ValueError: sequence lengths differ (with `check_subtrees_length`; else the input has
        fewer elements), or dict keys of the shallow tree are missing.
    """
    if not _nest.is_nested(shallow_tree):
        return
    if not _nest.is_nested(input_tree):
        raise TypeError(_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ.format(type(input_tree)))
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        both_named = _nest._is_namedtuple(shallow_tree) and _nest._is_namedtuple(input_tree)
        both_maps = isinstance(shallow_tree, _abc.Mapping) and isinstance(input_tree,
                                                                         _abc.Mapping)
        if (both_named and not _same_namedtuples(shallow_tree, input_tree)) or \
                (not both_named and not both_maps):
            raise TypeError(_STRUCTURES_HAVE_MISMATCHING_TYPES.format(
                input_type=type(input_tree), shallow_type=type(shallow_tree)))
    if check_subtrees_length and len(input_tree) != len(shallow_tree):
        raise ValueError(_STRUCTURES_HAVE_MISMATCHING_LENGTHS.format(
            input_length=len(input_tree), shallow_length=len(shallow_tree)))
    if len(input_tree) < len(shallow_tree):
        raise ValueError(_INPUT_TREE_SMALLER_THAN_SHALLOW_TREE.format(
            input_size=len(input_tree), shallow_size=len(shallow_tree)))
    if isinstance(shallow_tree, _abc.Mapping):
        absent = set(shallow_tree) - set(input_tree)
        if absent:
            raise ValueError(_SHALLOW_TREE_HAS_INVALID_KEYS.format(sorted(absent)))
    for (_, s), (_, t) in zip(_items(shallow_tree), _items(input_tree)):
        assert_shallow_structure(s, t, check_types, expand_composites, check_subtrees_length)


def flatten_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False,
                  check_subtrees_length=True):
    """The parts of `input_tree` at the leaves of `shallow_tree`, flattened (after
    `assert_shallow_structure`)."""
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand_composites,
                             check_subtrees_length)
    return [v for _, v in _flat_up_to(shallow_tree, input_tree)]


def flatten_with_tuple_paths_up_to(shallow_tree, input_tree, check_types=True,
                                   expand_composites=False, check_subtrees_length=True):
    """`flatten_up_to` with each part's tuple path: `[(path, part), ...]`."""
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand_composites,
                             check_subtrees_length)
    return list(_flat_up_to(shallow_tree, input_tree))


def map_structure_with_tuple_paths_up_to(shallow_tree, func, *inputs, **kwargs):
    """`func(path, *parts)` for each leaf of `shallow_tree`, packed as `shallow_tree`.

    Args:
      shallow_tree: the structure to stop at.
      func: called with the tuple path and the part of each input at that leaf.
      *inputs: structures that have `shallow_tree`'s structure down to its leaves.
      **kwargs: `check_types` (default True), `expand_composites`, `check_subtrees_length`
        (default True); the rest go to `func`.
    """
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    lengths = kwargs.pop("check_subtrees_length", True)
    for tree in inputs:
        assert_shallow_structure(shallow_tree, tree, check_types, expand, lengths)
    flats = [flatten_up_to(shallow_tree, tree, check_types, expand, lengths)
             for tree in inputs]
    paths = [p for p, _ in _flat_up_to(shallow_tree, inputs[0])]
    results = [func(*args, **kwargs) for args in zip(paths, *flats)]
    return _nest.pack_sequence_as(shallow_tree, results)


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """`map_structure` that stops at the leaves of `shallow_tree`."""
    return map_structure_with_tuple_paths_up_to(
        shallow_tree, lambda _, *values: func(*values), *inputs, **kwargs)


def map_structure_with_tuple_paths(func, *structure, **kwargs):
    """`map_structure` whose `func` also receives each leaf's tuple path first."""
    return map_structure_with_tuple_paths_up_to(structure[0], func, *structure, **kwargs)


def map_structure_with_paths(func, *structure, **kwargs):
    """`map_structure` whose `func` also receives each leaf's path joined by "/" first."""
    def with_string_path(path, *values, **kw):
        return func("/".join(str(k) for k in path), *values, **kw)
    return map_structure_with_tuple_paths_up_to(structure[0], with_string_path, *structure,
                                                **kwargs)


def get_traverse_shallow_structure(traverse_fn, structure, expand_composites=False):
    """The shallow tree of `structure` that `traverse_fn` says to descend into.

    `traverse_fn(sub)` returns True (descend), False (stop: a leaf), or, for a sequence, a
    same-shaped structure of bools saying which children to descend into.

    Raises:
      TypeError: `traverse_fn` returned something else.
    """
    decision = traverse_fn(structure)
    if not _nest.is_nested(structure):
        if not isinstance(decision, bool):
            raise TypeError("traverse_fn returned structure: %s for non-structure: %s"
                            % (decision, structure))
        return decision
    children = [c for _, c in _items(structure)]
    if isinstance(decision, bool):
        if not decision:
            return False
        level = [get_traverse_shallow_structure(traverse_fn, c, expand_composites)
                 for c in children]
    elif not _nest.is_nested(decision):
        raise TypeError("traverse_fn returned a non-bool scalar: %s for input: %s"
                        % (decision, structure))
    else:
        assert_shallow_structure(decision, structure, expand_composites=expand_composites)
        level = []
        for t, c in zip([t for _, t in _items(decision)], children):
            if not isinstance(t, bool):
                raise TypeError("traverse_fn didn't return a depth=1 structure of bools.  saw: "
                                "%s  for structure: %s" % (decision, structure))
            level.append(get_traverse_shallow_structure(traverse_fn, c) if t else False)
    return _nest._rebuild(structure, level)
