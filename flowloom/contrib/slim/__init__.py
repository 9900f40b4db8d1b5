"""`tf.contrib.slim`: the layers, arg scopes, variable helpers, losses and training loop of
TF-Slim, under slim's names (`slim.conv2d`, `slim.arg_scope`, `slim.losses`,
`slim.learning.create_train_op`, `slim.get_variables_to_restore`, ...)."""

from flowloom.contrib import losses, metrics  # noqa: F401
from flowloom.contrib.framework.arg_scope import (add_arg_scope, arg_scope,  # noqa: F401
                                                  arg_scope_func_key, arg_scoped_arguments,
                                                  current_arg_scope, has_arg_scope)
from flowloom.contrib.framework.variables import (  # noqa: F401
    VariableDeviceChooser, add_model_variable, assign_from_checkpoint, assign_from_checkpoint_fn,
    assign_from_values, assign_from_values_fn, filter_variables, get_local_variables,
    get_model_variables, get_trainable_variables, get_unique_variable, get_variable_full_name,
    get_variables, get_variables_by_name, get_variables_by_suffix, get_variables_to_restore,
    global_variable, local_variable, model_variable, variable, zero_initializer)
from flowloom.contrib.layers import (  # noqa: F401
    apply_regularization, avg_pool2d, batch_norm, bias_add, conv2d, conv2d_transpose,
    convolution, convolution2d, convolution2d_transpose, dropout, embed_sequence, flatten,
    fully_connected, l1_l2_regularizer, l1_regularizer, l2_regularizer, layer_norm, linear,
    max_pool2d, one_hot_encoding, relu, relu6, repeat, softmax, stack, sum_regularizer,
    unit_norm, variance_scaling_initializer, xavier_initializer, xavier_initializer_conv2d)
from flowloom.contrib.slim import learning  # noqa: F401
from flowloom.contrib.framework import variables  # noqa: F401
