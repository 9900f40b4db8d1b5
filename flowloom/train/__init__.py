"""`tf.train`: optimizers, learning-rate schedules, the global step, moving averages."""

from flowloom.train.adam import AdamOptimizer  # noqa: F401
from flowloom.train.adaptive import (AdadeltaOptimizer, AdagradOptimizer,  # noqa: F401
                                     RMSPropOptimizer)
from flowloom.train.gradient_descent import (GradientDescentOptimizer,  # noqa: F401
                                             MomentumOptimizer)
from flowloom.train.learning_rate_decay import (exponential_decay,  # noqa: F401
                                                inverse_time_decay, piecewise_constant,
                                                polynomial_decay)
from flowloom.train.moving_averages import (ExponentialMovingAverage,  # noqa: F401
                                            assign_moving_average)
from flowloom.train.optimizer import Optimizer  # noqa: F401
from flowloom.train.training_util import (assert_global_step, create_global_step,  # noqa: F401
                                          get_global_step, get_or_create_global_step,
                                          global_step)
