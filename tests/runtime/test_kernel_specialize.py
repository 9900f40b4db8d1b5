"""Kernels specialized on constant inputs (runtime/kernel_specialize.py): the same values,
dtypes, shapes and errors as the general kernels, in plain and `cond` plans."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.runtime import kernel_specialize, rewrites



def _config(folding):
    config = tf.ConfigProto()
    if not folding:
        config.graph_options.rewrite_options.constant_folding = 2  # RewriterConfig.OFF
    return config


def _outcome(fn, *args):
    try:
        r = fn(*args)
    except errors.OpError as e:
        return ("error", type(e), str(e).splitlines()[0])
    r = np.asarray(r)
    return (r.dtype, r.shape, r.tobytes())


def _pair(op_type, consts, attrs):
    """(general kernel, specialized one) of a registered op bound to `attrs`."""
    import functools

    from flowloom.framework import op_def

    kernel = op_def.get(op_type).kernel_fn
    general = functools.partial(kernel, np, **attrs)

    class Op:
        _attrs = attrs
        _opdef = op_def.get(op_type)
    fast = kernel_specialize.specialize(Op, general, consts)
    assert fast is not general, op_type
    return general, fast


CASES = [
    ("Reshape", [None, np.array([4, 6], np.int32)], {},
     [np.arange(24.0).reshape(2, 12), np.arange(24, dtype=np.int8), np.arange(25.0),
      np.float32(3)]),
    ("Reshape", [None, np.array([], np.int32)], {}, [np.float32(3), np.ones(1), np.ones(2)]),
    ("Transpose", [None, np.array([1, 2, 0], np.int32)], {},
     [np.arange(24.0).reshape(2, 3, 4), np.ones((2, 3)), np.arange(6).reshape(1, 2, 3)]),
    ("Mean", [None, np.array([0, 1, 2], np.int32)], {"keep_dims": True},
     [np.random.RandomState(0).rand(24, 24, 3).astype(np.float32) * 255,
      np.random.RandomState(1).rand(5, 7, 3), np.arange(24, dtype=np.int32).reshape(2, 3, 4),
      np.ones((2, 3), np.float16), np.ones((2, 3)), np.zeros((0, 2, 2), np.float32)]),
    ("Mean", [None, np.array([-1, 0], np.int32)], {"keep_dims": False},
     [np.random.RandomState(2).randn(4, 9).astype(np.float32), np.ones(3),
      np.random.RandomState(3).randn(3, 4, 5)]),
    ("Sum", [None, np.array([1], np.int32)], {"keep_dims": False},
     [np.arange(12.0).reshape(3, 4), np.ones(3), np.arange(6, dtype=np.int64).reshape(2, 3)]),
    ("Max", [None, np.array(0, np.int32)], {"keep_dims": True},
     [np.arange(12.0).reshape(3, 4), np.zeros((0, 2)), np.float32(2)]),
    ("FloorMod", [None, np.array([9, 9, 1], np.int32)], {},
     [np.array([5, -3, 8], np.int32), np.arange(6, dtype=np.int32).reshape(2, 3),
      np.array([1.5, 2, 3]), np.ones(4, np.int32), np.int32(7)]),
    ("Slice", [None, None, np.array([2, -1, 3], np.int32)], {},
     [(np.arange(60.0).reshape(3, 4, 5), np.array([1, 2, 0], np.int32)),
      (np.arange(60.0).reshape(3, 4, 5), np.array([2, 0, 1], np.int64)),
      (np.arange(60.0).reshape(3, 4, 5), np.array([0, 0, 3], np.int32)),  # past the end
      (np.arange(60.0).reshape(3, 4, 5), np.array([-1, 0, 0], np.int32)),
      (np.ones((3, 4)), np.array([0, 0, 0], np.int32)),
      (np.arange(60.0).reshape(3, 4, 5), np.array([0, 0], np.int32))]),
    ("ReverseV2", [None, np.array([1], np.int32)], {},
     [np.arange(72.0).reshape(4, 6, 3), np.arange(24, dtype=np.int8).reshape(2, 3, 4)[:, ::2],
      np.arange(60.0).reshape(3, 4, 5)[1:, 1:3], np.ones((4, 1, 3)), np.arange(6.0),
      np.ones((2, 2)), np.float32(3)]),
    ("ReverseV2", [None, np.array([0, -1], np.int64)], {},
     [np.arange(72.0).reshape(4, 6, 3), np.arange(6.0).reshape(2, 3), np.arange(5)]),
    ("FloorDiv", [None, np.array([2.5, -1.0])], {},
     [np.array([5.0, -3.0]), np.ones((3, 2)), np.ones(3)]),
    ("StridedSlice", [None, np.array([1], np.int32), np.array([3073], np.int32),
                      np.array([1], np.int32)],
     {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
      "shrink_axis_mask": 0},
     [np.arange(3073, dtype=np.uint8), np.arange(10), np.ones((3, 3))]),
    ("StridedSlice", [None, np.array([0, -1], np.int32), np.array([0, 0], np.int32),
                      np.array([1, 1], np.int32)],
     {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
      "shrink_axis_mask": 3},
     [np.arange(12).reshape(3, 4), np.ones((1, 1)), np.ones((0, 2)), np.ones(3)]),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # a mean of nothing, as NumPy says
@pytest.mark.parametrize("k", range(len(CASES)))
def test_specialized_kernels_equal_the_general_ones(k):
    op_type, consts, attrs, inputs = CASES[k]
    general, fast = _pair(op_type, consts, attrs)
    for rounds in range(2):  # the first input of a shape may take the general path
        for x in inputs:
            args = [x] + consts[1:]
            if isinstance(x, tuple):  # inputs that are not constants come first
                args = list(x) + consts[len(x):]
                x = x[0]
            assert _outcome(fast, *args) == _outcome(general, *args), (op_type, x.shape)


def _pipeline():
    """Per-example image ops (decode, reshape, transpose, crop, flip in a cond, contrast,
    standardization), seeded: a plan with a `cond`, run by the straight dataflow plan."""
    tf.set_random_seed(3)
    record = tf.placeholder(tf.uint8, [3073])
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
    image = tf.transpose(tf.reshape(tf.strided_slice(record, [1], [3073]), [3, 32, 32]),
                         [1, 2, 0])
    image = tf.random_crop(tf.cast(image, tf.float32), [24, 24, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=63)
    image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
    return record, [tf.image.per_image_standardization(image), label,
                    tf.reduce_sum(image, [0, 1]), tf.reshape(image, [-1, 3])]


def _runs(folding, runs=6):
    with tf.Graph().as_default():
        record, outs = _pipeline()
        rng = np.random.RandomState(0)
        with tf.Session(config=_config(folding)) as sess:
            return [[np.asarray(v).tobytes() for v in sess.run(outs, {
                record: rng.randint(0, 256, 3073).astype(np.uint8)})] for _ in range(runs)]


def test_a_cond_plan_gives_the_same_values_specialized_or_not(monkeypatch):
    calls = []
    real = kernel_specialize.specialize
    monkeypatch.setattr(kernel_specialize, "specialize",
                        lambda op, fn, consts: calls.append(op._type) or real(op, fn, consts))
    on = _runs(True)
    # (the standardization's Means run inside its fused op). Under FLOWLOOM_REWRITES=0
    # (`dev.py test --rewrites off`) nothing is specialized; the values must still agree.
    if not rewrites.ALL_OFF:
        assert {"Reshape", "Transpose", "StridedSlice", "Sum", "FloorMod", "Slice",
                "RandomUniform", "RandomUniformInt"} <= set(calls)
    else:
        assert not calls
    calls.clear()
    assert _runs(False) == on and not calls


def test_a_plain_plan_runs_specialized_kernels_once_compiled():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6])
        y = tf.reduce_mean(tf.transpose(tf.reshape(x, [2, 3, -1]), [2, 0, 1]), [1, 2])
        z = tf.reshape(x, [3, 4])
        with tf.Session() as sess:
            v = np.arange(12, dtype=np.float32).reshape(2, 6)
            want = v.reshape(2, 3, 2).transpose(2, 0, 1).mean(axis=(1, 2))
            for _ in range(3):  # compiled at the second run
                got, same = sess.run([y, z], {x: v})
                assert got.tobytes() == want.tobytes() and same.tobytes() == \
                    v.reshape(3, 4).tobytes()
            with pytest.raises(tf.errors.InvalidArgumentError, match="requested shape has 12"):
                sess.run(z, {x: np.ones((3, 6), np.float32)})


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # complex to real drops the imaginary
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_bound_cast_equals_the_cast_kernel():
    from flowloom.framework import dtypes, op_def

    kernel = op_def.get("Cast").kernel_fn
    values = {"float32": np.array([1.7, -2.5, np.nan, np.inf, 3e9], np.float32),
              "float64": np.array([-0.5, 7.99, 2**40], np.float64),
              "int32": np.array([-3, 0, 2**31 - 1], np.int32),
              "uint8": np.array([0, 200, 255], np.uint8), "bool": np.array([True, False]),
              "complex64": np.array([1 + 2j, -3j], np.complex64)}
    names = list(values) + ["int64", "float16", "int8"]
    for src in values:
        for dst in names:
            class Op:
                _attrs = {"SrcT": dtypes.as_dtype(src), "DstT": dtypes.as_dtype(dst)}
            bound = kernel.bind(np, Op)
            assert bound is not None, (src, dst)
            x = values[src]
            want = kernel(np, x, SrcT=Op._attrs["SrcT"], DstT=Op._attrs["DstT"])
            got = bound(x)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (src, dst)
