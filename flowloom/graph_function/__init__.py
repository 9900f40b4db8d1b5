"""Graph functions: `function.Defun`, a graph's FunctionDefLibrary, and the ops that call
functions (a call op of the function's name, If, While, For, Case, PartitionedCall,
RemoteCall, SymbolicGradient)."""

from flowloom.framework import importer as _importer
from flowloom.framework import lazy_registry as _lazy_registry
from flowloom.graph_function import functional_call_ops  # noqa: F401 - registers the ops
from flowloom.graph_function import runtime as _runtime
from flowloom.graph_function.defun import Defun, from_library  # noqa: F401

_lazy_registry.note("graph_library", "function_library")
if _runtime.add_library not in _importer._library_hooks:
    _importer._library_hooks.append(_runtime.add_library)
