"""Batches of a slices dataset (repeated or not) are cut from runs of elements: the same
batches, bit for bit, as stacking its elements one by one."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.data import dataset_values as dv


class _ElementsOnly(dv.DatasetValue):
    """The same elements without `blocks()`: BatchValue stacks them one by one."""

    def __init__(self, value):
        self.value = value

    def iterate(self):
        return self.value.iterate()


def _batches(value):
    return list(value.iterate())


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and u.shape == v.shape
            assert u.flags.c_contiguous and v.flags.c_contiguous
            if u.dtype == object:
                assert u.tolist() == v.tolist()
            else:
                assert u.tobytes() == v.tobytes()


def _components():
    rng = np.random.RandomState(3)
    x = rng.randn(7, 3, 2).astype(np.float32)
    return [x, np.arange(7, dtype=np.int64),
            np.array([b"a", b"bc", b"", b"d", b"ef", b"g", b"h"], dtype=object),
            np.asfortranarray(rng.randn(7, 4)),  # not C-contiguous
            x[:, :, 1].T.copy().T]  # a transposed view


@pytest.mark.parametrize("batch", [1, 2, 3, 7, 10, 16])
@pytest.mark.parametrize("count", [0, 1, 2, 3, -1])
@pytest.mark.parametrize("drop", [False, True])
def test_batches_of_blocks_equal_stacked_elements(batch, count, drop):
    slices = dv.SlicesValue(_components(), None)
    value = slices if count == 1 else dv.RepeatValue(slices, count)
    fast = dv.BatchValue(value, batch, drop, None)
    slow = dv.BatchValue(_ElementsOnly(value), batch, drop, None)
    assert value.blocks() is not None
    if count == -1:
        got = [next(it) for it in [fast.iterate()] for _ in range(9)]
        want = [next(it) for it in [slow.iterate()] for _ in range(9)]
        _same(got, want)
    else:
        _same(_batches(fast), _batches(slow))


def test_blocks_of_an_empty_slices_dataset():
    slices = dv.SlicesValue([np.zeros([0, 2], np.float32)], None)
    for value in (slices, dv.RepeatValue(slices, -1), dv.RepeatValue(slices, 3)):
        assert _batches(dv.BatchValue(value, 4, False, None)) == []


def test_batches_are_copies_of_the_dataset_arrays():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    out = _batches(dv.BatchValue(dv.SlicesValue([x], None), 6, False, None))
    assert not np.shares_memory(out[0][0], x)


def test_other_inputs_have_no_blocks():
    slices = dv.SlicesValue([np.arange(4)], None)
    assert dv.TakeValue(slices, 2).blocks() is None
    assert dv.RepeatValue(dv.TakeValue(slices, 2), 2).blocks() is None
    assert dv.RangeValue(0, 3, 1, np.int64, None).blocks() is None


def test_session_batches_across_epochs():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.array([b"a", b"b", b"c", b"d", b"e"], dtype=object)
    it = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat(2).batch(4) \
        .make_one_shot_iterator()
    feats, labels = it.get_next()
    with tf.Session() as sess:
        got = []
        while True:
            try:
                got.append(sess.run([feats["x"], labels]))
            except tf.errors.OutOfRangeError:
                break
    order = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]
    assert [len(b[1]) for b in got] == [4, 4, 2]
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), x[order])
    assert [v for b in got for v in b[1].tolist()] == [y[i] for i in order]
