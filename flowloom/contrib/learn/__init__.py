"""`tf.contrib.learn`: only `preprocessing` (VocabularyProcessor, ...) and `datasets.mnist`.
The rest of tf.contrib.learn (Estimator, DNNClassifier, Experiment, ...) raises
NotImplementedError naming it."""

import types as _types

from flowloom.contrib.learn import preprocessing  # noqa: F401


class LearnNameNotProvided(NotImplementedError, AttributeError):
    """A tf.contrib.learn name flowloom does not provide."""


def _mnist():
    try:
        from flowloom.datasets import mnist
    except ImportError as e:
        raise LearnNameNotProvided("tf.contrib.learn.datasets.mnist needs flowloom's MNIST "
                                   "reader (flowloom.datasets.mnist)") from e
    return mnist


class _Datasets(_types.ModuleType):
    def __getattr__(self, name):
        if name == "mnist":
            return _mnist()
        raise LearnNameNotProvided("tf.contrib.learn.datasets.%s is not provided by flowloom"
                                   % name)


datasets = _Datasets("flowloom.contrib.learn.datasets")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise LearnNameNotProvided("tf.contrib.learn.%s is not provided by flowloom (only "
                               "tf.contrib.learn.preprocessing and datasets.mnist are)" % name)
