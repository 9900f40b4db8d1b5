"""TF 1.15's canned estimators over feature columns: DNN, linear and wide & deep models.

`tf.estimator` re-exports the names of `__all__`; heads and optimizers live in head.py,
heads.py and optimizers.py.
"""

from flowloom.estimator.canned.dnn import DNNClassifier, DNNRegressor
from flowloom.estimator.canned.dnn_linear_combined import (DNNLinearCombinedClassifier,
                                                           DNNLinearCombinedRegressor)
from flowloom.estimator.canned.linear import LinearClassifier, LinearRegressor
from flowloom.estimator.canned.parsing_utils import (classifier_parse_example_spec,
                                                     regressor_parse_example_spec)

__all__ = ["DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
           "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
           "classifier_parse_example_spec", "regressor_parse_example_spec"]
