"""What a variable update returns and what the reads of a variable see, in and out of
loops and conds, as TF 1.15 (tests/data/record_variable_updates.py ->
variable_updates_tf.json): a resource update returns the variable after it (TF's
_UnreadVariable: `read_value()` reads again after the update); a cond branch returning a
variable returns its value; Assign writes into the variable's buffer, so a read that
aliases it (a loop-invariant `v/read`) sees the new value."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import variable_updates_program as program  # noqa: E402

with open(os.path.join(DATA, "variable_updates_tf.json")) as f:
    TF = json.load(f)


@pytest.mark.parametrize("name", sorted(TF))
def test_program_as_tf(name):
    assert getattr(program, name)(tf) == TF[name]
