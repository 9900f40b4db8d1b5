"""TemporaryVariable / DestroyTemporaryVariable give what TF 1.15 gave
(tests/data/temporary_variable_tf.json, made by tests/data/record_temporary_variable.py): one
buffer per step under its var_name, AlreadyExistsError and NotFoundError from the step
container, which the next run finds empty."""

import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.ops.state import temporary_variable_ops
from flowloom.runtime import step_container
from tests.ops.recorded import run_program

GOT, EXPECTED = run_program("temporary_variable_programs", "temporary_variable_tf.json",
                            tf, temporary_variable_ops)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert GOT[key] == EXPECTED[key]


def test_step_container_names_and_errors():
    step = step_container.StepContainer()
    step.create("v", "T", 1)
    with pytest.raises(errors.AlreadyExistsError, match=r"Resource __per_step_\d+/v/T$"):
        step.create("v", "T", 2)
    assert step.delete("v", "T") == 1
    with pytest.raises(errors.NotFoundError, match="v/T does not exist"):
        step.delete("v", "T")


def test_outside_a_run_there_is_no_step_container():
    with pytest.raises(errors.InternalError, match="No per-step resource manager"):
        step_container.current()
