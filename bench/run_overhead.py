"""Per-call cost of `Session.run` on the seed graph (single device, no control flow).

  python3 bench/run_overhead.py
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import flowloom as tf  # noqa: E402


def main(n=20000):
    tf.reset_default_graph()
    x = tf.Variable(0.0)
    x_plus_1 = tf.assign_add(x, 1)
    with tf.control_dependencies([x_plus_1]):
        y = tf.identity(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(1000):
            sess.run(y)
        best = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n // 5):
                sess.run(y)
            best.append((time.perf_counter() - t0) / (n // 5))
    print(f"sess.run(y) of the seed graph: {min(best) * 1e6:.1f} us per call (best of 5)")


if __name__ == "__main__":
    main()
