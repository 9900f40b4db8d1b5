"""Inputs of the incomplete-gamma, zeta, polygamma and incomplete-beta cases (tests/ops/test_gamma_ops.py),
run by flowloom and by TF 1.15 (tests/data/record_gamma_ops.py writes gamma_ops_tf1.json).
Only `tf` (either library's module) and `gen` (its gen_math_ops, for igamma_grad_a) are used."""

import numpy as np


def inputs():
    rs = np.random.RandomState(0)
    a = np.concatenate([rs.uniform(0.01, 50, 300), [0.5, 1, 2, 0, -1, 3, np.nan, 1, 1e-3, 100,
                                                     1000, 0.1, 30]])
    x = np.concatenate([rs.uniform(0, 80, 300), [0, 0, 3, 1, 1, -1, 1, np.inf, 1e-3, 120, 1010,
                                                  1e-6, 29]])
    zeta_x = np.array([1, 0.5, 2, 2, 3, 2, 4, 1.5, 10, 30, 2.5, 2])
    zeta_q = np.array([1, 1, 0, -1, -2.5, -2.5, 0.3, 7, 0.1, 2, 1e-3, 1e5])
    poly_n = np.array([0, 1, 2, 3, -1, 1.5, 4, 10, 0, 2, 1])
    poly_x = np.array([0.5, 0.5, 3, 1e-2, 1, 1, 20, 0.3, -1.5, -1.5, 1e4])
    return a, x, zeta_x, zeta_q, poly_n, poly_x


def beta_inputs():
    rs = np.random.RandomState(1)
    a = np.concatenate([rs.uniform(0.01, 30, 200), [1, 0.5, 2, 0, 1, 1, np.nan, 1e3, 5]])
    b = np.concatenate([rs.uniform(0.01, 30, 200), [1, 0.5, 3, 1, -1, 2, 1, 1e3, 1e-3]])
    x = np.concatenate([rs.uniform(0, 1, 200), [0.3, 0.99, 0, 0.5, 0.5, 1.5, 0.5, 0.5, 0.9]])
    return a, b, x


def run(tf, gen):
    """{name: float64 values} of every case."""
    a, x, zx, zq, pn, px = inputs()
    ga, gx = tf.constant(a[:60]), tf.constant(x[:60])
    fetches = {
        "igamma": tf.igamma(a, x), "igammac": tf.igammac(a, x),
        "igamma_grad_a": gen.igamma_grad_a(a, x), "zeta": tf.zeta(zx, zq),
        "polygamma": tf.polygamma(pn, px),
        "d_igamma": tf.gradients(tf.igamma(ga, gx), [ga, gx]),
        "d_igammac": tf.gradients(tf.igammac(ga, gx), [ga, gx]),
    }
    zc_x, zc_q = tf.constant(zx[6:]), tf.constant(zq[6:])
    pc_n, pc_x = tf.constant(pn[6:8]), tf.constant(px[6:8])
    fetches["d_zeta"] = tf.gradients(tf.zeta(zc_x, zc_q), [zc_q])
    fetches["d_polygamma"] = tf.gradients(tf.polygamma(pc_n, pc_x), [pc_x])
    ba, bb, bx = beta_inputs()
    fetches["betainc"] = tf.betainc(ba, bb, bx)
    bxc = tf.constant(bx[:40])
    fetches["d_betainc"] = tf.gradients(tf.betainc(ba[:40], bb[:40], bxc), [bxc])
    with tf.Session() as sess:
        out = sess.run(fetches)
    return {k: np.asarray(v, np.float64).tolist() for k, v in out.items()}
