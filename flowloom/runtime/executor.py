"""Plans and their execution: prune, order, bind kernels once; then run steps many times.

A `Plan` is compiled once per (feeds, fetches, targets) signature. Each `Step` holds a bound
kernel (attrs and context already applied), the value slots it reads, and the slot of its
first output. Running a plan is a loop over steps writing into a list of slots.
"""

import functools
import os
import sys
import time

import numpy as np

from flowloom.framework import errors
from flowloom.framework.ops import Tensor
from flowloom.runtime import blocking, compiled_plan
from flowloom.runtime.op_errors import op_error  # noqa: F401 - the executors' error path
from flowloom.runtime.pruning import fed_placeholder, prune  # noqa: F401 - used by others
from flowloom.runtime import rewrites
from flowloom.runtime.devices import to_host

_DEBUG = int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)


class Ref:
    """A variable's buffer: the value a VariableV2 op outputs and Assign ops update."""

    __slots__ = ("value", "name", "lock")

    def __init__(self, name):
        self.value = None
        self.name = name
        import threading

        self.lock = threading.Lock()


class KernelContext:
    """What a stateful kernel may reach: the session's resources and its own persistent state."""

    __slots__ = ("resources", "op", "state", "session")

    def __init__(self, session, op):
        self.session = session
        # The container of the op's resources (a session of an in-process cluster picks the
        # container of the task the op is placed on).
        self.resources = session._resources_for(op)
        self.op = op
        self.state = session._op_state.setdefault(op._name, {})


class Step:
    """One op of a compiled plan: its bound kernel, the value slots it reads (`ins`), the
    first slot it writes (`out`, `nout` slots), the slots it frees, and its device.

    Partitioned plans add `SendStep`/`RecvStep` (see partitioner.py); the control-flow
    executor (runtime/dataflow.py) runs the same objects.
    """

    __slots__ = ("op", "fn", "ins", "derefs", "out", "nout", "frees", "device")
    kind = "op"

    def __init__(self, op, fn, ins, derefs, out, nout, device=None):
        self.op = op
        self.fn = fn
        self.ins = ins
        self.derefs = derefs
        self.out = out
        self.nout = nout
        self.frees = ()
        self.device = device


class Plan:
    """The compiled form of one Session.run signature.

    `steps` run in order on the calling thread when the whole plan is on one host device and
    has no control flow (the fast path: no threads, no rendezvous). Otherwise `partitioned`
    holds a `PartitionedPlan` (one step list per device, with Send/Recv pairs); it is also
    built on demand when a run asks for tracing.
    """

    def __init__(self, steps, num_slots, feed_slots, fetch_slots, fetch_derefs, fetch_ops,
                 partitioned=None, build_partitioned=None, external=None):
        self.steps = steps
        # A plan compiled by runtime/dataflow.py (single-device control flow): run with
        # `external.run(feed_values)`.
        self.external = external
        self.num_slots = num_slots
        self.feed_slots = feed_slots
        self.fetch_slots = fetch_slots
        self.fetch_derefs = fetch_derefs
        self.fetch_ops = fetch_ops
        self.partitioned = partitioned
        self._build_partitioned = build_partitioned
        # Set after a run whose kernels parallelised on their own pool (ops/nn/kernel_threads.py):
        # later runs keep BLAS on one thread.
        self.uses_kernel_pool = False
        # Values computed when the plan was compiled (constant folding), by slot; and the
        # ops that computed them.
        self.template = None
        self.folded_ops = ()
        self.rewrites = getattr(external, "rewrites", None)  # what the rewrites did
        # The steps compiled to one function (runtime/compiled_plan.py) once the plan runs a
        # second time; False when it cannot be compiled.
        self.runner = None
        self.runs = 0

    def get_partitioned(self):
        if self.partitioned is None:
            self.partitioned = self._build_partitioned()
        return self.partitioned


