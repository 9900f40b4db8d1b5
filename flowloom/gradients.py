"""`tf.gradients` and the gradient registry, re-exported for the public namespace.

Importing this module also lets `Session.run` fetch and feed `IndexedSlices`.
"""

from flowloom.framework import indexed_slices as _indexed_slices
from flowloom.framework.custom_gradient import custom_gradient  # noqa: F401
from flowloom.framework.gradients_impl import (AggregationMethod,  # noqa: F401
                                               NotDifferentiable, RegisterGradient,
                                               UnconnectedGradients, get_gradient_function,
                                               gradients, hessians, no_gradient)
from flowloom.framework.indexed_slices import (IndexedSlices,  # noqa: F401
                                               IndexedSlicesValue, indexed_slices_to_tensor)
# Op families that only gradients build: importing them registers their ops.
from flowloom.ops.array import broadcast_ops, data_flow_ops  # noqa: F401
from flowloom.ops.nn import conv_grad_ops  # noqa: F401
from flowloom.ops.math import scan_ops, segment_ops  # noqa: F401
from flowloom.runtime import session as _session

_session.register_session_run_conversion_functions(
    IndexedSlices, _indexed_slices.session_fetch, _indexed_slices.session_feed)
