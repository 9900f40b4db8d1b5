"""parallel_interleave's order and argument checks, and tf.contrib.data's names (recorded by
record_interleave.py from TF 1.15, checked by tests/input_data/test_parallel_interleave.py).
With sloppy=True TF may yield in any order: the sorted elements are compared."""

import numpy as np

LENGTHS = [3, 0, 5, 1, 0, 4, 2, 2, 6, 1]


def _values(tf, ds):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(np.asarray(sess.run(nxt)).tolist())
        except tf.errors.OutOfRangeError:
            return out
        except Exception as e:  # noqa: BLE001 - the outcome is recorded
            msg = (getattr(e, "message", None) or str(e)).split("\n")[0]
            return out + [type(e).__name__ + ": " + msg.replace("[_Derived_]", "")]


def _interleave(tf, module, sloppy, **kwargs):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.array(LENGTHS, np.int64)).apply(
            module.parallel_interleave(lambda x: tf.data.Dataset.range(x * 10, x * 11),
                                       sloppy=sloppy, **kwargs))
        values = _values(tf, ds)
    return sorted(map(str, values)) if sloppy else values


def observe(tf, module):
    """`module` is tf.data.experimental or tf.contrib.data."""
    out = {}
    for cycle in (1, 2, 4):
        for block in (1, 3):
            for prefetch in (None, 0, 3):
                for buffer in (None, 1):
                    for sloppy in (False, True):
                        key = f"cycle={cycle} block={block} prefetch={prefetch} " \
                              f"buffer={buffer} sloppy={sloppy}"
                        out[key] = _interleave(
                            tf, module, sloppy, cycle_length=cycle, block_length=block,
                            prefetch_input_elements=prefetch, buffer_output_elements=buffer)
    for kwargs in (dict(cycle_length=0), dict(cycle_length=2, block_length=0),
                   dict(cycle_length=2, buffer_output_elements=0),
                   dict(cycle_length=2, prefetch_input_elements=-1)):
        out[f"error {sorted(kwargs.items())}"] = _interleave(tf, module, False, **kwargs)
    return out


def observe_contrib(tf):
    """tf.contrib.data's own names."""
    out = {}
    data = tf.contrib.data
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.array(LENGTHS, np.int64)).apply(
            data.sloppy_interleave(lambda x: tf.data.Dataset.range(x), 3))
        out["sloppy_interleave"] = sorted(_values(tf, ds))
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).apply(data.batch_and_drop_remainder(3))
        out["batch_and_drop_remainder"] = [str(ds.output_shapes), _values(tf, ds)]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).apply(
            data.padded_batch_and_drop_remainder(2, [None]))
        out["padded_batch_and_drop_remainder"] = [str(ds.output_shapes), _values(tf, ds)]
    return out