# Op types whose partitions need the frame-aware dataflow executor (runtime/dataflow.py).
CONTROL_FLOW_TYPES = frozenset([
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"])


def compile_plan(session, feed_tensors, fetch_tensors, target_ops):
    """Compiles the steps that compute `fetch_tensors` and run `target_ops` given the feeds.

    Places the graph (whole, as TF does at the first run), prunes it to what the fetches
    need, binds each op's kernel to its device's array module, and, when more than one device
    is involved, partitions the steps per device with Send/Recv pairs.
    """
    fed = set(feed_tensors)
    roots = [t._op for t in fetch_tensors if t not in fed] + list(target_ops)
    order = prune(roots, fed)
    placement = session._place(order + [t._op for t in fed])  # a pruned placement holds feeds too
    rewritten = None
    if any(op._type in CONTROL_FLOW_TYPES for op in order):
        plan = _compile_control_flow(session, placement, order, feed_tensors, fetch_tensors,
                                     target_ops)
        if plan is not None:
            return plan
    else:
        rewritten = rewrites.apply(session._config, order, fetch_tensors, target_ops, placement,
                                   fed)
        order = rewritten.order
        placement = rewritten.placement(placement)
    for op in order:
        if op._opdef.kernel_fn is None:
            raise errors.UnimplementedError(
                None, op, f"No kernel for op '{op._name}' of type {op._type}: flowloom does not "
                f"implement {op._type} yet.\n  {op.user_location()}")
    slot_of = {}
    carries_ref = set()
    n = 0
    for t in feed_tensors:
        slot_of[t] = n
        n += 1
    steps = []
    for op in order:
        opdef = op._opdef
        device = placement[op]
        ins = []
        derefs = []
        for i, t in enumerate(op._inputs):
            ins.append(slot_of[t])
            if t in carries_ref and i not in opdef.ref_input_indices and not opdef.forwards_ref:
                derefs.append(i)
        out = n
        nout = len(op._outputs)
        for t in op._outputs:
            slot_of[t] = n
            n += 1
            if t._dtype.is_ref_dtype:
                carries_ref.add(t)
        if opdef.forwards_ref and op._inputs and op._inputs[0] in carries_ref:
            carries_ref.add(op._outputs[0])
        steps.append(Step(op, _bind_kernel(session, op, device.xp), tuple(ins), tuple(derefs),
                          out, nout, device))
    for t, same in (rewritten.aliases if rewritten else {}).items():
        if same in slot_of:  # a dropped op's outputs are read from its twin's slots
            slot_of[t] = slot_of[same]
            if same in carries_ref:
                carries_ref.add(t)
    fetch_slots = [slot_of[t] for t in fetch_tensors]
    fetch_derefs = [t in carries_ref for t in fetch_tensors]
    feed_slots = list(range(len(feed_tensors)))
    client = session._devices[0]
    used = {s.device for s in steps} | {placement[t._op] for t in feed_tensors}
    fast = (used <= {client} and not any(s.op._type in CONTROL_FLOW_TYPES for s in steps)
            and not blocking.independent_waits(order))  # its blocking ops need threads

    def partitioned_of(steps):
        from flowloom.runtime import partitioner

        return partitioner.partition(steps, n, placement, feed_tensors, fetch_tensors,
                                     slot_of, fetch_derefs, client, CONTROL_FLOW_TYPES)

    def build_partitioned():
        return partitioned_of(steps)

    log = rewritten if rewritten is not None else rewrites.Rewritten(order)
    if fast:
        all_steps = steps  # traced runs partition every op (build_partitioned's closure)
        steps, constants, folded = rewrites.fold_constants(session._config, steps)
        keep = set(fetch_slots) | set(feed_slots) | set(constants)
        _plan_frees(steps, keep)
        steps = rewrites.reuse_buffers(session._config, steps, keep, log)
        steps = rewrites.group_updates(session._config, steps, keep, log)
        plan = Plan(steps, n, feed_slots, fetch_slots, fetch_derefs, target_ops,
                    build_partitioned=lambda: partitioned_of(all_steps))
        if constants:
            plan.template = [None] * n
            for slot, value in constants.items():
                plan.template[slot] = value
            plan.folded_ops = folded
        plan.rewrites = log
        return plan
    plan = Plan(None, n, feed_slots, fetch_slots, fetch_derefs, target_ops,
                partitioned=build_partitioned())
    plan.rewrites = log
    return plan


def _compile_control_flow(session, placement, order, feed_tensors, fetch_tensors, target_ops):
    """THE HOOK for TF1 control flow. A plan with Switch/Merge/Enter/... whose ops are all
    on host devices is compiled by `runtime/dataflow.compile_plan(session, feeds, fetches,
    targets)` (the frame-aware executor) when that module exists: host devices share memory,
    so one dataflow run over all of them computes what TF's partitions would (without their
    concurrency). Returns None to partition the plan instead (with a GPU: partitions with
    control flow go to `dataflow.run_partition`)."""
    try:
        from flowloom.runtime import dataflow
    except ImportError:
        return None
    # CF (cf branch): dataflow plans bind each op to its placed device and copy values on
    # edges between device memories, so GPU placements run there too (one thread).
    if not hasattr(dataflow, "compile_plan"):
        return None
    external = dataflow.compile_plan(session, feed_tensors, fetch_tensors, target_ops)
    if external is None:
        return None
    return Plan(None, 0, list(range(len(feed_tensors))), [], [], target_ops,
                build_partitioned=lambda: None, external=external)


def plan_frees(steps, keep):
    """Sets each step's `frees`: the slots whose last reader it is (except `keep`)."""
    _plan_frees(steps, keep)


def _plan_frees(steps, keep):
    last_use = {}
    for k, s in enumerate(steps):
        for i in s.ins:
            last_use[i] = k
    frees = [[] for _ in steps]
    for slot, k in last_use.items():
        if slot not in keep:
            frees[k].append(slot)
    for s, f in zip(steps, frees):
        s.frees = tuple(f)


def _bind_kernel(session, op, xp):
    opdef = op._opdef
    bind = getattr(opdef.kernel_fn, "bind", None)
    if bind is not None:
        # A kernel may offer a leaner callable for this op on this device (a ufunc bound
        # directly); it computes what the kernel computes and takes only the arrays.
        fn = bind(xp, op)
        if fn is not None:
            return fn
    kwargs = {}
    for a in opdef.kernel_attrs:
        if a in op._attrs:
            kwargs[a] = op._attrs[a]
    if xp is not np:
        # Array attrs (a Const's value) are moved to the device once, at compile time.
        kwargs = {k: xp.asarray(v) if isinstance(v, np.ndarray) and v.dtype != object else v
                  for k, v in kwargs.items()}
    if opdef.kernel_wants_ctx:
        kwargs["ctx"] = KernelContext(session, op)
        bind = getattr(opdef.kernel_fn, "bind_bound", None)  # the same, given its kwargs
        if bind is not None:
            return bind(xp, **kwargs)
    fn = functools.partial(opdef.kernel_fn, xp, **kwargs)
    if opdef.returns_sequence and len(op._outputs) == 1:
        # A list output holding one tensor: the kernel returns `[array]`; its slot holds the array.
        return functools.partial(_only_output, fn)
    return fn


def _only_output(fn, *args):
    out = fn(*args)
    if len(out) != 1:
        raise errors.InternalError(None, None, f"kernel returned {len(out)} outputs, expected 1")
    return out[0]


def deref(value, op):
    """The current value of a variable reference consumed by `op`."""
    if type(value) is Ref:
        v = value.value
        if v is None:
            raise errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {value.name}")
        return v
    return value


def run_plan(plan, feed_values):
    """Runs `plan` once; returns the fetched values (references not yet dereferenced)."""
    if type(plan) is not Plan:  # HOOK(cf branch): a dataflow.DataflowPlan (control flow)
        return plan.run(feed_values)
    runner = plan.runner
    if runner:
        return compiled_plan.run_compiled(runner, feed_values, op_error)
    if runner is None and not _DEBUG:
        plan.runs += 1
        if plan.runs >= rewrites.COMPILE_AT_RUN:
            plan.runner = compile_runner(plan) or False
            if plan.runner:
                return compiled_plan.run_compiled(plan.runner, feed_values, op_error)
    vals = [None] * plan.num_slots if plan.template is None else plan.template.copy()
    vals[: len(feed_values)] = feed_values
    trace = _DEBUG
    for step in plan.steps:
        args = [vals[i] for i in step.ins]
        if step.derefs:
            for j in step.derefs:
                args[j] = deref(args[j], step.op)
        if trace:
            t0 = time.perf_counter()
        try:
            r = step.fn(*args)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes a TF error
            raise op_error(step.op, args, e) from (None if isinstance(e, errors.OpError) else e)
        if trace:
            trace_step(step, r, time.perf_counter() - t0)
        if step.nout == 1:
            vals[step.out] = r
        elif step.nout:
            vals[step.out: step.out + step.nout] = r
        for i in step.frees:
            vals[i] = None
    return [vals[i] for i in plan.fetch_slots]


def compile_runner(plan):
    """The plan's steps compiled to one function (runtime/compiled_plan.py), or None."""
    constants = {}
    if plan.template is not None:
        constants = {i: v for i, v in enumerate(plan.template) if v is not None}
    return compiled_plan.compile_runner(plan.steps, len(plan.feed_slots), plan.fetch_slots,
                                        constants, deref)


def trace_step(step, result, seconds):
    """FLOWLOOM_DEBUG=1: one line per executed op: type, name, device, time, output shape."""
    if type(result) is Ref:
        result = result.value
    shape = getattr(result, "shape", None)
    device = step.device.name if step.device is not None else "?"
    print(f"[flowloom] {step.op._type:<16} {step.op._name:<40} {device} "
          f"{seconds * 1e6:8.1f} us  {shape}", file=sys.stderr)


def fetch_value(value, op=None):
    """Converts a computed value to what Session.run returns (copies variable buffers)."""
    if type(value) is Ref:
        value = deref(value, op)
        value = np.array(to_host(value), copy=True)
    elif not isinstance(value, np.ndarray) and hasattr(value, "__cuda_array_interface__"):
        value = to_host(value)
    elif isinstance(value, np.ndarray) and not value.flags.writeable:
        value = value.copy()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def is_tensor(x):
    return isinstance(x, Tensor)
