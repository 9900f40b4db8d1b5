"""Checks against TF 1.15's recorded outputs: a programs module of tests/data (functions
`<section>_program(tf)` returning {key: value}) run on flowloom, compared key by key with the
JSON its recorder wrote by running the same module on TF 1.15."""

import importlib
import json
import os
import sys

import numpy as np

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def close(got, want):
    """Recorded values equal: floats to 1e-5, lists element by element, and build-time
    ValueErrors up to their node context (TF 1.15 and flowloom word it differently)."""
    if isinstance(want, list) and len(want) == 2 and want[0] == "ValueError" and got and \
            got[0] == "ValueError":
        return got[1].split(" for '")[0] == want[1].split(" for '")[0]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return all(close(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6)) or got == want
    return got == want


def run_program(programs, json_name, *args):
    """(what `<programs>.program(*args)` gives on flowloom's modules `args`, through JSON as
    its record went; TF 1.15's record of the same program, `json_name`), for a programs module
    of one section."""
    if DATA not in sys.path:
        sys.path.insert(0, DATA)
    module = importlib.import_module(programs)
    with open(os.path.join(DATA, json_name)) as f:
        expected = json.load(f)
    return json.loads(json.dumps(module.program(*args))), expected


class Recording:
    """The programs module `programs` and TF 1.15's record of it, `json_name`."""

    def __init__(self, programs, json_name):
        if DATA not in sys.path:
            sys.path.insert(0, DATA)
        self.programs = importlib.import_module(programs)
        with open(os.path.join(DATA, json_name)) as f:
            self.expected = json.load(f)
        self._got = {}

    def cases(self, *sections):
        """(section, key) pairs of the named sections (all when none are named)."""
        return [(s, k) for s in (sections or sorted(self.expected))
                for k in sorted(self.expected[s])]

    def check(self, section, key):
        if section not in self._got:
            run = getattr(self.programs, section + "_program")
            self._got[section] = json.loads(json.dumps(run(tf)))
        got, want = self._got[section][key], self.expected[section][key]
        assert close(got, want), (got, want)
