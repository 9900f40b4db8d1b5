"""Stacks (StackV2 family): how TF1 keeps forward values of a while_loop for its gradient
loop. The forward loop pushes a value each iteration; the backward loop pops them in reverse.

A StackV2 op creates a fresh stack each time it runs (once per Session.run when created
outside loops); its handle is that Python list.
"""

from flowloom.framework import errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop


class StackResource:
    __slots__ = ("name", "elem_type", "max_size", "items")

    def __init__(self, name, elem_type, max_size):
        self.name = name
        self.elem_type = elem_type
        self.max_size = max_size
        self.items = []


StackV2 = defop("StackV2", inputs=["max_size: int32"], outputs=["handle: resource"],
                attrs={"elem_type": None, "stack_name": ""}, stateful=True)
StackV2.shape(lambda op: tensor_shape.TensorShape([2]))  # TF 1.15's TwoElementOutput


@StackV2.kernel
def _(xp, max_size, *, elem_type, stack_name, ctx):
    return StackResource(stack_name or ctx.op._name, elem_type, int(max_size))


StackPushV2 = defop("StackPushV2", inputs=["handle: resource", "elem: T"], outputs=["output: T"],
                    attrs={"swap_memory": False}, stateful=True)
StackPushV2.shape(lambda op: op._inputs[1]._shape)


@StackPushV2.kernel
def _(xp, handle, elem):
    if 0 <= handle.max_size <= len(handle.items):
        raise errors.InvalidArgumentError(
            None, None, f"Stack[{handle.name}] overflowed its max_size ({handle.max_size})")
    handle.items.append(elem)
    return elem


StackPopV2 = defop("StackPopV2", inputs=["handle: resource"], outputs=["elem: elem_type"],
                   attrs={"elem_type": None}, stateful=True)
StackPopV2.shape(lambda op: tensor_shape.unknown_shape())


@StackPopV2.kernel
def _(xp, handle, *, elem_type):
    if not handle.items:
        raise errors.InvalidArgumentError(
            None, None, "Stack is empty.")
    return handle.items.pop()


StackCloseV2 = defop("StackCloseV2", inputs=["handle: resource"], stateful=True)
StackCloseV2.shape(lambda op: [])


@StackCloseV2.kernel
def _(xp, handle):
    handle.items = []
    return None


NotDifferentiable("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2")


def stack_v2(max_size, elem_type, stack_name="", name=None):
    return apply_op("StackV2", (max_size,), name=name, elem_type=elem_type,
                    stack_name=stack_name).outputs[0]


def stack_push_v2(handle, elem, swap_memory=False, name=None):
    return apply_op("StackPushV2", (handle, elem), name=name,
                    swap_memory=swap_memory).outputs[0]


def stack_pop_v2(handle, elem_type, name=None):
    return apply_op("StackPopV2", (handle,), name=name, elem_type=elem_type).outputs[0]
