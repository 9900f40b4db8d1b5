"""Saver.save into folders that do not exist (recorded by record_saver_dirs.py, checked by
tests/train/test_saver_dirs.py): TF creates one missing level for an unsharded save."""

import os

PATHS = ("a/model.ckpt", "{abs}/b/model.ckpt", "c/sub/model.ckpt", "{abs}/d/sub/m", "e/model",
         "f/g/")


def observe(tf, workdir):
    """What each save gives: the prefix and the folder's files, or the error class."""
    out = {}
    for sharded in (False, True):
        tf.reset_default_graph()
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver(sharded=sharded)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for pattern in PATHS:
                rel = f"{'s' if sharded else 'u'}_{pattern}"
                path = os.path.join(workdir, rel.replace("{abs}/", "")) if "{abs}" in rel \
                    else rel
                key = f"sharded={sharded} {rel}"
                try:
                    prefix = saver.save(sess, path, global_step=1 if pattern == "e/model" else None)
                    out[key] = {"prefix": prefix.replace(workdir, "{abs}"),
                                "files": sorted(os.listdir(os.path.dirname(path) or "."))}
                except Exception as e:  # the class is what is compared
                    out[key] = {"error": type(e).__name__}
    return out
