"""StepCounterHook's "global step has not been increased" warning, run on TF 1.15
(record_step_counter_warning.py) and flowloom (tests/train/test_step_counter_warning.py), each
in a fresh process: two hooks, one after the other, on a train op that leaves the step alone.
Prints a JSON list: per run, how many of those warnings were logged so far."""

import json
import logging


def main(tf, hooked_session):
    seen = []

    class Count(logging.Handler):
        def emit(self, record):
            if "has not been increased" in record.getMessage():
                seen.append(record.levelname)

    tf.get_logger().addHandler(Count())
    counts = []
    with tf.Graph().as_default(), tf.Session() as sess:
        step = tf.train.get_or_create_global_step()
        keep = tf.assign_add(step, 0)
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            hook = tf.train.StepCounterHook(every_n_steps=1, every_n_secs=None)
            hook.begin()
            mon = hooked_session(sess, [hook])
            for _ in range(4):
                mon.run(keep)
                counts.append(len(seen))
            hook.end(sess)
    print(json.dumps({"counts": counts, "levels": sorted(set(seen))}))
