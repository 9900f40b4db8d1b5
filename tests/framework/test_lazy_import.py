"""`import flowloom` loads namespaces and op families when first used (flowloom/lazy_names.py,
flowloom/framework/lazy_registry.py). Each check runs in a fresh process: what a process has
imported is the thing under test."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RECORDED = os.path.join(ROOT, "tests", "data", "public_names.json")

# Modules `import flowloom` must not load: they load when a program uses them.
HEAVY = ["numpy", "google.protobuf", "flowloom.proto.graph_pb2", "flowloom.framework.graph",
         "flowloom.runtime.session", "flowloom.ops.math.math_ops", "flowloom.ops.nn.nn_ops",
         "flowloom.train", "flowloom.summary", "flowloom.io.events", "flowloom.estimator",
         "flowloom.distributed", "flowloom.contrib", "flowloom.data", "flowloom.layers",
         "flowloom.feature_column", "flowloom.saved_model", "flowloom.ops.image", "PIL",
         "absl", "re2", "google_crc32c", "concurrent.futures"]
# Nor may a small graph built and run in a session (the first lines of most programs).
HEAVY_AFTER_RUN = ["flowloom.estimator", "flowloom.distributed", "flowloom.contrib",
                   "flowloom.feature_column", "flowloom.saved_model", "flowloom.io.events",
                   "flowloom.summary", "flowloom.ops.image", "PIL", "flowloom.train"]


def run_python(code, **env):
    full_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    full_env.pop("FLOWLOOM_EAGER_IMPORT", None)
    full_env.update(env)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env=full_env, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-4000:]
    return p.stdout


def loaded_after(code, names):
    out = run_python(textwrap.dedent(code) + "\nimport sys, json\n"
                     "print(json.dumps(sorted(sys.modules)))\n")
    modules = set(json.loads(out.splitlines()[-1]))
    return [n for n in names if n in modules]


def test_import_flowloom_loads_none_of_the_heavy_modules():
    assert loaded_after("import flowloom", HEAVY) == []


def test_a_first_graph_and_session_do_not_load_the_libraries_it_does_not_use():
    code = """
    import flowloom as tf
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(tf.ones([3, 2]))
    y = tf.nn.relu(tf.matmul(x, w) + 1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: [[1.0, 2.0, 3.0]]}).tolist() == [[7.0, 7.0]]
    """
    assert loaded_after(code, HEAVY_AFTER_RUN) == []


def test_the_registry_index_is_what_the_modules_register():
    """flowloom/framework/registry_index.py equals the registrations of a full import."""
    out = run_python("""
        import json
        from flowloom.framework import lazy_registry, registry_index
        index, failed = lazy_registry.record_everything()
        print(json.dumps([index, registry_index.INDEX, sorted(failed)]))
        """, FLOWLOOM_RECORD_REGISTRY="1")
    recorded, committed, failed = json.loads(out.splitlines()[-1])
    stale = []
    for category in sorted(set(recorded) | set(committed)):
        have, want = committed.get(category, {}), recorded.get(category, {})
        for module in sorted(set(have) | set(want)):
            if module in failed:
                continue  # an optional dependency is absent here: its entry stays as made
            if have.get(module) != want.get(module):
                stale.append(f"{category} {module}: index {have.get(module)!r}, "
                             f"modules register {want.get(module)!r}")
    assert not stale, ("registry_index.py is stale: run `python -m "
                       "flowloom.framework.lazy_registry --write`\n" + "\n".join(stale[:20]))


_DESCRIBE = """
import json, sys, types
import flowloom as tf

def describe(obj):
    if isinstance(obj, types.ModuleType):
        return "module " + getattr(obj, "__name__", "")
    target = getattr(obj, "__wrapped__", obj)
    where = getattr(target, "__module__", None), getattr(target, "__qualname__", None)
    if where[1] is None:
        return type(obj).__name__ + " " + repr(obj)[:60]
    return "%s %s:%s" % (type(obj).__name__, where[0], where[1])

before = sorted(dir(tf))
names = {n: describe(getattr(tf, n)) for n in before if not n.startswith("_")}
import pkgutil
sub, own = {}, {}
for n, d in sorted(names.items()):
    if d.startswith("module "):
        ns = getattr(tf, n)
        # the namespace package's own modules: attributes once imported, whoever imports them
        own[n] = sorted(m.name for m in pkgutil.iter_modules(getattr(ns, "__path__", [])))
        sub[n] = sorted(x for x in dir(ns) if not x.startswith("_") and x not in own[n])
print(json.dumps({"before": before, "after": sorted(dir(tf)), "names": names, "sub": sub,
                  "own": own}))
