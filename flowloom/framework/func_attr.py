"""Function-valued attrs: a function (a Defun's `_DefinedFunction`, anything with
`add_to_graph` and `name`) passed as an op's attr is added to the default graph's library and
stored as TF stores it, a NameAttrList naming it; `get_attr` then gives that NameAttrList."""


def as_func_attr(function, graph):
    """Adds `function` to `graph`; returns the NameAttrList naming it."""
    from flowloom.proto import attr_value_pb2  # (protobuf loads only when a program needs it)

    function.add_to_graph(graph)
    return attr_value_pb2.NameAttrList(name=function.name)
