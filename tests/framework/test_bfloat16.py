"""tf.bfloat16 with NumPy's bfloat16 type (ml_dtypes', imported on first use): TensorProtos,
casts, seeded random values, checkpoints, as TF 1.15.5 gives them (its values recorded in the
literals below)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import flowloom as tf
from tests.tf_reference import skip_reason, tensorflow_python

ml_dtypes = pytest.importorskip("ml_dtypes")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bfloat16_has_numpy_type_and_tensor_protos_as_tf():
    assert tf.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert tf.bfloat16.is_numpy_compatible and tf.bfloat16.size == 2
    assert tf.as_dtype(ml_dtypes.bfloat16) is tf.bfloat16
    assert tf.as_dtype(np.dtype(ml_dtypes.bfloat16)) is tf.bfloat16
    proto = tf.make_tensor_proto(np.array([10.0, 20.0], dtype=ml_dtypes.bfloat16))
    assert proto.dtype == tf.bfloat16.as_datatype_enum and list(proto.half_val) == [16672, 16800]
    back = tf.make_ndarray(proto)
    assert back.dtype == ml_dtypes.bfloat16 and back.astype(np.float32).tolist() == [10.0, 20.0]
    from flowloom.framework import pywrap_types

    assert pywrap_types.TF_bfloat16_type() is ml_dtypes.bfloat16


def test_bfloat16_values_round_as_tf():
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        c = tf.constant([1.5, 2.25], dtype=tf.bfloat16)
        assert list(c.op.get_attr("value").half_val) == [16320, 16400]
        cast = tf.cast(tf.constant([1.0, 3.3]), tf.bfloat16)
        uniform = tf.random_uniform([7], dtype=tf.bfloat16, seed=1)
        scaled = tf.random_uniform([3], -2, 5, dtype=tf.bfloat16, seed=2)
        normal = tf.random_normal([5], dtype=tf.bfloat16, seed=4)
        with tf.Session() as sess:
            got = sess.run([c + c, cast, uniform, scaled, normal])
        assert all(g.dtype == ml_dtypes.bfloat16 for g in got)
        assert [g.astype(np.float32).tolist() for g in got] == [
            [3.0, 4.5], [1.0, 3.296875],
            [0.5390625, 0.5859375, 0.3984375, 0.4453125, 0.96875, 0.8984375, 0.828125],
            [-1.6171875, 3.09375, 2.0],
            [0.2890625, -0.2734375, -0.298828125, 0.130859375, -0.283203125]]


def test_bfloat16_checkpoint_round_trip(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(tf.cast([0.1, -7.0], tf.bfloat16), name="w")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
            sess.run(w.assign(tf.zeros([2], tf.bfloat16)))
            saver.restore(sess, path)
            assert sess.run(w).astype(np.float32).tolist() == [0.10009765625, -7.0]
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_dtype_map()["w"] == tf.bfloat16
    python = tensorflow_python("FLOWLOOM_TF1_PYTHON")
    if python is None:
        pytest.skip(skip_reason("FLOWLOOM_TF1_PYTHON"))
    out = subprocess.run(
        [python, "-c", "import sys, tensorflow.compat.v1 as tf; r = tf.train."
         "NewCheckpointReader(sys.argv[1]); print(r.get_variable_to_dtype_map()['w'].name, "
         "r.get_tensor('w').astype('float32').tolist())", path],
        capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == "bfloat16 [0.10009765625, -7.0]", out.stderr


def test_ml_dtypes_is_imported_only_when_bfloat16_is_used():
    code = ("import sys, flowloom as tf\n"
            "x = tf.placeholder(tf.float32, [None, 2]); y = tf.layers.dense(x, 3)\n"
            "with tf.Session() as s:\n"
            "    s.run(tf.global_variables_initializer()); s.run(y, {x: [[1, 2]]})\n"
            "print('ml_dtypes' in sys.modules)\n"
            "tf.zeros([2], tf.bfloat16)\n"
            "print('ml_dtypes' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    assert out.stdout.split() == ["False", "True"], out.stderr
    first = ("import ml_dtypes, numpy as np, flowloom as tf\n"
             "print(tf.as_dtype(np.zeros(2, ml_dtypes.bfloat16).dtype).name)\n")
    out = subprocess.run([sys.executable, "-c", first], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    assert out.stdout.strip() == "bfloat16", out.stderr


def test_bfloat16_segment_reductions_start_from_tf_limits():
    with tf.Graph().as_default():
        x = tf.cast(tf.constant([[1.5, -2.0], [3.0, 4.0], [5.0, 6.0]]), tf.bfloat16)
        with tf.Session() as sess:
            top, bottom = sess.run([tf.unsorted_segment_max(x, [0, 2, 0], 4),
                                    tf.unsorted_segment_min(x, [0, 2, 0], 4)])
    lowest = -3.3895313892515355e+38  # TF 1.15.5: an empty segment's max is bfloat16's lowest
    assert top.astype(np.float64).tolist() == [[5, 6], [lowest] * 2, [3, 4], [lowest] * 2]
    assert bottom.astype(np.float64).tolist() == [[1.5, -2], [-lowest] * 2, [3, 4], [-lowest] * 2]
