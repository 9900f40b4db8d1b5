"""Records real TensorFlow's optimizers, schedules and moving averages for tests/train/.

Run with "$FLOWLOOM_TF_PYTHON" tests/data/record_train.py. Each program uses `tf` and `np`
only, defines `train_op`, `fetch` (tensors/variables to record after every step) and `steps`;
the test runs the same source under flowloom. Also recorded: the names of the global
variables and of the ops under the optimizer's scope.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

# A small least-squares problem with a dense layer and an embedding lookup (sparse gradient).
PROBLEM = """
x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
target = tf.constant([[1.0], [-1.0], [0.5], [2.0]])
w = tf.Variable(np.array([[0.1], [-0.2], [0.3]], dtype=np.float32), name='w')
b = tf.Variable([0.05], name='b')
emb = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2) / 10.0, name='emb')
rows = tf.gather(emb, [0, 3, 3, 1])
pred = tf.matmul(x, w) + b + tf.reduce_sum(rows, axis=1, keepdims=True)
loss = tf.reduce_mean(tf.square(pred - target))
global_step = tf.train.get_or_create_global_step()
"""

OPTIMIZERS = {
    "sgd": "tf.train.GradientDescentOptimizer(0.1)",
    "momentum": "tf.train.MomentumOptimizer(0.05, 0.9)",
    "nesterov": "tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True)",
    "adam": "tf.train.AdamOptimizer(0.05)",
    "adagrad": "tf.train.AdagradOptimizer(0.2, initial_accumulator_value=0.1)",
    "rmsprop": "tf.train.RMSPropOptimizer(0.01)",
    "rmsprop_momentum_centered": "tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
    "ftrl": "tf.train.FtrlOptimizer(0.5, l1_regularization_strength=0.01, "
            "l2_regularization_strength=0.02)",
    "ftrl_v2_power": "tf.train.FtrlOptimizer(0.5, learning_rate_power=-0.7, "
                     "l1_regularization_strength=0.001, l2_shrinkage_regularization_strength=0.1, "
                     "beta=0.5)",
    "sgd_decayed": "tf.train.GradientDescentOptimizer("
                   "tf.train.exponential_decay(0.2, global_step, 3, 0.5, staircase=True))",
}

PROGRAMS = {}
for _name, _opt in OPTIMIZERS.items():
    PROGRAMS[_name] = PROBLEM + f"""
opt = {_opt}
train_op = opt.minimize(loss, global_step=global_step)
fetch = [w, b, emb, loss, global_step]
steps = 6
""" + ("record = ['graph']\n" if _name in ("adam", "momentum", "rmsprop_momentum_centered")
       else "")

PROGRAMS["compute_apply_var_list"] = PROBLEM + """
opt = tf.train.AdamOptimizer(0.1, beta1=0.8)
grads_and_vars = opt.compute_gradients(loss, var_list=[w, emb])
train_op = opt.apply_gradients(grads_and_vars, name='apply')
fetch = [w, b, emb, opt.get_slot(w, 'm'), opt.get_slot(emb, 'v')]
steps = 4
"""

PROGRAMS["schedules"] = """
step = tf.Variable(0, dtype=tf.int64, name='step')
train_op = tf.assign_add(step, 1)
fetch = [tf.train.exponential_decay(0.1, step, 4, 0.5),
         tf.train.exponential_decay(0.1, step, 4, 0.5, staircase=True),
         tf.train.inverse_time_decay(0.1, step, 2, 0.5),
         tf.train.inverse_time_decay(0.1, step, 2, 0.5, staircase=True),
         tf.train.polynomial_decay(0.1, step, 5, 0.01, power=2.0),
         tf.train.polynomial_decay(0.1, step, 3, 0.01, cycle=True),
         tf.train.piecewise_constant(step, [2, 5], [1.0, 0.5, 0.1]),
         tf.train.natural_exp_decay(0.1, step, 3, 0.5, staircase=True),
         tf.train.cosine_decay(0.1, step, 6, alpha=0.1),
         tf.train.cosine_decay_restarts(0.1, step, 2),
         tf.train.cosine_decay_restarts(0.1, step, 2, t_mul=1.0, m_mul=0.5),
         tf.train.linear_cosine_decay(0.1, step, 7, num_periods=1.5)]
steps = 8
"""

PROGRAMS["ema"] = """
v = tf.Variable([1.0, 2.0], name='v')
u = tf.Variable(3.0, name='u')
step = tf.Variable(0, dtype=tf.int32, name='step')
update = tf.group(tf.assign_add(v, [1.0, -1.0]), tf.assign_add(step, 1))
ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
ema2 = tf.train.ExponentialMovingAverage(0.5, name='avg')
with tf.control_dependencies([update]):
    train_op = tf.group(ema.apply([v, u]), ema2.apply([v]))
fetch = [v, ema.average(v), ema.average(u), ema2.average(v)]
names = [ema.average_name(v), ema.average(v).name, ema2.average_name(v),
         sorted(ema.variables_to_restore())]
steps = 4
"""

PROGRAMS["ema_zero_debias_tensor"] = """
v = tf.Variable([1.0, 2.0], name='v')
with tf.control_dependencies([tf.assign_add(v, [0.5, -0.25])]):
    t = tf.identity(v) * 2.0
ema = tf.train.ExponentialMovingAverage(0.8, zero_debias=True)
train_op = ema.apply([t])
fetch = [v, ema.average(t)]
names = [ema.average(t).name, ema.average_name(t)]
steps = 4
"""


def record(source):
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf, "np": np}
        exec(source, scope)  # noqa: S102 - our own recorded programs
        listing = graph_listing(g) if "graph" in scope.get("record", ()) else None
        trajectory = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(scope["steps"]):
                sess.run(scope["train_op"])
                trajectory.append([np.asarray(v).tolist() for v in sess.run(scope["fetch"])])
        return {
            "source": source,
            "trajectory": trajectory,
            "variables": [v.name for v in tf.global_variables()],
            "train_op": scope["train_op"].name,
            "ops": sorted(op.name + ":" + op.type for op in g.get_operations()
                          if "/update_" in op.name),
            "names": scope.get("names"),
            "graph": listing,
        }


def graph_listing(g):
    """Every op as [name, type, data inputs] (control inputs left out)."""
    return [[op.name, op.type, [t.name for t in op.inputs]] for op in g.get_operations()]


def main():
    out = {name: record(src) for name, src in PROGRAMS.items()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_tf.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
