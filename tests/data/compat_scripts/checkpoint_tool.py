"""inspect_checkpoint.print_tensors_in_checkpoint_file and pywrap_tensorflow's reader."""
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.python import pywrap_tensorflow
from tensorflow.python.tools import inspect_checkpoint as chkp

folder = tempfile.mkdtemp()
with tf.variable_scope("layer"):
    w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.get_variable("b", initializer=np.array([1, -1], dtype=np.int64))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    path = tf.train.Saver().save(sess, os.path.join(folder, "model.ckpt"))
chkp.print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=True)
chkp.print_tensors_in_checkpoint_file(path, tensor_name="layer/w", all_tensors=False)
chkp.print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=False,
                                      all_tensor_names=True, count_exclude_pattern="b$")
chkp.print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=False)
reader = pywrap_tensorflow.NewCheckpointReader(path)
print(sorted(reader.get_variable_to_shape_map().items()))
print(reader.get_tensor("layer/b").tolist(), reader.has_tensor("layer/w"))
shutil.rmtree(folder)
