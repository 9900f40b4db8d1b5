"""Straight-line plans compiled to one Python function: a line per step, a local per slot.

`executor.run_plan` interprets a fast-path plan (one host device, no control flow) as a loop
over `Step` objects reading and writing a list of slots. Once a plan has run twice (a plan
that runs again is worth the compile), it is compiled here into a function of the feeds
whose body calls each step's bound kernel with local variables:

    def run(feeds):
        v0, = feeds
        v1 = f0(v0, k3)
        v2 = f1(v1, k4)
        del v1
        return [v2]

Kernels (`f*`), folded constants (`k*`) and the ops whose variable references are read
(`o*`) are closure cells, so one step costs one call plus local loads and stores: no
list of slots, no per-step attribute lookups. A kernel that reads folded constants may be replaced by
its specialization on them (runtime/kernel_specialize.py). Slots are freed after their last reader with
`del`, as the interpreter frees them. Only generated identifiers appear in the source (no
op name, no attr value), so nothing taken from a graph is ever compiled as code.

A kernel whose op has outputs that no step reads and no fetch returns may be replaced by its
variant that leaves them uncomputed (`kernel_fn.without_outputs`: a reader's keys when only
its values are used).

A kernel that raises leaves the function's frame in the traceback: its line number names the
step, and its locals hold the step's inputs, so the failure is reported exactly as the
interpreter reports it (`executor.op_error`), at no cost while nothing fails.
"""

import functools

import numpy as np

from flowloom.framework import errors
from flowloom.runtime import kernel_specialize

# Plans longer than this stay interpreted: compiling a huge function takes longer than the
# runs it would save on a plan that size.
MAX_COMPILED_STEPS = 50000


class CompiledRunner:
    """A compiled plan: `runner(feed_values)` returns the fetched slots' values."""

    __slots__ = ("fn", "code", "line_steps")

    def __init__(self, fn, line_steps):
        self.fn = fn
        self.code = fn.__code__
        # line number -> (step, deref_index or None, input names)
        self.line_steps = line_steps

    def __call__(self, feed_values):
        return self.fn(feed_values)

    def failed_step(self, exc):
        """(step, args, raised_by_deref) of the step whose line raised `exc`, or None."""
        tb = exc.__traceback__
        found = None
        while tb is not None:
            if tb.tb_frame.f_code is self.code:
                found = tb
            tb = tb.tb_next
        if found is None:
            return None
        entry = self.line_steps.get(found.tb_lineno)
        if entry is None:
            return None
        step, is_deref, names = entry
        local = found.tb_frame.f_locals
        args = [local.get(n) for n in names]
        return step, args, is_deref


