"""TF's checks of kernel attrs made when it constructs a kernel: when a session prepares a
run holding the op, before any input is fed or computed (so `sess.run(tf.nn.conv2d(
placeholder, placeholder, strides=[2, 1, 1, 1], ...))` fails on the strides, not on the
unfed placeholder). A check is attached to the kernel's `bind`, which the executor calls
for each op when it compiles a plan."""

from flowloom.framework import errors


def check_when_bound(kernel, check):
    """Makes `check(op)` run when a plan binding `kernel` to `op` is compiled."""
    previous = getattr(kernel, "bind", None)

    def bind(xp, op):
        check(op)
        return previous(xp, op) if previous is not None else None

    kernel.bind = bind
    return kernel


def _nc(data_format):
    return (0, 1) if data_format.startswith("NC") else (0, len(data_format) - 1)


def conv_attrs(op):
    """Conv2DOp's constructor: no strides or dilations in the batch and depth dimensions."""
    a = op._attrs
    n, c = _nc(a.get("data_format") or "NHWC")
    for name in ("strides", "dilations"):
        values = list(a.get(name) or [1, 1, 1, 1])
        if len(values) != 4:
            raise errors.InvalidArgumentError(
                None, op, f"Sliding window {name} field must specify 4 dimensions")
        if values[n] != 1 or values[c] != 1:
            raise errors.InvalidArgumentError(
                None, op, f"Current implementation does not yet support {name} in the batch "
                "and depth dimensions.")


def conv_backprop_attrs(op):
    """Conv2DBackpropInput/Filter's constructors: conv_attrs, and explicit paddings >= 0."""
    conv_attrs(op)
    if any(p < 0 for p in op._attrs.get("explicit_paddings") or []):
        raise errors.InvalidArgumentError(
            None, op, "All elements of explicit_paddings must be nonnegative")


def pool_attrs(op):
    """The pooling kernels' constructors: 4 window sizes and strides, none on the batch."""
    a = op._attrs
    ksize, strides = list(a.get("ksize") or []), list(a.get("strides") or [])
    if len(ksize) != 4:
        raise errors.InvalidArgumentError(
            None, op, "Sliding window ksize field must specify 4 dimensions")
    if len(strides) != 4:
        raise errors.InvalidArgumentError(
            None, op, "Sliding window stride field must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(
            None, op, "Pooling is not yet supported on the batch dimension.")


def install(conv2d, max_pool, avg_pool):
    check_when_bound(conv2d.kernel_fn, conv_attrs)
    for opdef in (max_pool, avg_pool):
        check_when_bound(opdef.kernel_fn, pool_attrs)
