"""One program run on TF 1.15 (record_layers_bn.py) and on flowloom
(tests/layers/test_layers_bn_base.py): tf.layers.BatchNormalization over one and several axes,
fused (with and without Bessel's correction of the moving variance), renorm, ghost batches and
an adjustment, each trained a few steps then run in inference; tf.layers.Layer's names,
conditional updates and losses, activity regularizer, count_params and compute_output_shape."""

import numpy as np


def _data(*shape):
    return ((np.arange(np.prod(shape), dtype=np.float32) * 13 % 17) / 5.0 - 1.2).reshape(shape)


def _bn_case(tf, x_value, steps=3, **kwargs):
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, x_value.shape)
        training = tf.placeholder_with_default(True, [])
        bessel = kwargs.pop("bessel", True)
        layer = tf.layers.BatchNormalization(**kwargs)
        if not bessel:
            layer._bessels_correction_test_only = False
        y = layer.apply(x, training=training) * tf.Variable(1.0, name="w")
        loss = tf.reduce_sum(y * tf.constant(_data(*x_value.shape)))
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(updates):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(steps):
                s.run(train, {x: x_value})
            out = s.run(y, {x: x_value, training: False})
            names = sorted(v.op.name for v in tf.global_variables())
            values = {v.op.name: np.round(s.run(v).astype(np.float64), 4).tolist()
                      for v in tf.global_variables()}
        return {"y": np.round(out.astype(np.float64), 4).tolist(), "vars": values,
                "names": names, "n_updates": len(updates), "fused": bool(layer.fused)}


def _layer_facts(tf):
    out = {}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        d1, d2 = tf.layers.Dense(2), tf.layers.Dense(2)
        d1.apply(x)
        d2.apply(x)
        out["dense_names"] = [d1.name, d2.name, d1.scope_name, d2.scope_name]
        out["count_params"] = d1.count_params()
        out["dense_out_shape"] = d1.compute_output_shape((None, 4, 3)).as_list()
        out["flatten_shape"] = tf.layers.Flatten()(
            tf.placeholder(tf.float32, (5, None, 2))).shape.as_list()
        act = tf.layers.Dense(2, activity_regularizer=tf.reduce_sum, name="act")
        act.apply(x)
        out["activity_losses"] = [len(act.get_losses_for(None)), len(act.get_losses_for(x)),
                                  len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))]
        bn = tf.layers.BatchNormalization()
        y = bn.apply(tf.placeholder(tf.float32, (None, 4)), training=True)
        out["bn_updates"] = [len(bn.updates), len(bn.get_updates_for(None)),
                             len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
                             y.shape.as_list()]
    return out


def program(tf):
    r = {}
    x2 = _data(6, 4)
    x4 = _data(4, 3, 2, 5)
    r["axis_last"] = _bn_case(tf, x2)
    r["axis1_3d"] = _bn_case(tf, _data(4, 3, 2), axis=1)
    r["multi_axis"] = _bn_case(tf, _data(4, 3, 2, 2), axis=[1, 2])
    r["fused_nhwc"] = _bn_case(tf, x4)
    r["fused_bessel_off"] = _bn_case(tf, x4, axis=3, bessel=False)
    r["renorm"] = _bn_case(tf, x2, renorm=True, renorm_clipping={"rmax": 1.5, "dmax": 0.5},
                           renorm_momentum=0.9, momentum=0.8)
    r["ghost"] = _bn_case(tf, x2, virtual_batch_size=3, momentum=0.5)
    r["adjustment"] = _bn_case(tf, x2, adjustment=lambda shape: (
        tf.fill(shape[-1:], 1.5), tf.fill(shape[-1:], -0.25)))
    r["no_scale_center"] = _bn_case(tf, x4, scale=False, center=False, fused=False)
    r["facts"] = _layer_facts(tf)
    return r
