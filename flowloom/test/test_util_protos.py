"""Comparing MetaGraphDefs in tests (TF's test_util.assert_meta_graph_protos_equal)."""


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