"""


@pytest.fixture(scope="module")
def lazy_and_eager():
    lazy = json.loads(run_python(_DESCRIBE).splitlines()[-1])
    eager = json.loads(run_python(_DESCRIBE, FLOWLOOM_EAGER_IMPORT="1").splitlines()[-1])
    return lazy, eager


def test_dir_lists_every_name_before_any_is_used(lazy_and_eager):
    lazy, _ = lazy_and_eager
    appeared = sorted(set(lazy["after"]) - set(lazy["before"]))
    assert [n for n in appeared if not n.startswith("_")] == []


def test_lazy_names_are_the_objects_of_the_eager_import(lazy_and_eager):
    lazy, eager = lazy_and_eager
    assert sorted(lazy["names"]) == sorted(eager["names"])
    differ = {n: (lazy["names"][n], eager["names"][n]) for n in lazy["names"]
              if lazy["names"][n] != eager["names"][n]}
    assert differ == {}
    assert lazy["sub"] == eager["sub"]
    assert lazy["own"] == eager["own"]


def test_every_recorded_public_name_is_still_there(lazy_and_eager):
    """tests/data/public_names.json: the namespace tree of the eager import it replaced."""
    lazy, _ = lazy_and_eager
    recorded = json.load(open(RECORDED))
    kinds = {"module": "module "}
    missing, changed = [], []
    for name, kind in recorded[""].items():
        if name not in lazy["names"]:
            missing.append(name)
        elif kind == "module" and not lazy["names"][name].startswith(kinds["module"]):
            changed.append(name)
    assert missing == [] and changed == []
    for namespace, members in recorded.items():
        if namespace and "." not in namespace:
            have = set(lazy["sub"].get(namespace, [])) | set(lazy["own"].get(namespace, []))
            lost = sorted(set(members) - have)
            assert lost == [], f"tf.{namespace} lost {lost}"


def test_contrib_namespaces_keep_their_names():
    recorded = json.load(open(RECORDED))
    wanted = {k.split(".", 1)[1]: v for k, v in recorded.items() if k.startswith("contrib.")}
    out = run_python("""
        import json, flowloom as tf
        print(json.dumps({n: dir(getattr(tf.contrib, n)) for n in %r}))
        """ % sorted(wanted))
    have = json.loads(out.splitlines()[-1])
    lost = {n: sorted(set(v) - set(have[n])) for n, v in wanted.items()}
    assert {n: v for n, v in lost.items() if v} == {}


def test_names_other_packages_list_for_a_namespace_are_in_it():
    """tf.* gets pipeline_names.__all__; tf.train the pipeline and distributed TRAIN_NAMES,
    the same objects as those lists give."""
    out = run_python("""
        import flowloom as tf
        from flowloom.data import pipeline_names
        from flowloom.distributed import names
        print(sorted(set(pipeline_names.__all__) - set(dir(tf))))
        wanted = dict(pipeline_names.train_names(), **names.train_names())
        print(sorted(n for n, v in wanted.items()
                     if n not in dir(tf.train) or getattr(tf.train, n) is not v))
        """)
    assert out.split("\n")[:2] == ["[]", "[]"]


def test_names_that_are_also_submodules_stay_the_public_objects():
    out = run_python("""
        import flowloom as tf
        import flowloom.variable_scope, flowloom.gradients, flowloom.explain  # noqa: F401
        print(callable(tf.variable_scope), callable(tf.gradients), callable(tf.explain),
              type(tf.variable_scope).__name__, tf.gradients.__module__)
        """)
    assert out.split() == ["True", "True", "True", "type", "flowloom.framework.gradients_impl"]


def test_op_types_and_gradients_found_by_name_before_their_family_is_imported(tmp_path):
    """A GraphDef names Conv2D, MaxPool, Switch, Merge: import_graph_def finds their families,
    and tf.gradients the control-flow gradients, which live in a module of their own."""
    path = str(tmp_path / "graph.pb")
    run_python(f"""
        import flowloom as tf
        x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
        c = tf.nn.conv2d(x, tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "VALID")
        p = tf.nn.max_pool(c, [1, 3, 3, 1], [1, 1, 1, 1], "VALID")
        y = tf.cond(tf.reduce_sum(p) > 0, lambda: p * 3.0, lambda: p * p)
        tf.identity(y, name="y")
        tf.train.write_graph(tf.get_default_graph().as_graph_def(), {str(tmp_path)!r},
                             "graph.pb", as_text=False)
        """)
    out = run_python(f"""
        import sys
        import numpy as np
        import flowloom as tf
        for family in ("flowloom.ops.nn.nn_ops", "flowloom.ops.control_flow.control_flow_ops",
                       "flowloom.ops.control_flow.control_flow_grad"):
            assert family not in sys.modules, family
        g = tf.GraphDef()
        g.ParseFromString(open({path!r}, "rb").read())
        x, y = tf.import_graph_def(g, return_elements=["x:0", "y:0"], name="")
        grad, = tf.gradients(tf.reduce_sum(y), x)
        with tf.Session() as s:
            v, gv = s.run([y, grad], {{x: np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)}})
        print(v.ravel().tolist(), gv.ravel().tolist())
        """)
    value, grad = out.strip().split("] [")
    # conv: sums of 2x2 windows of arange(16) (10 ... 50); pool: their max, 50; cond: 3 * 50.
    assert value == "[150.0"
    grad = [float(g) for g in grad.rstrip("]").split(", ")]
    assert grad == [3.0 if i in (10, 11, 14, 15) else 0.0 for i in range(16)]


def test_meta_graph_collections_find_their_proto_functions(tmp_path):
    path = str(tmp_path / "loop.meta")
    run_python(f"""
        import flowloom as tf
        i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
        tf.train.export_meta_graph({path!r})
        """)
    out = run_python(f"""
        import sys
        import flowloom as tf
        assert "flowloom.ops.control_flow.control_flow_context_io" not in sys.modules
        tf.train.import_meta_graph({path!r})
        print(len(tf.get_collection("while_context")))
        """)
    assert out.strip() == "1"


def test_a_grpc_target_finds_the_cluster_runtime_without_importing_it_first():
    out = run_python("""
        import sys
        import flowloom  # noqa: F401
        from flowloom.runtime import session_hooks
        assert "flowloom.distributed.server" not in sys.modules
        hook = session_hooks.target_hook("grpc://localhost:1")
        print(hook.__module__, session_hooks.target_hook(""))
        """)
    assert out.split() == ["flowloom.distributed.server", "None"]


def test_tensor_operators_and_list_conversion_load_with_first_use():
    out = run_python("""
        import sys
        from flowloom.framework import ops
        from flowloom.framework.graph import Graph
        assert "flowloom.ops.math.math_ops" not in sys.modules
        g = Graph()
        with g.as_default():
            t = ops.convert_to_tensor(3.0)
            packed = ops.convert_to_tensor([t, t])   # list of tensors: array_ops' Pack
            s = t + 1.0
            r = 2.0 * t
        print(packed.op.type, s.op.type, r.op.type, t[None].op.type)
        """)
    assert out.split() == ["Pack", "AddV2", "Mul", "StridedSlice"]


def test_compat_v1_star_import_pickling_and_help():
    out = run_python("""
        import pickle, pydoc
        import flowloom.compat.v1 as tf
        import flowloom
        assert tf is flowloom
        from flowloom import float32, placeholder, train
        assert tf.nn.conv2d is pickle.loads(pickle.dumps(tf.nn.conv2d))
        assert pickle.loads(pickle.dumps(tf.float32)) == float32
        assert pickle.loads(pickle.dumps(tf.TensorShape([2, None]))).as_list() == [2, None]
        assert "conv2d" in pydoc.render_doc(tf.nn.conv2d)
        ns = {}
        exec("from flowloom import *", ns)
        print(len([n for n in ns if not n.startswith("_")]) >= len(dir(tf)) - 60,
              "GradientDescentOptimizer" in dir(train), callable(placeholder))
        """)
    assert out.split() == ["True", "True", "True"]


@pytest.mark.skipif(not os.environ.get("FLOWLOOM_IMPORT_EACH"),
                    reason="set FLOWLOOM_IMPORT_EACH=1 to import every indexed module on its "
                           "own (about a minute on 2 cores)")
def test_every_indexed_module_imports_on_its_own():
    """First use may import any module of the index or of a lazy namespace's table first: none
    may depend on being imported after another (circular imports that only the eager import
    order resolved)."""
    out = run_python("""
        import importlib, os
        import numpy, google.protobuf  # noqa: F401 (third-party: imported once, shared)
        import flowloom
        from flowloom.framework.registry_index import INDEX
        first = {m for modules in INDEX.values() for m in modules}
        for namespace in (flowloom, flowloom.nn, flowloom.layers, flowloom.image, flowloom.train):
            first.update(module for module, _ in vars(namespace)["_lazy_table"].values())
        bad = []
        for name in sorted(first):
            pid = os.fork()
            if pid == 0:
                try:
                    importlib.import_module(name)
                    os._exit(0)
                except BaseException as e:
                    print(name, type(e).__name__, e, flush=True)
                    os._exit(1)
            if os.waitpid(pid, 0)[1]:
                bad.append(name)
        print("BAD", bad)
        """)
    assert out.splitlines()[-1] == "BAD []", out
