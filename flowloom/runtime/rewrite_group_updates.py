"""Part of the `remapping` rewrite: an optimizer's updates of several variables run as one step.

A training step ends with one update op per variable (`ApplyAdam` of each weight and bias),
all reading the same scalars (learning rate, betas, epsilon, the beta powers). Each is a
dozen NumPy calls on a small array, and a NumPy call costs about the same on 3 elements as on
3,000. A kernel may offer `kernel_fn.group = (shared, make)`: `shared` are the input indices
that the members of a group read from the same slots (the scalars), `make(ops)` returns a
callable over all the members' other inputs, in member order, then the shared values, that
applies every update at once and returns True, or returns False having changed nothing (an
input it cannot take: the members then run one by one, as before). None: not groupable.

Members are update steps of one op type and attrs that follow one another in the plan, with
at most input-less variable lookups (`VariableV2`) between them, whose outputs nothing reads
and whose only dereferenced inputs are shared. The group runs where the last member ran:
what ran between them only looks up variables, so every member computes from the values it
read before. A failing member is reported as that member's op.
"""

from flowloom.framework import errors
from flowloom.runtime.op_errors import op_error

# Steps that may sit between two members: they read no input and change no value.
_BETWEEN_TYPES = frozenset(["VariableV2", "Variable"])
MIN_MEMBERS = 2


def group(steps, keep):
    """(steps, groups made): `steps` with runs of groupable update steps as one step each."""
    read = set(keep)
    for s in steps:
        read.update(s.ins)
    out, made, k = [], 0, 0
    while k < len(steps):
        members, between, end = _run_from(steps, k, read)
        if len(members) < MIN_MEMBERS:
            out.append(steps[k])
            k += 1
            continue
        grouped = _grouped(members)
        if grouped is None:
            out.append(steps[k])
            k += 1
            continue
        out.extend(between)
        out.append(grouped)
        made += 1
        k = end
    return (out, made) if made else (steps, 0)


def _spec(step):
    spec = getattr(step.op._opdef.kernel_fn, "group", None)
    if spec is None or step.nout > 1:
        return None
    return spec


def _key(step, shared, read):
    # Members agree on type, attrs, device and the slots of the shared inputs; their
    # outputs are unread and they dereference shared inputs only.
    op = step.op
    if any(step.out + i in read for i in range(step.nout)) or \
            not set(step.derefs) <= set(shared) or max(shared) >= len(step.ins):
        return None
    attrs = tuple(sorted((k, repr(v)) for k, v in op._attrs.items()
                         if not k.startswith("_")))  # (not `_class`: colocation only)
    return (op._type, attrs, id(step.device), tuple(step.ins[i] for i in shared),
            step.derefs)


def _run_from(steps, k, read):
    """(members, the steps between them, index after the last member) from step k."""
    spec = _spec(steps[k])
    if spec is None:
        return [], [], k + 1
    key = _key(steps[k], spec[0], read)
    if key is None:
        return [], [], k + 1
    members, between, pending = [steps[k]], [], []
    j = k + 1
    end = k + 1
    while j < len(steps):
        s = steps[j]
        if s.op._type in _BETWEEN_TYPES and not s.ins:
            pending.append(s)
        elif _spec(s) is spec and _key(s, spec[0], read) == key:
            members.append(s)
            between.extend(pending)
            pending = []
            end = j + 1
        else:
            break
        j += 1
    return members, between, end


def _grouped(members):
    from flowloom.runtime.executor import Step

    shared, make = _spec(members[0])
    fast = make([m.op for m in members])
    if fast is None:
        return None
    shared = list(shared)
    first = members[0]
    own = [i for i in range(len(first.ins)) if i not in shared]
    ins = [m.ins[i] for m in members for i in own] + [first.ins[i] for i in shared]
    n_own = len(own) * len(members)
    derefs = tuple(n_own + shared.index(j) for j in first.derefs)
    fns = [m.fn for m in members]
    ops = [m.op for m in members]
    width = len(first.ins)

    def run_group(*args):
        if fast(*args):
            return None
        shared_values = args[n_own:]
        for k, (fn, op) in enumerate(zip(fns, ops)):
            mine = args[k * len(own):(k + 1) * len(own)]
            member_args = [None] * width
            for i, v in zip(own, mine):
                member_args[i] = v
            for i, v in zip(shared, shared_values):
                member_args[i] = v
            try:
                fn(*member_args)
            except Exception as e:  # noqa: BLE001 - reported as the member's op
                err = op_error(op, member_args, e)
                err.names_its_op = True
                raise err from (None if isinstance(e, errors.OpError) else e)
        return None

    return Step(first.op, run_group, tuple(ins), derefs, members[-1].out, 0, first.device)
