"""Graph rewrites applied to a plan's op list before it is compiled: pure passes, each
switchable with TF's `RewriterConfig` fields and named by `FLOWLOOM_DEBUG=1` when it acts.

  constant_folding          ops whose inputs are all constants (and Consts themselves) are
                            computed once when the plan is compiled, on the host device's
                            fast path, for outputs up to TF's 10 MiB; stateful ops, checks
                            and ops that fail are left to run.
  dependency_optimization   stateless ops whose only consumers in the plan are control
                            edges (what `tf.group` of pure ops does) are not run: their
                            values reach nothing, and their whole fan-in is pure, so nothing
                            observable changes (as Grappler's dependency optimizer);
                            Identity and NoOp ops that move nothing across devices and
                            carry no control dependency are removed
                            (runtime/rewrite_identity.py).
  arithmetic_optimization   value-preserving arithmetic stages: Add chains -> AddN,
                            redundant Reshape/Cast/Transpose/reductions, double negations,
                            x + (-y) -> x - y (runtime/rewrite_arithmetic.py).
  common_subgraph_elimination  stateless ops that repeat an earlier op's computation (same
                            type, attrs, inputs, control inputs, device) are not run; their
                            outputs are the earlier op's (runtime/rewrite_cse.py).
  remapping                 MatMul/Conv2D + BiasAdd (+ Relu/Relu6/Elu) run as one fused op
                            that writes in place (runtime/rewrite_remap.py); MaxPoolGrad +
                            ReluGrad as one op (runtime/rewrite_fuse_grad.py); the ops of
                            per_image_standardization as one kernel
                            (runtime/rewrite_fuse_image.py); elementwise chains as one
                            kernel (runtime/rewrite_fuse.py); one optimizer's updates of
                            several variables as one step (runtime/rewrite_group_updates.py).
  memory_optimization       elementwise arithmetic, and kernels that offer it (ReluGrad,
                            _FusedMaxPoolGrad),
                            write into a large input's buffer when that input dies there
                            (runtime/rewrite_memory.py).

    config = tf.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = RewriterConfig.OFF

Plans with TF1 control flow (while loops, conds) get the rewrites that keep every node's value
and deadness in its frame: CSE, the arithmetic stages that drop no input, Identity removal,
NoOps removed with their control edges rerouted, and the fusions (runtime/rewrite_frames.py).

`FLOWLOOM_REWRITES=0` turns every rewrite off in the whole process (to compare a program's
results with and without them). `FLOWLOOM_REWRITES=all` keeps them on and lowers their size
thresholds (buffer reuse acts on arrays of any size, plans are compiled at their first run) so
that a test suite's small graphs exercise them: `python3 dev.py test --rewrites off|on`.
"""

import os
import sys

_DEBUG = int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)
_MODE = os.environ.get("FLOWLOOM_REWRITES", "1")
ALL_OFF = _MODE == "0"
EVERYWHERE = _MODE == "all"
# A plan is compiled to one function (runtime/compiled_plan.py) at this run.
COMPILE_AT_RUN = 1 if EVERYWHERE else 2
_OFF = 2  # RewriterConfig.Toggle.OFF
_NO_MEM_OPT = 1  # RewriterConfig.MemOptType.NO_MEM_OPT

# Ops without TF's stateful flag whose running still matters: they can fail the run (an
# unfed Placeholder does).
_CHECKS = frozenset(["CheckNumerics", "Assert", "Print", "PrintV2", "EnsureShape",
                     "VerifyTensorAllFinite", "Placeholder", "PlaceholderV2"])


def enabled(config, name):
    """Whether rewrite `name` is on for a session with ConfigProto `config`."""
    if ALL_OFF:
        return False
    if config is None:
        return True
    rewrite = config.graph_options.rewrite_options
    if rewrite.disable_meta_optimizer:
        return False
    if name == "memory_optimization":  # a MemOptType, not a Toggle
        return rewrite.memory_optimization != _NO_MEM_OPT
    return getattr(rewrite, name) != _OFF


def reuse_buffers(config, steps, keep, rewritten):
    """A fast-path plan's steps with in-place kernels where dead buffers can be reused."""
    if not enabled(config, "memory_optimization"):
        return steps
    from flowloom.runtime import executor, rewrite_memory, rewrite_schedule

    hoisted = rewrite_schedule.hoist(steps)
    if hoisted is not steps:
        before = {id(s): k for k, s in enumerate(steps)}
        moved = sum(before[id(s)] > k for k, s in enumerate(hoisted))
        steps = hoisted
        executor.plan_frees(steps, keep)
        rewritten.note("memory_optimization", f"{moved} step(s) run earlier: Identities and "
                       "variable updates as soon as their inputs are ready")
    steps, changed = rewrite_memory.reuse_buffers(
        steps, keep, 1 if EVERYWHERE else rewrite_memory.MIN_ELEMENTS)
    if changed:
        rewritten.note("memory_optimization", f"{changed} op(s) write into a dead "
                       "input's buffer")
    return steps


