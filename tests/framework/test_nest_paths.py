"""tf.nest over part of a structure and with paths, as TF 1.15's nest (its nest_test checks
the same)."""

import collections

import pytest

import flowloom as tf
from flowloom.framework import nest

Point = collections.namedtuple("Point", ["x", "y"])


def test_paths_of_every_leaf():
    s = {"b": [1, Point(2, 3)], "a": (4,)}
    assert nest.flatten_with_tuple_paths(s) == [
        (("a", 0), 4), (("b", 0), 1), (("b", 1, "x"), 2), (("b", 1, "y"), 3)]
    assert nest.flatten_with_joined_string_paths(s) == [
        ("a/0", 4), ("b/0", 1), ("b/1/x", 2), ("b/1/y", 3)]
    assert list(nest.yield_flat_paths([5])) == [(0,)]
    assert nest.map_structure_with_paths(lambda p, v: f"{p}={v}", s) == {
        "b": ["b/0=1", Point("b/1/x=2", "b/1/y=3")], "a": ("a/0=4",)}


def test_up_to_a_shallow_tree():
    assert nest.flatten_up_to([0, 0], [[1, 2], 3]) == [[1, 2], 3]
    assert nest.flatten_with_tuple_paths_up_to({"a": 0}, {"a": [1, 2]}) == [(("a",), [1, 2])]
    assert nest.map_structure_up_to((None, None), lambda x: len(x), ([1], [2, 3])) == (1, 2)
    with pytest.raises(TypeError, match="If shallow structure is a sequence, input must also"):
        nest.flatten_up_to([0, 0], 1)
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.flatten_up_to([0, 0], (1, 2))
    with pytest.raises(ValueError, match="don't have the same sequence length"):
        nest.assert_shallow_structure([0, 0], [1, 2, 3])
    nest.assert_shallow_structure([0, 0], [1, 2, 3], check_subtrees_length=False)
    with pytest.raises(ValueError, match=r"has the following keys that are not in the "
                                         r"input_tree: \['c'\]"):
        nest.assert_shallow_structure({"c": 0}, {"d": 1})


def test_traverse_shallow_structure():
    def descend(x):
        return not isinstance(x, tuple)
    assert nest.get_traverse_shallow_structure(descend, [(1, 2), [3]]) == [False, [True]]
    with pytest.raises(TypeError, match="non-bool scalar"):
        nest.get_traverse_shallow_structure(lambda x: 1, [1])


def test_assert_same_structure_message_as_tf():
    with pytest.raises(ValueError) as e:
        tf.nest.assert_same_structure((((1, 2), 3), 4), ("spam", "eggs"))
    text = str(e.value)
    assert 'Substructure "type=tuple str=((1, 2), 3)" is a sequence, while substructure ' \
           '"type=str str=spam" is not' in text
    assert text.endswith("Entire first structure:\n(((., .), .), .)\nEntire second "
                         "structure:\n(., .)")
    same = collections.namedtuple("same", "a b")
    other = collections.namedtuple("same", "a b")
    nest.assert_same_structure(same(1, 2), other(3, 4))  # one name and fields: one type


def test_pack_sequence_as_wants_a_sequence():
    with pytest.raises(TypeError, match="flat_sequence must be a sequence"):
        nest.pack_sequence_as([4, 5], "bad_sequence")
    with pytest.raises(ValueError, match="Structure had 2 elements, but flat_sequence had 3 "
                                         "elements"):
        nest.pack_sequence_as(["a", "b"], [1, 2, 3])
