"""Small checks of tf.contrib behaviour (errors, initializer statistics, names), written
against the module `tf` they are given: recorded under TF 1.15 by tests/data/record_contrib.py,
compared under flowloom by the tests. Each case returns (facts, arrays): JSON-able facts and
named arrays. Python 3.7 syntax."""

import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is recorded
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def errors_case(tf):
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [None, 3])
    facts = {
        "fc_float_outputs": _error(lambda: layers.fully_connected(x, 2.0)),
        "l2_int_scale": _error(lambda: layers.l2_regularizer(1)),
        "l1_negative": _error(lambda: layers.l1_regularizer(-0.5)),
        "l2_zero": layers.l2_regularizer(0.0)(x) is None,
        "xavier_int": _error(lambda: layers.xavier_initializer(dtype=tf.int32)),
        "vs_mode": _error(lambda: layers.variance_scaling_initializer(mode="FAN_X")),
        "restore_include": _error(
            lambda: tf.contrib.framework.get_variables_to_restore(include="a")),
        "arg_scope_type": _error(lambda: tf.contrib.framework.arg_scope("x")),
        "apply_no_weights": _error(lambda: layers.apply_regularization(
            layers.l2_regularizer(0.1))),
        "pool_format": _error(lambda: layers.max_pool2d(
            tf.zeros([1, 4, 4, 1]), 2, data_format="NWC")),
        "flatten_unknown_rank": _error(lambda: layers.flatten(tf.placeholder(tf.float32))),
    }
    return facts, {}


def initializers_case(tf):
    """Statistics of the contrib initializers (moments over many draws) and their op names."""
    layers = tf.contrib.layers
    facts, arrays = {}, {}
    specs = {
        "xavier_uniform": (layers.xavier_initializer(seed=3), [300, 200]),
        "xavier_normal": (layers.xavier_initializer(uniform=False, seed=3), [300, 200]),
        "xavier_conv": (layers.xavier_initializer_conv2d(seed=4), [3, 3, 40, 50]),
        "he": (layers.variance_scaling_initializer(seed=5), [400, 100]),
        "fan_out_uniform": (layers.variance_scaling_initializer(
            factor=1.5, mode="FAN_OUT", uniform=True, seed=6), [5, 5, 20, 30]),
        "scalar": (layers.variance_scaling_initializer(seed=7), [1000]),
    }
    tensors = {}
    for name, (init, shape) in specs.items():
        with tf.name_scope(name):
            tensors[name] = init(shape)
    facts["ops"] = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        got = sess.run(tensors)
    for name, v in got.items():
        arrays[name + "/moments"] = np.array([v.min(), v.max(), v.mean(), v.std()])
    return facts, arrays


def names_case(tf):
    """Default scopes and uniquified names of repeated layer calls."""
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [2, 4, 4, 3])
    outs = [layers.conv2d(x, 2, 1), layers.conv2d(x, 2, 1), layers.max_pool2d(x, 2),
            layers.max_pool2d(x, 2), layers.flatten(x), layers.flatten(x, scope="f"),
            layers.avg_pool2d(x, 2), layers.batch_norm(x), layers.batch_norm(x),
            layers.dropout(x), layers.layer_norm(x), layers.one_hot_encoding([1, 2], 3),
            layers.fully_connected(x, 3), layers.fully_connected(x, 3)]
    step = tf.contrib.framework.get_or_create_global_step()
    step2 = tf.train.get_or_create_global_step()
    facts = {"outputs": [[t.name, t.shape.as_list()] for t in outs],
             "step": [step.name, step2 is step, step.dtype.name],
             "variables": [v.op.name for v in tf.global_variables()],
             "model_variables": [v.op.name for v in tf.model_variables()]}
    return facts, {}


def framework_case(tf):
    """Variable helpers of tf.contrib.framework: collections, lookups, restore lists."""
    fw = tf.contrib.framework
    with tf.variable_scope("net"):
        a = fw.model_variable("a", shape=[2], initializer=tf.zeros_initializer())
        b = fw.variable("b", shape=[3], collections=["extra"], trainable=False)
        with tf.variable_scope("head"):
            c = fw.model_variable("c", shape=[1, 2], collections=["extra"])
            w = fw.model_variable("weights", shape=[2])
    with tf.variable_scope("aux"):
        d = fw.variable("weights", shape=[4])
        e = fw.local_variable(tf.constant([1.0, 2.0]), name="e")
    g = fw.global_variable(tf.constant(3.0), name="g")
    names = lambda vs: [v.op.name for v in vs]  # noqa: E731
    facts = {
        "global": names(tf.global_variables()),
        "model": names(fw.get_model_variables()),
        "trainable": names(fw.get_trainable_variables()),
        "local": names(fw.get_local_variables()),
        "extra": names(tf.get_collection("extra")),
        "scope_net": names(fw.get_variables("net")),
        "scope_obj": names(fw.get_variables(tf.get_variable_scope())),
        "suffix": names(fw.get_variables(suffix="weights")),
        "by_name": names(fw.get_variables_by_name("weights")),
        "by_suffix": names(fw.get_variables_by_suffix("c")),
        "unique": fw.get_unique_variable("net/head/c").op.name,
        "not_unique": _error(lambda: fw.get_unique_variable("net/a/x")),
        "missing": _error(lambda: fw.get_unique_variable("nothing")),
        "restore_all": names(fw.get_variables_to_restore()),
        "restore_ex": names(fw.get_variables_to_restore(exclude=["net/head"])),
        "restore_in": names(fw.get_variables_to_restore(include=["net", "aux"],
                                                         exclude=["net/a"])),
        "filter": names(fw.filter_variables(tf.global_variables(), include_patterns=["net"],
                                            exclude_patterns=["head/c"])),
        "filter_match": names(fw.filter_variables(tf.global_variables(),
                                                  include_patterns=["head"], reg_search=False)),
        "full_name": fw.get_variable_full_name(c),
        "dtypes": [v.dtype.name for v in (a, b, c, w, d, e, g)],
        "trainable_flags": [v in tf.trainable_variables() for v in (a, b, c, w, d, e, g)],
        "empty_fn": _error(lambda: fw.assign_from_checkpoint_fn("x", [])),
    }
    return facts, {}


