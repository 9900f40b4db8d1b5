"""Function inlining on GraphDefs (Grappler's function optimizer, TF's
tf_optimizer.OptimizeGraph): the inlined graph's nodes and edges as TF 1.15 makes them
(recorded by tests/data/record_grappler_inline.py), the same values before and after, and
freezing an inlined graph (TF's graph_util_test.testWithInlinedFunctions)."""

import json
import os
import re
import sys

import pytest

import flowloom as tf
from flowloom.graph_function import defun as function
from flowloom.proto import config_pb2, meta_graph_pb2
from flowloom.runtime import grappler
from flowloom.runtime.rewrite_inline import inline_functions

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "data"))
import grappler_inline_programs as programs  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "data",
                       "grappler_inline_tf1.json")) as f:
    RECORD = json.load(f)

MODULES = (grappler, meta_graph_pb2, config_pb2, tf.train.export_meta_graph)
_FUNCTIONS = re.compile(r"\b(f2|inner|outer|kept_call|twice|plus_one)_[A-Za-z0-9]+")


def _normal(name):
    """A node name without what differs between TF's Defun and flowloom's by construction:
    the hash suffix of a function's name, and the `_0` TF 1.15's Defun appends to the name
    of a body node that is also a result name."""
    control = name.startswith("^")
    name = _FUNCTIONS.sub(r"\1", name.lstrip("^"))
    if not name.startswith("Func/") and "/" in name:
        name = re.sub(r"_0$", "", name)
    return ("^" if control else "") + name


def _normal_summary(summary):
    return {"nodes": {_normal(k): [op if not _FUNCTIONS.match(op) else _normal(op),
                                   sorted(_normal(i) for i in inputs)]
                      for k, (op, inputs) in summary["nodes"].items()},
            "functions": sorted(_normal(f) for f in summary["functions"])}


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_inlined_graph_as_tf(name):
    expected = RECORD["programs"][name]
    with tf.Graph().as_default():
        fetch, feeds, evaluate = programs.PROGRAMS[name](tf, function)
        with tf.Session() as sess:
            before = [float(v) for v in sess.run(evaluate, feeds)]
        inlined = programs.inline(tf, function, *MODULES, fetch)
    with tf.Graph().as_default():
        tf.import_graph_def(inlined, name="")
        with tf.Session() as sess:
            after = [float(v) for v in sess.run(evaluate, feeds)]
    assert before == after == expected["values"]
    got = _normal_summary(programs.summary(inlined))
    want = _normal_summary(expected)
    assert got == want


def test_freeze_inlined_graph_as_tf():
    ops, value = programs.freeze(tf, function, *MODULES, tf.graph_util)
    assert ops == RECORD["freeze"]["ops"]
    assert value == RECORD["freeze"]["value"]


def test_pass_leaves_its_input_and_recursion_alone():
    with tf.Graph().as_default():
        programs.control_edges(tf, function)
        graph_def = tf.get_default_graph().as_graph_def()
    copy = graph_def.SerializeToString()
    out, count = inline_functions(graph_def, keep=["kept"])
    assert count == 2 and graph_def.SerializeToString() == copy
    assert not out.library.function
    again, count = inline_functions(out)
    assert count == 0 and again == out


def test_optimizers_flowloom_has_no_graphdef_form_of_raise():
    with tf.Graph().as_default():
        programs.control_edges(tf, function)
        meta_graph = tf.train.export_meta_graph()
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.optimizers.extend(["function", "constfold"])
    with pytest.raises(NotImplementedError, match="constfold"):
        grappler.OptimizeGraph(config, meta_graph)
    with pytest.raises(TypeError, match="ConfigProto"):
        grappler.OptimizeGraph(None, meta_graph)
    # the default set inlines; function_optimization OFF leaves the calls
    default = grappler.OptimizeGraph(config_pb2.ConfigProto(), meta_graph)
    assert not default.library.function
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.function_optimization = 2  # OFF
    assert len(grappler.OptimizeGraph(config, meta_graph).library.function) == 1
