"""`tf.metrics`: streaming metrics (value, update_op) on local variables."""

from flowloom.metrics.metrics_impl import (accuracy, auc, false_negatives,  # noqa: F401
                                           false_negatives_at_thresholds, false_positives,
                                           false_positives_at_thresholds, mean, mean_absolute_error,
                                           mean_iou, mean_per_class_accuracy,
                                           mean_relative_error, mean_squared_error, mean_tensor,
                                           percentage_below, precision, precision_at_thresholds,
                                           recall, recall_at_thresholds, root_mean_squared_error,
                                           true_negatives, true_negatives_at_thresholds,
                                           true_positives, true_positives_at_thresholds)
from flowloom.metrics.metrics_extra import (mean_cosine_distance,  # noqa: F401
                                            sensitivity_at_specificity,
                                            specificity_at_sensitivity)
from flowloom.metrics.metrics_at_k import (average_precision_at_k, precision_at_k,  # noqa: F401
                                           precision_at_top_k, recall_at_k, recall_at_top_k,
                                           sparse_average_precision_at_k,
                                           sparse_precision_at_k)
