"""`tf.train.Scaffold`: the ops a managed session needs (init, ready checks, saver, summaries)."""

import logging

from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, \
    get_default_graph

_log = logging.getLogger("tensorflow")  # TF logs these lines on its logger


def _get_saver_or_default():
    """The one Saver of the SAVERS collection, else a new sharded one (added to it)."""
    from flowloom.train.saver import Saver

    savers = get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class Scaffold:
    """Structure to create or gather the pieces needed to make a model ready to train.

    Each piece not given is taken from its graph collection (INIT_OP, READY_OP, ...) or
    built with TF's default and added to it when `finalize()` runs; `finalize()` also
    finalizes the graph.

    Example:
      scaffold = tf.train.Scaffold(saver=tf.train.Saver(max_to_keep=3))
      with tf.train.MonitoredTrainingSession(scaffold=scaffold, checkpoint_dir=d) as sess:
          ...
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(a, b):
                return a if a is not None else b

            init_op = coalesce(init_op, copy_from_scaffold.init_op)
            init_feed_dict = coalesce(init_feed_dict, copy_from_scaffold._init_feed_dict)
            init_fn = coalesce(init_fn, copy_from_scaffold._user_init_fn)
            ready_op = coalesce(ready_op, copy_from_scaffold.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op,
                                               copy_from_scaffold.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, copy_from_scaffold.local_init_op)
            summary_op = coalesce(summary_op, copy_from_scaffold.summary_op)
            saver = coalesce(saver, copy_from_scaffold.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Creates the missing pieces, then finalizes the graph. Returns self."""
        from flowloom.ops.array import array_ops
        from flowloom.ops.control_flow.control_flow_ops import group
        from flowloom.summary import summary
        from flowloom import variables
        from flowloom.ops.state import resources

        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP,
                lambda: group(variables.global_variables_initializer()))
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP,
                lambda: array_ops.concat([variables.report_uninitialized_variables(),
                                          resources.report_uninitialized_resources()], 0))
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: array_ops.concat([
                    variables.report_uninitialized_variables(variables.global_variables()),
                    resources.report_uninitialized_resources(resources.shared_resources())],
                    0))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                                       summary.merge_all)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one element of `collection_key`, else `default_constructor()` (added to it)."""
        elements = get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f'More than one item in the collection "{collection_key}". '
                                   "Please indicate which one to use by passing it to the "
                                   f"tf.Scaffold constructor as:  tf.Scaffold({arg_name}=item "
                                   "to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables (epoch counters, metrics) and the tables."""
        from flowloom.ops.control_flow.control_flow_ops import group
        from flowloom.ops.lookup.tables import tables_initializer
        from flowloom import variables

        return group(variables.local_variables_initializer(), tables_initializer())
