"""Per-thread graph-construction state, as TF 1.15 keeps it (checked with TF 1.15.5): each
thread has its own global default graph, and a cond/while_loop being built in one thread does
not take in the ops another thread builds into the same graph meanwhile."""

import threading

import flowloom as tf


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_each_thread_has_its_own_global_default_graph():
    main = tf.get_default_graph()
    other = _in_thread(tf.get_default_graph)
    assert other is not main and isinstance(other, tf.Graph)
    with main.as_default():  # an explicit default is seen only by its own thread
        assert _in_thread(tf.get_default_graph) is not main
    assert tf.get_default_graph() is main


def test_reset_default_graph_resets_only_this_thread():
    def reset_in_thread():
        g = tf.get_default_graph()
        tf.reset_default_graph()
        return g is not tf.get_default_graph()

    main = tf.get_default_graph()
    assert _in_thread(reset_in_thread)
    assert tf.get_default_graph() is main


def test_while_loop_context_is_per_thread():
    g = tf.Graph()
    entered, go_on = threading.Event(), threading.Event()
    built = {}

    def body(x):
        entered.set()
        go_on.wait(10)  # another thread builds while this loop's context is current
        return x + 1

    def loop():
        with g.as_default():
            built["loop"] = tf.while_loop(lambda x: x < 10, body, [tf.constant(0)])

    t = threading.Thread(target=loop)
    t.start()
    assert entered.wait(10)
    with g.as_default():
        outside = tf.constant(1.0, name="outside") * 2.0
    go_on.set()
    t.join()
    assert outside.op._control_flow_context is None
    assert "while" not in outside.op.name
    with tf.Session(graph=g) as sess:
        assert sess.run([built["loop"], outside]) == [10, 2.0]


def test_init_scope_puts_the_default_graph_on_an_empty_graph_stack():
    from flowloom.framework import graph as graph_lib

    stack = graph_lib._default_graph_stack.stack
    assert stack == []
    with tf.init_scope():
        assert stack == [tf.get_default_graph()]  # as TF's init_scope
    assert stack == []
