"""`tf.name_scope(name, default_name, values)`: the context most library functions open
around the ops they make (a wrapper's `random_uniform/`, an operator's `add/`)."""

from flowloom.framework.graph import _graph_of, _valid_scope_names, get_default_graph


class name_scope:  # noqa: N801 - TF's spelling
    """`tf.name_scope(name, default_name=None, values=None)`: a context that prefixes op names.

    Example:
      with tf.name_scope('hidden') as scope:
          a = tf.constant(5, name='alpha')   # a.name == 'hidden/alpha:0'
    """

    __slots__ = ("_name", "_default_name", "_values", "_graph_ctx", "_scope_ctx", "_state",
                 "_old")

    def __init__(self, name, default_name=None, values=None):
        if not (default_name is None or isinstance(default_name, str)):
            raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. "
                            "You likely meant to pass this into the `values` kwarg.")
        self._name = default_name if name is None else name
        self._default_name = default_name
        self._values = values

    @property
    def name(self):
        return self._name

    def __enter__(self):
        name = self._name
        if name is None and self._values is not None:
            raise ValueError(f"At least one of name ({name}) and default_name "
                             f"({self._default_name}) must be provided.")
        default = get_default_graph()
        g = _graph_of(self._values, default) if self._values else default
        if g is not default:
            self._graph_ctx = g.as_default()
            self._graph_ctx.__enter__()
        else:
            self._graph_ctx = None
        if name.__class__ is str and name in _valid_scope_names and name[-1] != "/":
            # A name that passed Graph.name_scope's checks before (most scopes a library
            # opens): the same unique name and stack change, without its context object.
            self._scope_ctx = None
            self._state = state = g._thread_local
            self._old = state.name_stack
            state.name_stack = new = g.unique_name(name)
            return new + "/"
        self._scope_ctx = g.name_scope(name)
        return self._scope_ctx.__enter__()

    def __exit__(self, *exc):
        if self._scope_ctx is None:
            self._state.name_stack = self._old
        else:
            self._scope_ctx.__exit__(*exc)
        if self._graph_ctx is not None:
            self._graph_ctx.__exit__(*exc)
        return False
