"""Python callables as ops: py_func, numpy_function, py_function."""
