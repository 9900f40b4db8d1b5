"""Python operators on tensors convert the other operand as TF 1.15 does (a dtype hint, not a
demand): what each expression builds, or the error it raises, as TF 1.15.5 printed them."""

import numpy as np
import pytest

import flowloom as tf

# expression -> (result dtype, op type) or (error class, message) from TF 1.15.5.
TF1 = {
    "f32 + f64 array": ("float32", "AddV2"),
    "f32 + 1": ("float32", "AddV2"),
    "i32 + 1.0": (TypeError, "Input 'y' of 'AddV2' Op has type float32 that does not match "
                             "type int32 of argument 'x'."),
    "i32 * 2.0": (TypeError, "Input 'y' of 'Mul' Op has type float32 that does not match "
                             "type int32 of argument 'x'."),
    "i32 + f32 variable": (TypeError, "Input 'y' of 'AddV2' Op has type float32 that does not "
                                      "match type int32 of argument 'x'."),
    "f32 + i64 array": ("float32", "AddV2"),
    "f32 + list": ("float32", "AddV2"),
    "i32 + float list": (TypeError, "Input 'y' of 'AddV2' Op has type float32 that does not "
                                    "match type int32 of argument 'x'."),
    "i32 / 2.0": (TypeError, "x and y must have the same dtype, got tf.int32 != tf.float32"),
    "f32 + str": (TypeError, "Input 'y' of 'AddV2' Op has type string that does not match "
                             "type float32 of argument 'x'."),
    "str + str": ("string", "Add"),
    "None": (ValueError, "None values not supported."),
}


def _build(expr):
    x = tf.ones([2], tf.float32)
    i = tf.ones([2], tf.int32)
    return {
        "f32 + f64 array": lambda: x + np.array([1.0, 2.0]),
        "f32 + 1": lambda: x + 1,
        "i32 + 1.0": lambda: i + 1.0,
        "i32 * 2.0": lambda: i * 2.0,
        "i32 + f32 variable": lambda: i + tf.Variable(1.0),
        "f32 + i64 array": lambda: x + np.array([1, 2], np.int64),
        "f32 + list": lambda: x + [1, 2],
        "i32 + float list": lambda: i + [1.5, 2],
        "i32 / 2.0": lambda: i / 2.0,
        "f32 + str": lambda: x + "a",
        "str + str": lambda: tf.constant("a") + "b",
        "None": lambda: x + None,
    }[expr]()


@pytest.mark.parametrize("expr", sorted(TF1))
def test_operator_converts_the_other_operand_as_tf(expr):
    want = TF1[expr]
    with tf.Graph().as_default():
        if isinstance(want[0], type):
            with pytest.raises(want[0]) as info:
                _build(expr)
            assert str(info.value).split("\n")[0] == want[1]
        else:
            out = _build(expr)
            assert (out.dtype.name, out.op.type) == want
