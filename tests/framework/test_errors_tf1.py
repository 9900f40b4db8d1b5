"""errors as TF 1.15's errors_impl: one class per code, unknown codes and classes warn."""

import pickle
import warnings

import flowloom as tf
from flowloom.framework import common_shapes, errors


def test_specific_exception_per_code_and_unknown_code():
    for code, cls in errors._CODE_TO_CLASS.items():
        exc = errors._make_specific_exception(None, None, "m", code)
        assert type(exc) is cls and errors.error_code_from_exception_type(cls) == code
        again = pickle.loads(pickle.dumps(exc))
        assert (again.message, again.error_code, again.op) == ("m", code, None)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exc = errors._make_specific_exception(None, None, None, 37)
        unknown = errors.error_code_from_exception_type("Unknown")
    assert [str(x.message) for x in w] == ["Unknown error code: 37", "Unknown class exception"]
    assert isinstance(exc, tf.errors.UnknownError) and exc.error_code == 37
    assert isinstance(unknown, tf.errors.UnknownError)


def test_broadcast_shape():
    s = tf.TensorShape
    assert common_shapes.broadcast_shape(s([5, 1]), s([3])) == s([5, 3])
    assert common_shapes.broadcast_shape(s(None), s([3])).ndims is None
    assert common_shapes.broadcast_shape(s([None]), s([4])).as_list() == [4]
    assert not common_shapes.is_broadcast_compatible(s(None), s([3]))
    assert not common_shapes.is_broadcast_compatible(s([5]), s([7]))
    try:
        common_shapes.broadcast_shape(s([5]), s([7]))
    except ValueError as e:
        assert str(e) == "Incompatible shapes for broadcasting: (5,) and (7,)"
    else:
        raise AssertionError("no ValueError")