def arg_scope_case(tf):
    """arg_scope nesting, re-entry and the decorated functions' metadata."""
    fw = tf.contrib.framework

    @fw.add_arg_scope
    def f(x, a=1, b=2, c=3):
        return [x, a, b, c]

    @fw.add_arg_scope
    def h(x, a=0):
        return [x, a]

    out = {}
    with fw.arg_scope([f, h], a=10):
        out["outer"] = f(0) + h(0)
        with fw.arg_scope([f], b=20) as sc:
            out["inner"] = f(0, c=30) + h(0, a=5)
        out["after"] = f(0)
    with fw.arg_scope(sc):
        out["reentered"] = f(0) + h(0)
    out["outside"] = f(0)
    out["has"] = [fw.has_arg_scope(f), fw.has_arg_scope(len)]
    out["arguments"] = list(fw.arg_scoped_arguments(f))
    out["name"] = f.__name__
    out["layers"] = [fw.has_arg_scope(getattr(tf.contrib.layers, n)) for n in (
        "fully_connected", "conv2d", "max_pool2d", "avg_pool2d", "flatten", "batch_norm",
        "dropout", "layer_norm", "one_hot_encoding", "bias_add", "conv2d_transpose",
        "repeat", "stack")]
    out["variables"] = [fw.has_arg_scope(fw.variable), fw.has_arg_scope(fw.model_variable)]
    try:
        with fw.arg_scope([len], a=1):
            pass
        out["undecorated"] = None
    except ValueError:
        out["undecorated"] = "ValueError"
    try:
        with fw.arg_scope(sc, a=1):
            pass
    except ValueError as e:
        out["dict_kwargs"] = str(e)
    try:
        with fw.arg_scope("x"):
            pass
    except TypeError as e:
        out["bad_type"] = str(e)
    return out, {}


def vocabulary_case(tf):
    """tf.contrib.learn.preprocessing on a few documents."""
    pre = tf.contrib.learn.preprocessing
    docs = ["The quick brown fox", "the lazy DOG jumps over the quick fox",
            "HTTPServer and XMLHttpRequest in CamelCase", "fox fox fox", "don't re-use it"]
    vp = pre.VocabularyProcessor(6)
    ids = np.array(list(vp.fit_transform(docs)))
    trimmed = pre.VocabularyProcessor(5, min_frequency=1)
    trimmed_ids = np.array(list(trimmed.fit_transform(docs)))
    facts = {"len": len(vp.vocabulary_), "trimmed_len": len(trimmed.vocabulary_),
             "reverse": list(vp.reverse(ids[:2])),
             "trimmed_reverse": list(trimmed.reverse(trimmed_ids)),
             "unseen": [list(map(int, r)) for r in vp.transform(["a quick new fox"])],
             "tokens": list(pre.tokenizer(docs)),
             "bytes_back": list(pre.ByteProcessor(8).reverse(
                 np.array(list(pre.ByteProcessor(8).transform(["abc", "longer text"])))))}
    return facts, {"ids": ids, "trimmed_ids": trimmed_ids}


def kmeans_case(tf):
    """tf.contrib.factorization.KMeans: five training steps from TF's random initial centers,
    for both distances, full and mini batch."""
    rs = np.random.RandomState(0)
    data = np.concatenate([rs.normal(0, 0.3, (20, 3)) + c
                           for c in ([0, 0, 3], [3, 0, 0], [0, 3, 0])]).astype(np.float32)
    facts, arrays = {}, {}
    for metric, mini in (("cosine", True), ("squared_euclidean", False),
                         ("squared_euclidean", True), ("cosine", False)):
        key = "%s_%s" % (metric, "mini" if mini else "full")
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, shape=[None, 3])
            graph = tf.contrib.factorization.KMeans(inputs=x, num_clusters=3,
                                                     distance_metric=metric,
                                                     use_mini_batch=mini).training_graph()
            all_scores, cluster_idx, scores, initialized, init_op, train_op = graph
            avg = tf.reduce_mean(scores[0])
            centers = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer(), {x: data})
                sess.run(init_op, {x: data})
                first = sess.run(centers)
                for _ in range(5):
                    _, d, idx = sess.run([train_op, avg, cluster_idx[0]], {x: data})
                arrays[key + "/initial"] = first
                arrays[key + "/centers"] = sess.run(centers)
                arrays[key + "/avg"] = np.array(d)
                arrays[key + "/idx"] = idx
                arrays[key + "/all_scores"] = sess.run(all_scores[0], {x: data})
                facts[key] = [len(graph), bool(sess.run(initialized))]
    return facts, arrays


CASES = {
    "kmeans": kmeans_case,
    "vocabulary": vocabulary_case,
    "framework": framework_case,
    "arg_scopes": arg_scope_case,
    "errors": errors_case,
    "initializers": initializers_case,
    "names": names_case,
}
