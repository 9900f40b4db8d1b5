"""Runs a TF1 program on flowloom before `flowloom run` exists: `tensorflow[.x]` -> `flowloom[.x]`.

A stop-gap for the corpus harness only; the table says which runner each run used.
Usage: python fl_shim_run.py script.py [args...]
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

import flowloom


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname == "tensorflow" or fullname.startswith("tensorflow."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        target = "flowloom" + spec.name[len("tensorflow"):]
        try:
            return importlib.import_module(target)
        except ImportError:
            raise ModuleNotFoundError("No module named '%s'" % spec.name, name=spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Alias())
sys.modules["tensorflow"] = flowloom
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
