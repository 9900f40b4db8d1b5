"""`tf.make_template`: a function that creates its variables on the first call and reuses
them on every later call (TF 1.15's Template, graph mode)."""

import functools
import traceback

from flowloom.variable_scope import (_get_unique_variable_scope, _pure_variable_scope,
                                     variable_scope)
from flowloom.framework.graph import GraphKeys, get_collection, get_collection_ref
from flowloom.platform import tf_logging


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """Wraps `func_` so that it shares its variables between calls.

    The first call enters a fresh variable scope named `name_` (made unique, or exactly
    `unique_name_`) without reuse and creates the variables `func_` gets with
    `tf.get_variable`; later calls re-enter that scope with reuse=True. Creating a new
    trainable variable on a later call raises ValueError.

    Args:
      name_: The name of the scope (made unique with `_N`).
      func_: The function to wrap.
      create_scope_now_: Capture the scope now rather than at the first call.
      unique_name_: Use exactly this scope name (not made unique).
      custom_getter_: A custom getter for the scope's variables.
      **kwargs: Keyword arguments bound to `func_`.

    Returns:
      A `Template` (callable like `func_`).

    Raises:
      ValueError: If `name_` is None.
    """
    return make_template_internal(name_, func_, create_scope_now_, unique_name_,
                                  custom_getter_, create_graph_function_=False, **kwargs)


def make_template_internal(name_, func_, create_scope_now_=False, unique_name_=None,
                           custom_getter_=None, create_graph_function_=False, **kwargs):
    """`make_template` with TF's internal option `create_graph_function_`: True (run
    `func_` as a TF2 graph function, eager `function.defun`) raises NotImplementedError."""
    if kwargs:
        func_ = functools.wraps(func_)(functools.partial(func_, **kwargs))
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_, create_graph_function=create_graph_function_)


def _skip_common_stack_elements(stacktrace, base_case):
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """A function wrapped to share variables between calls (see `make_template`)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None, create_graph_function=False):
        if create_graph_function:
            raise NotImplementedError("Template(create_graph_function=True): TF2 graph "
                                      "functions (eager function.defun)")
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        if create_scope_now:
            with _pure_variable_scope(
                    self._unique_name or _get_unique_variable_scope(self._name),
                    custom_getter=self._custom_getter) as scope:
                self._variable_scope = scope
        else:
            self._variable_scope = None
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args, kwargs):
        try:
            if self._variables_created:
                vars_at_start = len(get_collection_ref(GraphKeys.GLOBAL_VARIABLES))
                trainable_at_start = len(get_collection_ref(GraphKeys.TRAINABLE_VARIABLES))
                result = self._func(*args, **kwargs)
                trainable = get_collection_ref(GraphKeys.TRAINABLE_VARIABLES)
                if trainable_at_start != len(trainable):
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{trainable[trainable_at_start:]}")
                variables = get_collection_ref(GraphKeys.GLOBAL_VARIABLES)
                if vars_at_start != len(variables):
                    tf_logging.info("New variables created when calling a template after the "
                                    "first time, perhaps you used tf.Variable when you meant "
                                    "tf.get_variable: %s", variables[vars_at_start:])
            elif self._first_call:
                self._first_call = False
                try:
                    result = self._func(*args, **kwargs)
                except BaseException:
                    self._first_call = True
                    raise
                self._variables_created = True
            else:  # called again from another thread while the first call runs
                result = self._func(*args, **kwargs)
            return result
        except Exception as exc:
            first = exc.args[0] if exc.args else ""
            trace = "".join(_skip_common_stack_elements(self._stacktrace,
                                                        traceback.format_stack()))
            exc.args = (f"{first}\n\noriginally defined at:\n{trace}",) + tuple(exc.args[1:])
            raise

    def __call__(self, *args, **kwargs):
        if self._variable_scope:
            with variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name,
                               custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self):
        """The name given to this Template."""
        return self._name

    @property
    def func(self):
        """The wrapped function."""
        return self._func

    @property
    def variable_scope(self):
        """The variable scope of this Template (None before the first call, unless created
        with create_scope_now_)."""
        return self._variable_scope

    @property
    def var_scope(self):
        """Same as `variable_scope`."""
        return self._variable_scope

    @property
    def variable_scope_name(self):
        """The scope's name with a trailing "/" (None before there is a scope)."""
        if self._variable_scope:
            name = self._variable_scope.name
            return name if not name or name[-1] == "/" else name + "/"
        return None

    @property
    def variables(self):
        """The global and local variables the Template created."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self):
        """The trainable variables the Template created."""
        if self._variables_created:
            return get_collection(GraphKeys.TRAINABLE_VARIABLES, self.variable_scope_name)
        return []

    @property
    def non_trainable_variables(self):
        """The global variables the Template created that are not trainable."""
        trainable = set(self.trainable_variables)
        return [x for x in self.global_variables if x not in trainable]

    @property
    def global_variables(self):
        """The global variables the Template created."""
        if self._variables_created:
            return get_collection(GraphKeys.GLOBAL_VARIABLES, self.variable_scope_name)
        return []

    @property
    def local_variables(self):
        """The local variables the Template created."""
        if self._variables_created:
            return get_collection(GraphKeys.LOCAL_VARIABLES, self.variable_scope_name)
        return []

    @property
    def weights(self):
        """Same as `variables`."""
        return self.variables

    @property
    def trainable_weights(self):
        """Same as `trainable_variables`."""
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        """Same as `non_trainable_variables`."""
        return self.non_trainable_variables
