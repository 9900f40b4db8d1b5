"""tf.test.TestCase.assertProtoEquals on protos that differ in their last digits, run on TF
1.15 (record_proto_equals.py) and flowloom (tests/test_proto_equals.py): per case, whether
the assertion passes."""

CASES = {
    # (expected text, actual text) of a Summary: histo fields are doubles, simple_value float.
    "double_12_digits": ("value { histo { bucket_limit: 9.93809490288 } }",
                         "value { histo { bucket_limit: 9.938094902880803 } }"),
    "double_off_in_8th_decimal": ("value { histo { sum: 1.0 } }",
                                  "value { histo { sum: 1.00000004 } }"),
    "double_off_in_6th_decimal": ("value { histo { sum: 1.0 } }",
                                  "value { histo { sum: 1.000001 } }"),
    "float_off_in_7th_decimal": ("value { simple_value: 0.5 }",
                                 "value { simple_value: 0.5000001 }"),
    "float_off_in_5th_decimal": ("value { simple_value: 0.5 }",
                                 "value { simple_value: 0.50001 }"),
    "repeated_doubles": ("value { histo { bucket: 1.00000001 bucket: 2.0 } }",
                         "value { histo { bucket: 1.0 bucket: 2.00000002 } }"),
    "different_tags": ("value { tag: 'a' }", "value { tag: 'b' }"),
}


def program(test_case_class, summary_pb2, text_format):
    class T(test_case_class):
        def runTest(self):  # noqa: N802 - unittest's name
            pass

    t = T()
    r = {}
    for key, (expected, actual) in CASES.items():
        message = text_format.Parse(actual, summary_pb2.Summary())
        try:
            t.assertProtoEquals(expected, message)
            r[key] = True
        except AssertionError:
            r[key] = False
    return r
