"""function.Defun: graph functions in the graph's FunctionDefLibrary, called as ops of the
function's name; gradients through calls; If/While/For/Case over library functions.

Found by TF 1.15's functional_ops_test and gradients_test (FunctionGradientsTest), which
failed on `function.Defun` before flowloom had graph functions.
"""

import numpy as np
import pytest

import flowloom as tf
from flowloom.graph_function import Defun, from_library
from flowloom.graph_function import functional_call_ops as fops


def _square_plus_b(x, b):
    return x * x + b


def _named(name, fn):
    fn.__name__ = name  # a function's name names its call ops, as in TF
    return fn


def test_call_is_an_op_of_the_function_name_and_its_library_round_trips():
    f = Defun(tf.float32, tf.float32, func_name="SqB")(_square_plus_b)
    x = tf.placeholder(tf.float32, name="x")
    y = f(x, tf.constant([1.0]), name="call")
    assert y.op.type == "SqB" and y.op.name == "call"
    gd = tf.get_default_graph().as_graph_def()
    [fdef] = gd.library.function
    assert fdef.signature.name == "SqB"
    assert [a.name for a in fdef.signature.input_arg] == ["x", "b"]
    assert fdef.ret[fdef.signature.output_arg[0].name].endswith(":z:0")
    with tf.Session() as sess:
        assert sess.run(y, {x: [3.0]}) == [10.0]
    with tf.Graph().as_default():
        y2 = tf.import_graph_def(gd, return_elements=["call:0"], name="")[0]
        assert y2.op.type == "SqB"
        with tf.Session() as sess:
            assert sess.run(y2, {"x:0": [2.0]}) == [5.0]
        # from_library gives back the definitions.
        assert [f.name for f in from_library(gd.library)] == ["SqB"]


def test_default_name_hashes_the_body_and_outputs_are_unknown_unless_shape_func():
    f = Defun(tf.float32)(_named("f1", lambda x: x + 1.0))
    g = Defun(tf.float32, shape_func=lambda op: [op.inputs[0].get_shape()])(
        _named("f2", lambda x: x + 1.0))
    a, b = f([1.0, 2.0]), g([1.0, 2.0])
    assert f.name.startswith("f1_") and len(f.name.split("_")[-1]) == 8
    assert a.shape.ndims is None and b.shape.as_list() == [2]


@pytest.mark.parametrize("kind", ["symbolic", "grad_func", "python_grad_func"])
def test_gradients_through_calls(kind):
    kwargs = {}
    if kind == "grad_func":
        kwargs["grad_func"] = Defun(tf.float32, tf.float32, tf.float32)(
            _named("f3", lambda x, b, dy: (dy * 4.0 * x, dy * 2.0)))
    elif kind == "python_grad_func":
        kwargs["python_grad_func"] = lambda op, dy: (dy * 6.0 * op.inputs[0], dy * 3.0)
    f = Defun(tf.float32, tf.float32, **kwargs)(_square_plus_b)
    x, b1, b2 = tf.constant([2.0]), tf.constant([1.0]), tf.constant([1.0])
    y = f(f(x, b1), b2)  # (x^2 + b1)^2 + b2
    gx, gb1 = tf.gradients(y, [x, b1])
    scale = {"symbolic": 1.0, "grad_func": 2.0, "python_grad_func": 3.0}[kind]
    with tf.Session() as sess:
        vx, vb1 = sess.run([gx, gb1])
    # d/dx = 2*(x^2+b1) * 2x = 40; d/db1 = 2*(x^2+b1) = 10; each call's gradient is scaled.
    np.testing.assert_allclose(vx, [40.0 * scale * scale])
    np.testing.assert_allclose(vb1, [10.0 * scale * scale])


def test_gradient_defined_twice_is_an_error():
    grad = Defun(tf.float32, tf.float32, tf.float32)(_named("f4", lambda x, b, dy: (dy, dy)))
    f = Defun(tf.float32, tf.float32, grad_func=grad,
              python_grad_func=lambda op, dy: (dy, dy))(_square_plus_b)
    with pytest.raises(ValueError, match="Gradient defined twice"):
        f.add_to_graph(tf.Graph())


