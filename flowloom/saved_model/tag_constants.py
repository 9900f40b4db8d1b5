"""The standard MetaGraph tags of a SavedModel (TF's `tf.saved_model.tag_constants`)."""

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
