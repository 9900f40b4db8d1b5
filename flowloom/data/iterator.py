"""`tf.data.Iterator`: one-shot, initializable, reinitializable and feedable iterators."""

from flowloom.data import one_shot, structure
from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.proto import attr_value_pb2

# A one-shot iterator whose dataset cannot be a factory function takes it as an input.
_NO_FACTORY = attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList())
GLOBAL_ITERATORS = "iterators"


class Iterator(structure.HasElementSpec):
    """Pulls elements of a Dataset inside Session.run.

    `get_next()` returns the next element's tensors (raising `OutOfRangeError` at run time
    when the dataset is exhausted); `initializer` (re)starts it.
    """

    def __init__(self, handle, initializer, element_spec):
        self._handle = handle
        self._initializer = initializer
        self.element_spec = element_spec
        # As TF 1.15: every iterator's resource is in the "iterators" collection (where
        # tf.data.experimental.CheckpointInputPipelineHook finds what to save).
        handle.graph.add_to_collection(GLOBAL_ITERATORS, handle)

    @staticmethod
    def _one_shot(dataset):
        spec = dataset.element_spec
        name = one_shot.factory(dataset)
        if name is not None:  # TF's form: the dataset comes from calling the factory
            handle = apply_op("OneShotIterator", ([],), shared_name="", **_attrs(spec),
                              dataset_factory=attr_value_pb2.AttrValue(
                                  func=attr_value_pb2.NameAttrList(name=name))).outputs[0]
        else:
            handle = apply_op("OneShotIterator", ([dataset._variant],), shared_name="",
                              dataset_factory=_NO_FACTORY, **_attrs(spec)).outputs[0]
        return Iterator(handle, None, spec)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """A reinitializable iterator for elements of this structure; `make_initializer(ds)`
        gives the op that points it at a dataset."""
        spec = structure.from_types_and_shapes(output_types, output_shapes)
        handle = apply_op("IteratorV2", (), shared_name=shared_name or "",
                          **_attrs(spec)).outputs[0]
        return Iterator(handle, None, spec)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """A feedable iterator: the iterator named by `string_handle` (a string placeholder
        fed with another iterator's `string_handle()` value)."""
        spec = structure.from_types_and_shapes(output_types, output_shapes)
        from flowloom.framework.ops import convert_to_tensor

        handle = apply_op("IteratorFromStringHandleV2",
                          (convert_to_tensor(string_handle, dtype=dtypes.string),),
                          **_attrs(spec)).outputs[0]
        return Iterator(handle, None, spec)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """The op that (re)starts this iterator on `dataset` (of a compatible structure)."""
        if not structure.compatible(self.element_spec, dataset.element_spec):
            raise TypeError(f"Expected output types {self.output_types} and shapes "
                            f"{self.output_shapes} but got dataset with output types "
                            f"{dataset.output_types} and shapes {dataset.output_shapes}.")
        with name_scope(name, "make_initializer"):
            return apply_op("MakeIterator", (dataset._variant, self._handle), name=name)

    def get_next(self, name=None):
        """The next element: tensors in the element's structure."""
        flat = apply_op("IteratorGetNext", (self._handle,), name=name,
                        **_attrs(self.element_spec)).outputs
        return structure.pack(self.element_spec, flat)

    def string_handle(self, name=None):
        """A string tensor naming this iterator, for `from_string_handle`."""
        return apply_op("IteratorToStringHandle", (self._handle,), name=name).outputs[0]



def _attrs(spec):
    if any(isinstance(s, structure.DatasetSpec) for s in structure.flatten(spec)):
        raise NotImplementedError("an iterator over elements that are datasets (window()): "
                                  "flat_map them into tensors first")
    return structure.op_attrs(spec)


def make_one_shot_iterator(dataset):
    """`tf.data.make_one_shot_iterator(dataset)` (TF 1.13+)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """`tf.data.make_initializable_iterator(dataset)` (TF 1.13+)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


