"""`flowloom lint`: runs a TF1 program and reports the mistakes TensorFlow stays silent about.

Each finding has a stable code, a one-line message, the user's file and line, and a fix:

  FL101  a control_dependencies block that created no op (nothing gets the dependency)
  FL102  a name rebound inside control_dependencies to a tensor created outside (`y = x`)
  FL201  ops created between Session.run calls: the graph grows every step
  FL301  a stateful op given to control_dependencies never ran in any Session.run
  FL401  get_variable under name_scope: the variable's name ignores the name scope
  FL501  a variable created after the initializer that was meant to cover it
  FL502  a deprecated TF name, with its replacement
  FL503  a summary op that never ran (never merged, fetched or written)
  FL504  summaries evaluated but never written to a FileWriter
  FL505  a Saver built inside the training loop

    linter = Linter()
    with linter.watching():
        ...build and run the program...
    for finding in linter.findings(): print(finding)
"""

import contextlib
import os
import sys
from collections import Counter

from flowloom.framework import observers
from flowloom.framework.ops import Operation, Tensor

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# flowloom's example programs are linted as user code.
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples") + os.sep


_SUMMARY_DIR = os.path.join(_PACKAGE_DIR, "summary") + os.sep
_LINT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _entry_file(frame):
    """The file of the flowloom function that user code called to get to `frame`."""
    entry = None
    f = frame
    while f is not None:
        name = f.f_code.co_filename
        if not _internal(name):
            break
        if not name.startswith(_LINT_DIR):  # the linter's own wrappers are not an entry
            entry = name
        f = f.f_back
    return entry or ""


def _internal(filename):
    return filename.startswith(_PACKAGE_DIR) and not filename.startswith(_EXAMPLES_DIR)

_SUMMARY_TYPES = frozenset(["ScalarSummary", "HistogramSummary", "ImageSummary",
                            "AudioSummary", "AudioSummaryV2", "TensorSummary",
                            "TensorSummaryV2", "MergeSummary"])

# (module path inside flowloom, attribute, the name users call it by, its replacement)
DEPRECATED = [
    ("flowloom", "initialize_all_variables", "tf.initialize_all_variables",
     "tf.global_variables_initializer"),
    ("flowloom", "initialize_local_variables", "tf.initialize_local_variables",
     "tf.local_variables_initializer"),
    ("flowloom", "initialize_variables", "tf.initialize_variables", "tf.variables_initializer"),
    ("flowloom", "all_variables", "tf.all_variables", "tf.global_variables"),
    ("flowloom", "scalar_summary", "tf.scalar_summary", "tf.summary.scalar"),
    ("flowloom", "histogram_summary", "tf.histogram_summary", "tf.summary.histogram"),
    ("flowloom", "image_summary", "tf.image_summary", "tf.summary.image"),
    ("flowloom", "audio_summary", "tf.audio_summary", "tf.summary.audio"),
    ("flowloom", "merge_all_summaries", "tf.merge_all_summaries", "tf.summary.merge_all"),
    ("flowloom", "merge_summary", "tf.merge_summary", "tf.summary.merge"),
    ("flowloom.train", "SummaryWriter", "tf.train.SummaryWriter", "tf.summary.FileWriter"),
]


class Finding:
    """One lint finding: `code`, `message`, `path`, `line`, `fix`."""

    def __init__(self, code, message, site, fix):
        self.code = code
        self.message = message
        self.path, self.line = site if site else ("<unknown>", 0)
        self.fix = fix

    def to_dict(self):
        return {"code": self.code, "message": self.message, "path": self.path,
                "line": self.line, "fix": self.fix}

    def __str__(self):
        return f"{self.path}:{self.line}: {self.code} {self.message}\n    fix: {self.fix}"


def user_site(depth=2):
    """(file, line) of the first caller frame outside flowloom, or None."""
    f = sys._getframe(depth)
    while f is not None and _internal(f.f_code.co_filename):
        f = f.f_back
    return None if f is None else (f.f_code.co_filename, f.f_lineno)


