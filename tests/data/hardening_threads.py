"""Graph construction from two threads, step by step (events make the interleaving exact).

Each `threads_*` takes the TF1 module and returns what it observed; record_hardening.py
stores TensorFlow's answers in hardening_tf.json, tests/framework/test_graph_threads.py
compares flowloom's.
"""

import threading


def _interleave(first, second):
    """Runs first(pause) in a thread until it calls pause(), then second() in another thread,
    then lets the first one finish. Returns (first's result, second's result)."""
    paused, resume = threading.Event(), threading.Event()
    out = {}

    def pause():
        paused.set()
        resume.wait(10)

    def run(key, fn, *args):
        try:
            out[key] = fn(*args)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[key] = {"error": type(e).__name__}
        paused.set()

    a = threading.Thread(target=run, args=("first", first, pause))
    a.start()
    paused.wait(10)
    b = threading.Thread(target=run, args=("second", second))
    b.start()
    b.join(10)
    resume.set()
    a.join(10)
    return out.get("first"), out.get("second")


def _stacks_seen(tf, switch):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
    if switch:
        g.switch_to_thread_local()

    def first(pause):
        with g.as_default(), tf.name_scope("outer"), tf.control_dependencies([a]), \
                tf.device("/cpu:0"), g.colocate_with(a):
            x = tf.constant(2.0, name="x")
            pause()
            return [x.op.name, [c.name for c in x.op.control_inputs], x.op.device]

    def second():
        with g.as_default():
            y = tf.constant(3.0, name="y")
            return [y.op.name, [c.name for c in y.op.control_inputs], y.op.device,
                    [c.decode() if isinstance(c, bytes) else c for c in y.op.colocation_groups()]]

    return list(_interleave(first, second))


def threads_shared_stacks(tf):
    return _stacks_seen(tf, switch=False)


def threads_thread_local_stacks(tf):
    return _stacks_seen(tf, switch=True)


def threads_name_scope_counts(tf):
    g = tf.Graph()

    def first(pause):
        with g.as_default(), tf.name_scope("s"):
            names = [tf.constant(0.0).op.name]
            pause()
            names.append(tf.constant(0.0).op.name)
            return names

    def second():
        with g.as_default(), tf.name_scope("s"):
            return [tf.constant(0.0).op.name]

    return list(_interleave(first, second))


def threads_variable_scope_nested(tf):
    """TF's VariableScopeMultithreadedTest.testTwoThreadsNestedScopeEntry, as a program."""
    g = tf.Graph()

    def first(pause):
        with g.as_default(), tf.variable_scope("foo"):
            v = tf.get_variable("v", [])
            pause()
            return [v.name, tf.get_variable_scope().name]

    def second():
        with g.as_default(), tf.variable_scope("foo"):
            try:
                tf.get_variable("v", [])
                return "created"
            except ValueError:
                return ["ValueError", tf.get_variable_scope().name]

    return list(_interleave(first, second))


def threads_variable_scope_reenter_main(tf):
    """TF's testReenterMainScope: a thread re-enters the main thread's scope object."""
    g = tf.Graph()
    out = []
    with g.as_default(), tf.variable_scope("main") as main_scope:
        def body():
            with g.as_default():
                with tf.variable_scope(main_scope):
                    with tf.variable_scope("foo"):
                        out.append(tf.get_variable("v", []).name)
                with tf.variable_scope("bar"):
                    out.append(tf.get_variable("v", []).name)
        t = threading.Thread(target=body)
        t.start()
        t.join(10)
    return out


CASES = sorted((name, fn) for name, fn in globals().items() if name.startswith("threads_"))