def group_updates(config, steps, keep, rewritten):
    """A fast-path plan's steps with one optimizer's variable updates as one step
    (runtime/rewrite_group_updates.py); their `frees` planned again when it acts."""
    if not enabled(config, "remapping"):
        return steps
    from flowloom.runtime import executor, rewrite_group_updates

    steps, made = rewrite_group_updates.group(steps, keep)
    if made:
        executor.plan_frees(steps, keep)
        rewritten.note("remapping", f"{made} group(s) of variable updates run as one step")
    return steps


class Rewritten:
    """A plan's op list after the rewrites, with what the executor needs to compile it.

    Attributes:
      order: the ops to run, in order (graph ops and `RewrittenOp`s).
      aliases: {tensor: tensor} — a dropped op's output is read from the op that replaced it.
      placed_as: {RewrittenOp: graph op} — the op whose device a made op runs on.
      merged: {dropped op: the op whose computation it repeats} (for `flowloom explain`).
      log: [(rewrite, what it did)] — for FLOWLOOM_DEBUG and RunMetadata readers.
    """

    def __init__(self, order):
        self.order = order
        self.merged = {}
        self.aliases = {}
        self.placed_as = {}
        self.log = []

    def placement(self, placement):
        """`placement` with the devices of the ops the rewrites made (a copy if any)."""
        if not self.placed_as:
            return placement
        placement = dict(placement)
        for op, like in self.placed_as.items():
            placement[op] = placement[like]
        return placement

    def note(self, rewrite, what):
        self.log.append((rewrite, what))
        if _DEBUG:
            print(f"[flowloom] rewrite {rewrite}: {what}", file=sys.stderr, flush=True)


def apply(config, order, fetch_tensors, target_ops, placement=None, fed=()):
    """The plan's op list after the enabled rewrites (`order` itself is not changed).

    Returns a `Rewritten`: the new op list, the aliases of dropped ops' outputs and the
    placement of the ops the rewrites made.
    """
    from flowloom.runtime import rewrite_cse

    placement = placement if placement is not None else {}
    fed = set(fed)
    result = Rewritten(order)
    if enabled(config, "dependency_optimization"):
        result.order = prune_pure_control_only(result.order, fetch_tensors, target_ops)
    if enabled(config, "common_subgraph_elimination"):
        result.order, result.aliases, result.placed_as, dropped = rewrite_cse.eliminate(
            result.order, placement, _CHECKS, fed)
        result.merged = dropped
        if dropped:
            result.note("common_subgraph_elimination", f"{len(dropped)} op(s) that repeat an "
                        "earlier op's computation are not run")
    aliased = len(result.aliases)
    if enabled(config, "arithmetic_optimization"):
        _arithmetic(result, fetch_tensors, target_ops, placement, fed)
    if enabled(config, "dependency_optimization"):
        _identities(result, fetch_tensors, target_ops, placement, fed)
    if result.aliases and len(result.aliases) > aliased:
        from flowloom.runtime.rewrite_oplist import drop_unread

        fetches = [result.aliases.get(t, t) for t in fetch_tensors]
        result.order = drop_unread(result.order, fetches, set(target_ops), _must_run)
    if enabled(config, "remapping"):
        remap(result, fetch_tensors, target_ops, placement, fed)
    return result


def remap(result, fetch_tensors, target_ops, placement, fed):
    """The remapping rewrites: TF's fused kernels (rewrite_remap), then the pooling-gradient
    and elementwise fusions."""
    from flowloom.runtime import rewrite_remap

    result.order, fused = rewrite_remap.remap(
        result.order, [result.aliases.get(t, t) for t in fetch_tensors], target_ops,
        result.placement(placement))
    for op, like in fused.items():
        result.placed_as[op] = result.placed_as.get(like, like)
        result.note("remapping", f"{' + '.join(o._type for o in op.replaces)} -> "
                    f"{op._type} '{op._name}'")
    _fuse_pool_grads(result, fetch_tensors, target_ops, placement, fed)
    _fuse_standardization(result, fetch_tensors, target_ops, placement, fed)
    _fuse_elementwise(result, fetch_tensors, target_ops, placement, fed)


def _fuse_pool_grads(result, fetch_tensors, target_ops, placement, fed):
    from flowloom.runtime import rewrite_fuse_grad

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, result.placed_as, pairs = rewrite_fuse_grad.fuse(
        result.order, fetches, target_ops, placement, fed, result.placed_as)
    for op, members in pairs.items():
        result.note("remapping", f"{' + '.join(o._type for o in members)} -> "
                    f"{op._type} '{op._name}'")


def _fuse_standardization(result, fetch_tensors, target_ops, placement, fed):
    from flowloom.runtime import rewrite_fuse_image

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, result.placed_as, fused = rewrite_fuse_image.fuse(
        result.order, fetches, target_ops, placement, fed, result.placed_as)
    for op, members in fused.items():
        result.note("remapping", f"{' + '.join(o._type for o in members)} -> "
                    f"{op._type} '{op._name}' (one kernel)")