def _called_by_user():
    """Whether the function calling this one was called directly from user code."""
    return not _internal(sys._getframe(2).f_code.co_filename)


def _graph_element(value):
    """The Tensor or Operation a Python value stands for (a Variable: its tensor), or None."""
    if isinstance(value, (Tensor, Operation)):
        return value
    as_element = getattr(value, "_as_graph_element", None)
    if as_element is not None and not isinstance(value, type):
        try:
            element = as_element()
        except Exception:
            return None
        return element if isinstance(element, (Tensor, Operation)) else None
    return None


def _op_of(element):
    return element._op if isinstance(element, Tensor) else element


def _op_site(op):
    tb = op._traceback
    return (tb[0], tb[1]) if tb else None


class _Block:
    __slots__ = ("controller", "site", "frame", "before", "control_inputs")

    def __init__(self, controller, frame):
        self.controller = controller
        self.frame = frame
        self.site = (frame.f_code.co_filename, frame.f_lineno)
        self.before = {k: id(v) for k, v in frame.f_locals.items()}
        self.control_inputs = list(controller.control_inputs)


class Linter:
    """Watches a program build and run graphs, then reports findings."""

    def __init__(self):
        self._findings = []
        self._blocks = []
        self._runs = 0
        self._ops_after_run = []  # (op, site, run index when created)
        self._all_ops = []
        self._ran = set()
        self._control_inputs_of_blocks = []  # (op, site of the block)
        self._initializer_calls = []  # (site, variable ops it covers, graph)
        self._get_variable_calls = []  # (name scope, variable, site)
        self._savers = []  # (site, run index)
        self._summaries_written = 0
        self._deprecated_seen = set()
        self._rebinds = []  # (site of the block, name, tensor or op bound inside it)
        self._fetched_ops = set()
        self._plans_seen = set()
        self._plans_alive = []
        self._user_summaries = set()  # summary ops made by the user's own tf.summary calls

    # -- observers ----------------------------------------------------------------
    def _on_op(self, op):
        self._all_ops.append(op)
        if self._runs:
            self._ops_after_run.append((op, _op_site(op), self._runs))
        if op._type in _SUMMARY_TYPES and _entry_file(sys._getframe(1)).startswith(
                _SUMMARY_DIR):
            self._user_summaries.add(op)

    def _on_block(self, event, controller):
        frame = sys._getframe(2)  # the `with` statement (this <- __enter__/__exit__ <- it)
        if _internal(frame.f_code.co_filename):
            return  # flowloom's own blocks
        if event == "enter":
            self._blocks.append(_Block(controller, frame))
            return
        for k in range(len(self._blocks) - 1, -1, -1):
            if self._blocks[k].controller is controller:
                block = self._blocks.pop(k)
                break
        else:
            return
        self._check_block(block, frame)

    def _check_block(self, block, frame):
        created = block.controller.ops_created
        for op in block.control_inputs:
            self._control_inputs_of_blocks.append((op, block.site))
        rebound = []
        for name, value in frame.f_locals.items():
            if block.before.get(name) == id(value):
                continue
            element = _graph_element(value)
            if element is not None and _op_of(element) not in created:
                rebound.append((name, element))
        self._rebinds.extend((block.site, name, value) for name, value in rebound)
        if not created and block.controller.control_inputs:
            self._findings.append(Finding(
                "FL101", "this tf.control_dependencies block creates no op, so nothing waits "
                "for its control inputs",
                block.site, "create the ops that must wait inside the block, e.g. "
                "y = tf.identity(x) rather than y = x"))

    def _on_run(self, session, plan, feeds, fetches, targets, seconds):
        from flowloom.explain.report import plan_ops

        self._runs += 1
        if id(plan) in self._plans_seen:
            return
        self._plans_seen.add(id(plan))
        self._plans_alive.append(plan)  # keeps ids unique while the linter watches
        ops, _ = plan_ops(plan)
        self._ran.update(ops)
        self._fetched_ops.update(t._op for t in fetches)
        self._fetched_ops.update(targets)

    # -- wrapped API ----------------------------------------------------------------
    def _wrap_deprecated(self, module, attr, old, new):
        fn = getattr(module, attr)
        linter = self

        def record(site):
            if site is not None and (old, site) not in linter._deprecated_seen:
                linter._deprecated_seen.add((old, site))
                linter._findings.append(Finding(
                    "FL502", f"{old} is deprecated", site, f"use {new}"))

        def wrapper(*args, **kwargs):
            record(user_site())
            return fn(*args, **kwargs)

        if isinstance(fn, type):
            def __init__(obj, *args, **kwargs):
                record(user_site())
                fn.__init__(obj, *args, **kwargs)

            return fn, type(fn.__name__, (fn,), {"__init__": __init__,
                                                 "__module__": fn.__module__})
        wrapper.__wrapped__ = fn
        return fn, wrapper

    @contextlib.contextmanager
    def watching(self):
        """Registers the observers and wrappers for the duration of the block."""
        import importlib

        # By their module paths: `flowloom.variable_scope` is also the name of a function.
        variable_scope = importlib.import_module("flowloom.variable_scope")
        variables = importlib.import_module("flowloom.variables")
        writer_lib = importlib.import_module("flowloom.summary.writer")
        saver_lib = importlib.import_module("flowloom.train.saver")

        patches = []

        def patch(obj, attr, value):
            patches.append((obj, attr, getattr(obj, attr)))
            setattr(obj, attr, value)

        for modname, attr, old, new in DEPRECATED:
            module = importlib.import_module(modname)
            if hasattr(module, attr):
                _, wrapped = self._wrap_deprecated(module, attr, old, new)
                patch(module, attr, wrapped)
        self._patch_initializers(patch, variables)
        self._patch_get_variable(patch, variable_scope)
        self._patch_saver(patch, saver_lib)
        self._patch_writer(patch, writer_lib)
        observers.op_created.append(self._on_op)
        observers.control_block.append(self._on_block)
        observers.session_run.append(self._on_run)
        try:
            yield self
        finally:
            observers.op_created.remove(self._on_op)
            observers.control_block.remove(self._on_block)
            observers.session_run.remove(self._on_run)
            for obj, attr, value in reversed(patches):
                setattr(obj, attr, value)

    def _patch_initializers(self, patch, variables):
        import flowloom

        linter = self
        for name in ("global_variables_initializer", "initialize_all_variables"):
            for module in (flowloom, variables):
                fn = getattr(module, name, None)
                if fn is None or getattr(fn, "_flowloom_lint", False):
                    continue

                def wrapper(*args, _fn=fn, **kwargs):
                    from flowloom.variables import global_variables

                    from flowloom.framework.graph import get_default_graph

                    covered = {v.op for v in global_variables()}
                    linter._initializer_calls.append((user_site(), covered,
                                                      get_default_graph()))
                    return _fn(*args, **kwargs)

                wrapper._flowloom_lint = True
                patch(module, name, wrapper)

    def _patch_get_variable(self, patch, variable_scope):
        import flowloom

        linter = self
        fn = variable_scope.get_variable

        def get_variable(*args, **kwargs):
            from flowloom.framework.graph import get_default_graph

            scope = get_default_graph().get_name_scope()
            # The name scope the enclosing variable_scope opened: a name_scope entered
            # inside it is what get_variable ignores.
            opened = (variable_scope.get_variable_scope().original_name_scope or "").rstrip("/")
            v = fn(*args, **kwargs)
            if _called_by_user() and scope != opened and scope.startswith(opened):
                linter._get_variable_calls.append((scope, v, user_site()))
            return v

        patch(variable_scope, "get_variable", get_variable)
        if getattr(flowloom, "get_variable", None) is fn:
            patch(flowloom, "get_variable", get_variable)

    def _patch_saver(self, patch, saver_lib):
        linter = self
        init = saver_lib.Saver.__init__

        def saver_init(saver, *args, **kwargs):
            if _called_by_user():
                linter._savers.append((user_site(), linter._runs))
            init(saver, *args, **kwargs)

        patch(saver_lib.Saver, "__init__", saver_init)

    def _patch_writer(self, patch, writer_lib):
        linter = self
        cls = writer_lib.FileWriter
        add = cls.add_summary

        def add_summary(writer, *args, **kwargs):
            linter._summaries_written += 1
            return add(writer, *args, **kwargs)

        patch(cls, "add_summary", add_summary)

    # -- findings at the end ------------------------------------------------------------
    def findings(self):
        """All findings, in order of file and line."""
        out = list(self._findings)
        out.extend(self._rebound_names())
        out.extend(self._growing_graph())
        out.extend(self._control_inputs_never_run())
        out.extend(self._name_scope_ignored())
        out.extend(self._variables_after_initializer())
        out.extend(self._summaries())
        out.extend(self._savers_in_loop())
        explained = {(f.path, f.line) for f in out if f.code == "FL102"}
        out = [f for f in out if not (f.code == "FL101" and (f.path, f.line) in explained)]
        seen = set()
        unique = []
        for f in out:
            key = (f.code, f.path, f.line, f.message)
            if key not in seen:
                seen.add(key)
                unique.append(f)
        unique.sort(key=lambda f: (f.path, f.line, f.code))
        return unique

    def _rebound_names(self):
        out = []
        for site, name, value in self._rebinds:
            if self._runs and _op_of(value) not in self._fetched_ops:
                continue  # reported only where the rebound value is what a run fetched
            out.append(Finding(
                "FL102", f"'{name} = ...' inside tf.control_dependencies binds '{name}' to "
                f"{value.name}, created outside the block, so the dependency does not apply "
                "to it", site, f"{name} = tf.identity(...) creates a new op inside the block "
                "that waits for the control inputs"))
        return out

    def _growing_graph(self):
        # A line that creates ops between several different pairs of runs is in a loop that
        # also runs the graph: the graph grows every step. Lines run once after a run (an
        # evaluation built after training) are normal.
        intervals = {}
        for _, site, r in self._ops_after_run:
            if site:
                intervals.setdefault(site, set()).add(r)
        looping = {site for site, rs in intervals.items() if len(rs) >= 2}
        if not looping:
            return []
        in_loops = [(site, r) for _, site, r in self._ops_after_run if site in looping]
        sites = Counter(site for site, _ in in_loops)
        steps = len({r for _, r in in_loops})
        total = len(in_loops)
        out = []
        for site, count in sites.most_common(3):
            out.append(Finding(
                "FL201", f"the graph grows while the program runs: a loop creates {total} ops "
                f"between {steps} pairs of Session.run calls (~{max(total // steps, 1)} per "
                f"step); {count} of them here",
                site, "build every op once before the training loop, and call "
                "tf.get_default_graph().finalize() before it to catch this"))
        return out

    def _control_inputs_never_run(self):
        if not self._runs:
            return []
        out = []
        for op, site in self._control_inputs_of_blocks:
            if op._opdef.stateful and op not in self._ran and op._type != "NoOp":
                out.append(Finding(
                    "FL301", f"'{op.name}' ({op.type}) is a control input of this block but "
                    "never ran: nothing any Session.run fetched depends on it",
                    site, "fetch an op created inside the block (e.g. y = tf.identity(x)), "
                    f"or run '{op.name}' itself"))
        return out

    def _name_scope_ignored(self):
        out = []
        for scope, v, site in self._get_variable_calls:
            if not scope:
                continue
            prefix = scope.rstrip("/") + "/"
            vname = v.op.name
            if vname.startswith(prefix):
                continue
            scoped = any(op.name.startswith(prefix) for op in self._all_ops)
            if scoped:
                out.append(Finding(
                    "FL401", f"tf.get_variable names this variable '{vname}', not "
                    f"'{prefix}{vname.rsplit('/', 1)[-1]}': it ignores the name scope "
                    f"'{scope.rstrip('/')}' (other ops here do get it)",
                    site, "use tf.variable_scope(...) where variables should share the "
                    "scope's name"))
        return out

    def _variables_after_initializer(self):
        from flowloom.framework.graph import GraphKeys

        out = []
        by_graph = {}
        for site, covered, graph in self._initializer_calls:
            by_graph.setdefault(graph, []).append((site, covered))
        for graph, calls in by_graph.items():
            last_site = calls[-1][0]
            covered_all = set().union(*(c for _, c in calls))
            for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
                if v.op in covered_all or _initialized_by_a_run(v, self._ran):
                    continue
                where = f"{os.path.basename(last_site[0])}:{last_site[1]}" if last_site else "?"
                out.append(Finding(
                    "FL501", f"variable '{v.op.name}' is created after the initializer at "
                    f"{where}, which therefore does not initialize it", _op_site(v.op),
                    "create every variable before tf.global_variables_initializer(), "
                    "or run tf.variables_initializer([...]) for the late ones"))
        return out

    def _summaries(self):
        if not self._runs:
            return []
        out = []
        ran_summaries = 0
        for op in self._all_ops:
            if op not in self._user_summaries:
                continue  # e.g. the fraction_of_N_full summaries input producers add
            if op in self._ran or any(c in self._ran for t in op._outputs
                                      for c in t._consumers):
                ran_summaries += 1
                continue
            if op._type == "MergeSummary" or any(
                    c._type == "MergeSummary" and c in self._ran
                    for t in op._outputs for c in t._consumers):
                continue
            out.append(Finding(
                "FL503", f"summary '{op.name}' never ran: it is not merged, fetched or "
                "written", _op_site(op), "merged = tf.summary.merge_all(); run it and pass the "
                "result to FileWriter.add_summary"))
        if ran_summaries and not self._summaries_written:
            site = next((_op_site(op) for op in self._all_ops
                         if op._type in _SUMMARY_TYPES and op in self._ran), None)
            out.append(Finding(
                "FL504", "summaries were evaluated but never written to an event file",
                site, "writer = tf.summary.FileWriter(logdir); "
                "writer.add_summary(summary, step)"))
        return out

    def _savers_in_loop(self):
        # A Saver line run between several different pairs of runs is inside the loop; one
        # built once after the initializer ran is not.
        intervals = {}
        for site, r in self._savers:
            if r > 0 and site:
                intervals.setdefault(site, []).append(r)
        return [Finding("FL505", f"tf.train.Saver() is built inside the training loop "
                        f"({len(rs)} times): each one adds save/restore ops to the graph",
                        site, "build one Saver before the loop and call saver.save() in it")
                for site, rs in intervals.items() if len(set(rs)) >= 2]


def _initialized_by_a_run(v, ran):
    if v.initializer in ran:
        return True
    # A restore (or any assignment) that ran counts as initialization.
    return any(c in ran and 0 in c._opdef.ref_input_indices
               for t in v.op._outputs for c in t._consumers)


def lint_script(path, argv=(), stream=None):
    """Runs the script at `path` with `argv` under the linter; returns (findings, error).

    The script runs as `flowloom run` runs it (`import tensorflow` maps onto flowloom where
    that mapping is installed). `error` is the exception the script ended with, or None.
    """
    import runpy

    linter = Linter()
    saved_argv = sys.argv
    sys.argv = [path] + list(argv)
    error = None
    try:
        _install_tensorflow_mapping()
        with linter.watching():
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as e:
                if e.code not in (None, 0):
                    error = e
            except Exception as e:  # the program's own failure is reported, not raised
                error = e
    finally:
        sys.argv = saved_argv
    return linter.findings(), error


def _install_tensorflow_mapping():
    import flowloom

    install = getattr(flowloom, "install_as_tensorflow", None)
    if install is not None:
        install()
    else:
        sys.modules.setdefault("tensorflow", flowloom)
