"""Comparing protos in tests: MetaGraphDefs (TF's test_util.assert_meta_graph_protos_equal)
and the number normalisation of assertProtoEquals."""


def normalized_numbers(pb):
    """A copy of message `pb` with its float fields rounded to 6 decimals and its double
    fields to 7 (in nested messages and map values too), as TF's assertProtoEquals compares
    protos that differ: `bucket_limit: 9.93809490288` written in a test equals the double
    9.938094902880803 a kernel computed."""
    out = type(pb)()
    out.CopyFrom(pb)
    _normalize(out)
    return out


def _normalize(pb):
    from google.protobuf import descriptor

    fd = descriptor.FieldDescriptor
    for desc, values in pb.ListFields():
        repeated = desc.is_repeated if hasattr(desc, "is_repeated") else \
            desc.label == fd.LABEL_REPEATED  # (protobuf < 5 has only `label`)
        digits = {fd.TYPE_FLOAT: 6, fd.TYPE_DOUBLE: 7}.get(desc.type)
        if digits is not None:
            if repeated:
                rounded = [round(float(v), digits) for v in values]
                pb.ClearField(desc.name)
                getattr(pb, desc.name).extend(rounded)
            else:
                setattr(pb, desc.name, round(float(values), digits))
        elif desc.type == fd.TYPE_MESSAGE:
            if desc.message_type.GetOptions().map_entry:
                if desc.message_type.fields_by_number[2].type == fd.TYPE_MESSAGE:
                    for v in values.values():
                        _normalize(v)
            else:
                for v in (values if repeated else [values]):
                    _normalize(v)


def assert_meta_graph_protos_equal(tester, a, b):
    """Asserts MetaGraphDefs `a` and `b` are equal in `tester` (a TestCase): the same
    collections (entries of proto-form collections compared one by one), equal GraphDefs
    (node order ignored) and versions, and equal other fields. Clears `collection_def` and
    `graph_def` of both, as TF's does."""
    from flowloom.test.test_util import assert_equal_graph_def

    tester.assertEqual(set(a.collection_def), set(b.collection_def))
    for key in a.collection_def:
        a_value, b_value = a.collection_def[key], b.collection_def[key]
        tester.assertEqual(a_value.WhichOneof("kind"), b_value.WhichOneof("kind"), key)
        tester.assertEqual(a_value, b_value, key)
    a.ClearField("collection_def")
    b.ClearField("collection_def")
    assert_equal_graph_def(a.graph_def, b.graph_def, checkpoint_v2=True)
    tester.assertProtoEquals(a.graph_def.versions, b.graph_def.versions)
    a.ClearField("graph_def")
    b.ClearField("graph_def")
    tester.assertProtoEquals(a, b)
