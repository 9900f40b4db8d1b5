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


_DATASET_NAMES = ("iris", "boston", "mnist", "dbpedia", "synthetic_circles",
                  "synthetic_spirals")


def load_dataset(name, size="small", test_with_fake_data=False):
    """`tf.contrib.learn.datasets.load_dataset`: "mnist" reads MNIST from `MNIST-data`
    (flowloom.datasets.mnist.load_mnist); the other TF names raise NotImplementedError.

    Raises:
      ValueError: a name TF does not know.
    """
    if name not in _DATASET_NAMES:
        raise ValueError("Name of dataset is not found: %s" % name)
    if name != "mnist":
        raise LearnNameNotProvided("tf.contrib.learn.datasets.load_dataset(%r) is not "
                                   "provided by flowloom (only 'mnist')" % name)
    return _mnist().load_mnist()


class _Datasets(_types.ModuleType):
    def __getattr__(self, name):
        if name == "mnist":
            return _mnist()
        if name == "load_dataset":
            return load_dataset
        raise LearnNameNotProvided("tf.contrib.learn.datasets.%s is not provided by flowloom"
                                   % name)


datasets = _Datasets("flowloom.contrib.learn.datasets")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise LearnNameNotProvided("tf.contrib.learn.%s is not provided by flowloom (only "
                               "tf.contrib.learn.preprocessing and datasets.mnist are)" % name)
