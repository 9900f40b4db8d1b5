"""`tf.VariableSynchronization` and `tf.VariableAggregation` (TF 1.15's enums; the values are
those of VariableDef's proto enums), and the rule that fills in a variable's defaults."""

import enum


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synced: AUTO, NONE, ON_WRITE or ON_READ."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregationV2(enum.Enum):
    """How a distributed variable's updates are aggregated (TF 2's enum)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, VariableAggregation):
            return int(self.value) == int(other.value)
        return False


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated (`ONLY_FIRST_TOWER` is the
    deprecated alias of `ONLY_FIRST_REPLICA`)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3

    def __hash__(self):
        return hash(self.value)


def validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable,
                                                   name):
    """(synchronization, aggregation, trainable) with TF's defaults: AUTO, NONE, and
    trainable unless the variable is synced ON_READ.

    Raises:
      ValueError: For a value that is not one of the enums' members.
    """
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif type(aggregation) is VariableAggregation:
        pass  # already a member (what get_variable passes on to Variable)
    elif not isinstance(aggregation, (VariableAggregation, VariableAggregationV2)):
        try:
            aggregation = VariableAggregationV2(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: "
                             f"{name}") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    elif type(synchronization) is not VariableSynchronization:
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(f"Invalid variable synchronization mode: {synchronization} for "
                             f"variable: {name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable
