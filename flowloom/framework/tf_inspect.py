"""TF's `tf_inspect` (tensorflow.python.util.tf_inspect): `inspect` that sees through
decorators, with the Python 2 `getargspec` that TF1 code still calls.

A function wrapped with `functools.wraps` is inspected as the function it wraps, as TF's
module unwraps its own decorators.

Example:
  tf_inspect.getargspec(tf.get_variable).args[:2]   # ['name', 'shape']
"""

import collections
import inspect

ArgSpec = collections.namedtuple("ArgSpec", ["args", "varargs", "keywords", "defaults"])
FullArgSpec = inspect.FullArgSpec

# Names that need no unwrapping (they answer the same for a wrapper and what it wraps).
currentframe = inspect.currentframe
getmembers = inspect.getmembers
isbuiltin = inspect.isbuiltin
isclass = inspect.isclass
isframe = inspect.isframe
isgenerator = inspect.isgenerator
isgeneratorfunction = inspect.isgeneratorfunction
ismodule = inspect.ismodule
stack = inspect.stack
Parameter = inspect.Parameter
Signature = inspect.Signature


def _unwrap(obj):
    return inspect.unwrap(obj) if inspect.isfunction(obj) else obj


def getfullargspec(obj):
    """`inspect.getfullargspec` of the function `obj` wraps (or of `obj`)."""
    return inspect.getfullargspec(_unwrap(obj))


def getargspec(obj):
    """The (args, varargs, keywords, defaults) of `obj`.

    Raises:
      ValueError: When the function has keyword-only arguments or annotations (as Python's
        own getargspec).
    """
    spec = getfullargspec(obj)
    if spec.kwonlyargs or spec.annotations:
        raise ValueError("Function has keyword-only parameters or annotations, use "
                         "inspect.signature() API which can support them")
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def signature(obj, follow_wrapped=True):
    return inspect.signature(obj, follow_wrapped=follow_wrapped)


def getcallargs(func, *positional, **named):
    """The arguments a call binds, by name, for the function `func` wraps."""
    return inspect.getcallargs(_unwrap(func), *positional, **named)


def getdoc(obj):
    return inspect.getdoc(_unwrap(obj))


def getfile(obj):
    return inspect.getfile(_unwrap(obj))


def getmodule(obj):
    return inspect.getmodule(_unwrap(obj))


def getsource(obj):
    return inspect.getsource(_unwrap(obj))


def getsourcefile(obj):
    return inspect.getsourcefile(_unwrap(obj))


def getsourcelines(obj):
    return inspect.getsourcelines(_unwrap(obj))


def isfunction(obj):
    return inspect.isfunction(_unwrap(obj))


def ismethod(obj):
    return inspect.ismethod(_unwrap(obj))


def isroutine(obj):
    return inspect.isroutine(_unwrap(obj))