def _fuse_elementwise(result, fetch_tensors, target_ops, placement, fed):
    from flowloom.ops.math import fused_elementwise  # noqa: F401 - registers the op type
    from flowloom.runtime import rewrite_fuse

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, result.placed_as, chains = rewrite_fuse.fuse(
        result.order, fetches, target_ops, placement, fed, result.placed_as)
    for op, members in chains.items():
        result.note("remapping", f"{' + '.join(o._type for o in members)} -> "
                    f"{op._type} '{op._name}' (one kernel, one buffer)")


def _must_run(op):
    return op._opdef.stateful or op._type in _CHECKS


def _arithmetic(result, fetch_tensors, target_ops, placement, fed, stages=None):
    from flowloom.runtime import rewrite_arithmetic, rewrite_oplist

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, aliases, result.placed_as, counts = rewrite_arithmetic.optimize(
        result.order, fetches, target_ops, placement, fed, result.placed_as, stages=stages)
    result.aliases = rewrite_oplist.compose(result.aliases, aliases)
    if counts:
        result.note("arithmetic_optimization", ", ".join(
            f"{stage} x{n}" for stage, n in sorted(counts.items())))


def _identities(result, fetch_tensors, target_ops, placement, fed):
    from flowloom.runtime import rewrite_identity, rewrite_oplist

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, aliases, result.placed_as, identities, noops = rewrite_identity.remove(
        result.order, fetches, target_ops, placement, fed, result.placed_as)
    result.aliases = rewrite_oplist.compose(result.aliases, aliases)
    if identities or noops:
        result.note("dependency_optimization", f"{identities} Identity op(s) and {noops} "
                    "NoOp(s) removed (no device copy or control edge depends on them)")


def prune_pure_control_only(order, fetch_tensors, target_ops):
    """Drops stateless ops (with a stateless fan-in) that no kept op reads as data.

    `order` is topological (producers first). An op is kept when it is fetched, a target,
    stateful, a check, has a stateful op in its fan-in, or a kept op reads one of its outputs;
    an op only waited for through control edges by kept ops and pure all the way up is dropped
    (the control edge then waits for nothing that matters).
    """
    in_plan = set(order)
    impure = set()
    for op in order:
        if op._opdef.stateful or op._type in _CHECKS or \
                any(t._op in impure for t in op._inputs) or \
                any(c in impure for c in op._control_inputs):
            impure.add(op)
    keep = set(impure) | {t._op for t in fetch_tensors} | set(target_ops)
    # Walk consumers backwards: an op is kept if a kept op reads it as data.
    for op in reversed(order):
        if op in keep:
            for t in op._inputs:
                if t._op in in_plan:
                    keep.add(t._op)
    if len(keep) == len(order):
        return order
    out = [op for op in order if op in keep]
    if _DEBUG:
        print(f"[flowloom] rewrite dependency_optimization: {len(order) - len(out)} stateless "
              "op(s) that only feed control edges are not run", file=sys.stderr, flush=True)
    return out


# Grappler's limit on a folded constant (kMaxConstantSize), and flowloom's per plan.
MAX_FOLDED_BYTES = 10 * 1024 * 1024
MAX_FOLDED_BYTES_PER_PLAN = 64 * 1024 * 1024


def fold_constants(config, steps):
    """(steps left to run, {slot: value} computed now, ops folded) for a fast-path plan."""
    if not enabled(config, "constant_folding"):
        return steps, {}, []
    import numpy as np

    known = {}
    kept = []
    folded = []
    total = 0
    for step in steps:
        op = step.op
        opdef = op._opdef
        foldable = (not opdef.stateful and op._type not in _CHECKS and
                    not op._type.startswith(("PyFunc", "EagerPyFunc")) and not step.derefs and
                    not opdef.kernel_wants_ctx and all(i in known for i in step.ins) and
                    not any(t._dtype.is_ref_dtype or t._dtype.base_dtype.name in
                            ("resource", "variant") for t in op._outputs))
        if foldable:
            try:
                r = step.fn(*[known[i] for i in step.ins])
            except Exception:  # noqa: BLE001 - a failing op fails at run time, as in TF
                r = None
                foldable = False
        if foldable:
            outs = [r] if step.nout == 1 else list(r) if step.nout else []
            arrays = (np.ndarray, np.generic)
            size = sum(o.nbytes if isinstance(o, arrays) else MAX_FOLDED_BYTES + 1
                       for o in outs)
            if len(outs) == step.nout and all(isinstance(o, arrays) and
                                              o.nbytes <= MAX_FOLDED_BYTES for o in outs) \
                    and total + size <= MAX_FOLDED_BYTES_PER_PLAN:
                total += size
                for k, o in enumerate(outs):
                    known[step.out + k] = o
                folded.append(op)
                continue
        kept.append(step)
    if _DEBUG and len(folded) > sum(op._type == "Const" for op in folded):
        print(f"[flowloom] rewrite constant_folding: {len(folded)} op(s) computed when the "
              "plan was compiled", file=sys.stderr, flush=True)
    # Only values that a kept step or a fetch can read are worth keeping.
    return kept, known, folded
