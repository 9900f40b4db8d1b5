"""Records what TF 1.15 gives for tests/ops/test_complex_ops.py: run it with TF 1.15's Python
($FLOWLOOM_TF1_PYTHON tests/data/record_complex_ops.py) and compare with the test's TF_* values."""

import tensorflow as tf

x = tf.constant([1 + 2j, -3 + 0.5j], tf.complex64)
r = tf.constant([-1.0, 2.0])
ops = [tf.complex(r, r), tf.real(x), tf.imag(x), tf.angle(x), tf.abs(x), tf.real(r), tf.imag(r),
       tf.angle(r)]
print("types", [o.op.type for o in ops], [o.dtype.name for o in ops])
g = tf.gradients(tf.reduce_sum(tf.abs(x) * 2 + tf.angle(x) + tf.real(x) * 3 + tf.imag(x)), x)
a = tf.constant([1.0, 2.0])
b = tf.constant([[3.0], [4.0]])
g2 = tf.gradients(tf.reduce_sum(tf.abs(tf.complex(a, b))), [a, b])
with tf.Session() as sess:
    print("values", sess.run(ops))
    print("grads", sess.run(g), sess.run(g2))
for args in [(tf.constant(1.0), tf.constant(1.0, tf.float64)), (tf.constant(1), tf.constant(1))]:
    try:
        tf.complex(*args)
    except TypeError as e:
        print("error", e)
