"""A kernel's failure as TF reports it: the error class, the op, its inputs and user line."""

import linecache

from flowloom.framework import errors


def _shape_str(a):
    from flowloom.runtime.executor import Ref  # the executor imports this module

    if type(a) is Ref:  # a variable's buffer shows the shape of the value it holds
        a = a.value
    s = getattr(a, "shape", None)
    return "?" if s is None else "[%s]" % ",".join(str(d) for d in s)


def op_error(op, args, exc):
    """Wraps a kernel failure in TF's error class, naming the op, its inputs and user line."""
    if getattr(exc, "names_its_op", False):
        return exc  # a fused kernel's error, already in the words of the op that failed
    explain = getattr(op._opdef.kernel_fn, "explain_error", None)
    if explain is not None and not isinstance(exc, errors.OpError):
        # A directly bound kernel's failure, in the words of the kernel it stands for.
        exc = explain(args, exc) or exc
    if isinstance(exc, errors.OpError):
        cls = type(exc)
        message = exc.message
    else:
        message = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, (ValueError, IndexError, TypeError, FloatingPointError,
                            ZeroDivisionError, KeyError)):
            cls = errors.InvalidArgumentError
        elif isinstance(exc, MemoryError):
            cls = errors.ResourceExhaustedError
            message = f"OOM when running {op._type}: {message}"
        elif isinstance(exc, OSError) and exc.errno is not None:
            mapped = errors.error_from_os_error(exc)
            cls, message = type(mapped), mapped.message
        elif isinstance(exc, NotImplementedError):
            cls = errors.UnimplementedError
        else:
            cls = errors.InternalError
    where = ""
    if op._traceback:
        f, line, fn = op._traceback
        src = linecache.getline(f, line).strip()
        where = f'\n  created at: File "{f}", line {line}, in {fn}' + (f"\n    {src}" if src else "")
    shapes = ", ".join(_shape_str(a) for a in args)
    full = (f"{message}\n\t [[{{{{node {op._name}}}}}]] (op '{op._name}' of type {op._type}, "
            f"input shapes: [{shapes}]){where}")
    err = cls(None, op, full)
    return err
