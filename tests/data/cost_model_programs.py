"""GraphOptions.build_cost_model: which runs report RunMetadata.cost_graph, run on TF 1.15
(record_cost_model.py) and flowloom (tests/runtime/test_cost_model.py)."""


def program(tf):
    r = {}
    for every, after in ((1, 0), (3, 1), (2, 5), (0, 0)):
        for with_options in (True, False):
            config = tf.ConfigProto(graph_options=tf.GraphOptions(
                build_cost_model=every, build_cost_model_after=after))
            with tf.Graph().as_default(), tf.Session(config=config) as sess:
                a = tf.placeholder(tf.float32, shape=[])
                d = tf.multiply(tf.identity(a + 1.0), 2.0)
                other = a - 1.0
                runs = []
                for step in range(8):
                    meta = tf.RunMetadata()
                    # A second signature between the runs has its own count.
                    sess.run(other, feed_dict={a: 1.0})
                    sess.run(d, feed_dict={a: 1.0}, run_metadata=meta,
                             options=tf.RunOptions() if with_options else None)
                    runs.append([meta.HasField("cost_graph"), meta.HasField("step_stats")])
                r[f"every_{every}_after_{after}_options_{with_options}"] = runs
    return r