def test_captured_tensors_and_variables_and_nested_calls():
    v = tf.Variable(2.0)
    c = tf.constant(10.0)

    @Defun(tf.float32)
    def inner(x):
        return x * v

    @Defun(tf.float32)
    def outer(x):
        return inner(x) + c

    y = outer(tf.constant(3.0))
    assert len(outer.captured_inputs) == 2
    names = {f.signature.name for f in tf.get_default_graph().as_graph_def().library.function}
    assert names == {inner.name, outer.name}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y) == 16.0
        sess.run(v.assign(3.0))
        assert sess.run(y) == 19.0


def test_function_with_no_outputs_runs_its_stateful_ops():
    v = tf.Variable(1.0, use_resource=True)

    @Defun()
    def bump():
        v.assign_add(1.0)

    op = fops.partitioned_call(args=bump.captured_inputs, f=bump)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        assert sess.run(v.read_value()) == 2.0


def test_if_while_for_case():
    twice = Defun(tf.float32)(_named("f5", lambda x: x * 2))
    thrice = Defun(tf.float32)(_named("f6", lambda x: x * 3 + 1))
    cond = Defun(tf.float32, tf.float32)(_named("f7", lambda n, x: n > 0))
    body = Defun(tf.float32, tf.float32)(_named("f8", lambda n, x: (n - 1, x + n)))
    for_body = Defun(tf.int32, tf.float32)(_named("f9", lambda i, x: x + tf.cast(i, tf.float32)))
    p = tf.placeholder(tf.float32)
    r_if = fops.If(tf.greater(p, 0), [p], twice, thrice)[0]
    r_while = fops.While([p, 0.0], cond, body)[1]
    r_for = fops.For(1, 21, 1, [0.0], for_body)[0]
    r_for_while = fops.For(100, 0, -1, [0.0], for_body, rewrite_with_while=True)[0]
    r_case = fops._outputs(tf.get_default_graph().get_operation_by_name(
        fops.apply_op("Case", [tf.constant(7), [p]], Tout=[tf.float32],
                      branches=[twice, thrice]).name))[0]
    with tf.Session() as sess:
        assert sess.run(r_if, {p: 9.0}) == 18.0 and sess.run(r_if, {p: -8.0}) == -23.0
        assert sess.run(r_while, {p: 20.0}) == 210.0
        assert sess.run([r_for, r_for_while]) == [210.0, 5050.0]
        assert sess.run(r_case, {p: 2.0}) == 7.0  # an index past the end: the last branch


def test_loop_errors_are_invalid_argument():
    cond2 = Defun(tf.float32, tf.float32)(_named("f10", lambda n, x: (n > 0, x)))
    body = Defun(tf.float32, tf.float32)(_named("f11", lambda n, x: (n - 1, x + n)))
    foo = Defun(tf.int32, tf.float32)(_named("f12", lambda i, v: tf.cast(i, tf.float32) + v))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="got 2 tensors"):
            sess.run(fops.While([5.0, 0.0], cond2, body)[0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid start/limit/delta"):
            sess.run(fops.For(0, 10, -1, [0.0], foo)[0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be a scalar"):
            sess.run(fops.For([0], 10, 1, [0.0], foo)[0])


def test_symbolic_gradient_op_and_executor_type():
    poly = Defun(tf.float32)(_named("f13", lambda x: 2 * x * x * x + 3 * x * x + 4 * x + 8))
    grad = Defun(tf.float32)(_named("f14", lambda x: fops.Gradient([x, 1.0], poly)[0]))
    add5 = Defun(tf.int32)(_named("f15", lambda x: x + 5))
    bad = fops.partitioned_call([tf.constant([1, 2])], add5, executor_type="NO_SUCH")
    with tf.Session() as sess:
        assert sess.run([poly(tf.constant(1.0)), grad(tf.constant(1.0))]) == [17.0, 16.0]
        with pytest.raises(tf.errors.NotFoundError, match="NO_SUCH"):
            sess.run(bad)