def compile_runner(steps, num_feeds, fetch_slots, constants, deref):
    """Compiles fast-path `steps` into a `CompiledRunner`, or returns None when it cannot.

    Args:
      steps: the plan's `Step`s in execution order (their `frees` already set).
      num_feeds: how many leading slots the feeds fill.
      fetch_slots: the slots whose values the run returns.
      constants: {slot: value} computed when the plan was compiled (folded constants).
      deref: `executor.deref`, the read of a variable reference by an op.

    Returns:
      A `CompiledRunner`, or None when the plan is too long or reads a slot nothing writes.
    """
    if len(steps) > MAX_COMPILED_STEPS:
        return None
    cells = {}  # closure name -> value
    names = {}  # slot -> how the body reads it
    for slot in range(num_feeds):
        names[slot] = f"v{slot}"
    for slot, value in constants.items():
        if slot not in names:
            names[slot] = f"k{slot}"
            cells[f"k{slot}"] = value
    body = []
    line_steps = {}
    read = set(fetch_slots).union(*(step.ins for step in steps))
    # The function starts on line 1 of the source: `def _make(...)`; then the unpacking of
    # the cells (one line), `def run(feeds):`, the feeds' unpacking, then the steps.
    first_line = 4
    if num_feeds:
        body.append("(" + "".join(f"v{s}, " for s in range(num_feeds)) + ") = feeds")
    for k, step in enumerate(steps):
        try:
            args = [names[i] for i in step.ins]
        except KeyError:
            return None
        fn = f"f{k}"
        cells[fn] = step.fn
        if constants and getattr(step.device, "xp", None) is np and not step.derefs:
            cells[fn] = kernel_specialize.specialize(step.op, step.fn,
                                                     [constants.get(i) for i in step.ins])
        if cells[fn] is step.fn and step.nout > 1:
            cells[fn] = _without_unread(step, read)
        if step.derefs:
            op = f"o{k}"
            cells[op] = step.op
            cells["_deref"] = deref
            for j in step.derefs:
                temp = f"d{k}_{j}"
                line_steps[first_line + len(body)] = (step, True, list(args))
                body.append(f"{temp} = _deref({args[j]}, {op})")
                args[j] = temp
        call = f"{fn}({', '.join(args)})"
        line_steps[first_line + len(body)] = (step, False, list(args))
        if _passes_input(step):
            call = args[0]  # (an Identity: its output is its input, no call needed)
        if step.nout == 0:
            body.append(call)
        elif step.nout == 1:
            body.append(f"v{step.out} = {call}")
        else:
            outs = "".join(f"v{step.out + i}, " for i in range(step.nout))
            body.append(f"({outs}) = {call}")
        for i in range(step.out, step.out + step.nout):
            names[i] = f"v{i}"
        freed = [names[i] for i in step.frees if names.get(i, "").startswith("v")]
        if freed:
            body.append("del " + ", ".join(freed))
    try:
        fetched = [names[i] for i in fetch_slots]
    except KeyError:
        return None
    body.append("return [" + ", ".join(fetched) + "]")
    cell_names = sorted(cells)
    src = ["def _make(_cells):",
           "    (" + "".join(f"{n}, " for n in cell_names) + ") = _cells" if cell_names
           else "    pass",
           "    def run(feeds):"]
    src.extend("        " + line for line in body)
    src.append("    return run")
    namespace = {}
    code = compile("\n".join(src), "<flowloom compiled plan>", "exec")
    exec(code, namespace)  # noqa: S102 - source built from generated identifiers only
    fn = namespace["_make"]([cells[n] for n in cell_names])
    return CompiledRunner(fn, line_steps)


def _without_unread(step, read):
    # A kernel may offer a variant that leaves outputs nobody reads uncomputed (their slots
    # get a placeholder that no step and no fetch sees): `kernel_fn.without_outputs(fn,
    # unread)` takes the bound kernel and the unread output indices, and returns the
    # variant or None.
    fn = step.fn
    without = getattr(getattr(step.op, "_opdef", None), "kernel_fn", None)
    without = getattr(without, "without_outputs", None)
    unread = frozenset(i for i in range(step.nout) if step.out + i not in read)
    if without is None or not unread:
        return fn
    return without(fn, unread) or fn


def _passes_input(step):
    # A host kernel that returns its one input (marked `returns_its_input`), bound with no
    # attrs: the step is an assignment.
    fn = step.fn
    return (type(fn) is functools.partial and len(fn.args) == 1 and not fn.keywords and
            getattr(fn.func, "returns_its_input", False) and step.nout == 1 and
            len(step.ins) == 1 and not step.derefs)


def run_compiled(runner, feed_values, op_error):
    """Runs `runner`; a kernel's failure becomes the error the interpreter would raise."""
    try:
        return runner.fn(feed_values)
    except Exception as e:  # noqa: BLE001 - every kernel failure becomes a TF error
        found = runner.failed_step(e)
        if found is None:
            raise
        step, args, is_deref = found
        if is_deref:
            raise
        raise op_error(step.op, args, e) from (None if isinstance(e, errors.OpError) else e)
