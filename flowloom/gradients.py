"""`tf.gradients` and the gradient registry, re-exported for the public namespace.

Importing this module also lets `Session.run` fetch and feed `IndexedSlices`.
"""

from flowloom.framework.gradients_impl import (AggregationMethod, NotDifferentiable,  # noqa: F401
                                               RegisterGradient, UnconnectedGradients,
                                               get_gradient_function, gradients, hessians,
                                               no_gradient)
from flowloom.framework.indexed_slices import (IndexedSlices, IndexedSlicesValue,  # noqa: F401
                                               indexed_slices_to_tensor)
from flowloom.framework import indexed_slices as _indexed_slices
from flowloom.runtime import session as _session

# Ops whose modules are not imported elsewhere but whose gradients tf.gradients may build.
from flowloom.ops import (broadcast_ops, conv_grad_ops, data_flow_ops, scan_ops,  # noqa: F401,E402
                          segment_ops)

_session.register_session_run_conversion_functions(
    IndexedSlices, _indexed_slices.session_fetch, _indexed_slices.session_feed)
