"""String-op programs run on TF 1.15 (record_string_ops.py writes string_ops_tf.json) and on
flowloom (tests/ops/test_string_ops_vs_tf.py). Each `<section>_program(tf)` returns
{case: result}; a result is [dtype, static shape, value] for a run, or [error class, first
line of its message] for an error (build-time ValueErrors up to their node context)."""

import numpy as np


def _plain(value):
    """JSON-able form of a fetched value: bytes as latin-1 text marked "b:", floats as repr."""
    if isinstance(value, bytes):
        return "b:" + value.decode("latin-1")
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value[()])
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, (int, str)) else f"!{type(value).__name__}"


def _error(e):
    message = getattr(e, "message", None) or str(e)
    first = message.split("\n")[0]
    if isinstance(e, ValueError):
        first = first.split(" for '")[0]
    return [type(e).__name__, first]


class _Cases:
    def __init__(self, tf):
        self.tf = tf
        self.out = {}

    def __call__(self, key, build, feed=None):
        """Builds `build()` in a fresh graph and runs it (tensors, tuples of tensors)."""
        tf = self.tf
        with tf.Graph().as_default():
            try:
                t = build()
            except Exception as e:  # noqa: BLE001 - the error is the recorded result
                self.out[key] = _error(e)
                return
            with tf.Session() as sess:
                try:
                    feeds = {} if feed is None else feed()
                    got = sess.run(t, feeds)
                except Exception as e:  # noqa: BLE001
                    self.out[key] = _error(e)
                    return
            tensors = t if isinstance(t, (tuple, list)) else [t]
            self.out[key] = [[x.dtype.name, x.shape.as_list() if x.shape.ndims is not None
                              else None] for x in tensors] + [_plain(
                                  list(got) if isinstance(got, (tuple, list)) else got)]

    def shape(self, key, build):
        """Only the static shape (rank None as null) of `build()`, or its build error."""
        with self.tf.Graph().as_default():
            try:
                t = build()
                self.out[key] = t.shape.as_list() if t.shape.ndims is not None else None
            except Exception as e:  # noqa: BLE001
                self.out[key] = _error(e)


def elementwise_program(tf):
    c = _Cases(tf)
    s = tf.strings
    c("length", lambda: s.length(["abc", "\u00e9", ""]))
    c("length_utf8", lambda: s.length(["abc", "\u00e9".encode() + b"\xff\xff", "\U0001f60a"],
                                      unit="UTF8_CHAR"))
    c("length_2d", lambda: s.length([["ab"], ["c"]]))
    c("length_bad_unit", lambda: s.length(["abc"], unit="X"))
    c.shape("length_shape", lambda: s.length(tf.placeholder(tf.string, [None, 3])))
    c("lower_ascii", lambda: s.lower(["AbC \u00c9Z"]))
    c("lower_utf8", lambda: s.lower(["AbC \u00c9 \u0130 \u03a3\u0391\u03a3"], encoding="utf-8"))
    c("upper_utf8", lambda: s.upper(["abc \u00e9 \u00df \ufb01"], encoding="utf-8"))
    c("upper_ascii", lambda: s.upper([["abc \u00e9", "x1_"]]))
    c("lower_bad_encoding", lambda: s.lower(["A"], encoding="latin1"))
    c("upper_invalid_utf8", lambda: s.upper([b"a\xffb"], encoding="utf-8"))
    c("strip", lambda: s.strip([" \t a b \n\x0b\x0c\r", "", "  ", "x"]))
    c("string_strip", lambda: tf.string_strip([[" a "], ["b\t"]]))
    c("encode_base64", lambda: tf.encode_base64([b"", b"f", b"fo", b"foo", b"\xfb\xff\xfe"]))
    c("encode_base64_pad", lambda: tf.io.encode_base64([b"", b"f", b"fo", b"foo", b"\xfb\xff"],
                                                       pad=True))
    c("decode_base64", lambda: tf.decode_base64(["", "Zg", "Zg==", "Zm8", "Zm8=", "Zm9v", "-_-_"]))
    for i, text in enumerate(["Zg=", "Zg===", "Zm9v=", "Zm9vYg", "Zm9vYg=", "Z===", "Zh==",
                              "Zm9=", "=Zg="]):
        c(f"decode_base64_{i}", lambda: tf.decode_base64([text]))
    c("decode_base64_bad", lambda: tf.decode_base64(["Zg", "a+b/"]))
    c("decode_base64_bad_len", lambda: tf.decode_base64(["Z"]))
    c("decode_base64_bad_char", lambda: tf.decode_base64(["Zm9v!"]))
    c("decode_base64_inner_pad", lambda: tf.decode_base64(["Zg==Zg=="]))
    c.shape("base64_shape", lambda: tf.decode_base64(tf.placeholder(tf.string, [2, None])))
    c("bytes_split", lambda: s.bytes_split("h\u00e9!"))
    c("bytes_split_empty", lambda: s.bytes_split(""))
    return c.out


def regex_program(tf):
    c = _Cases(tf)
    rr = tf.strings.regex_replace
    c("global", lambda: rr(["aaa bab", ""], "a", "x"))
    c("first", lambda: rr(["aaa bab"], "a", "x", replace_global=False))
    c("groups", lambda: rr(["aaa bab"], "(a)(b)", r"\2\1\0"))
    c("missing_group", lambda: rr(["abc"], "a", r"x\3y"))
    c("missing_group_first", lambda: rr(["abca"], "a", r"x\3y", replace_global=False))
    c("missing_group_global", lambda: rr(["abcabc"], "b", r"\1"))
    c("escaped_backslash", lambda: rr(["abc"], "b", r"[\\]"))
    c("bad_escape", lambda: rr(["abcb"], "b", r"[\x]"))
    c("trailing_backslash", lambda: rr(["abc"], "b", "[\\"))
    c("empty_matches", lambda: rr(["baaac"], "a*", "-"))
    c("empty_pattern_utf8", lambda: rr(["h\u00e9llo"], "", "-"))
    c("empty_pattern_bad_utf8", lambda: rr([b"h\xffllo"], "", "-"))
    c("any_byte", lambda: rr([b"h\xe9llo"], "\\C", "-"))
    c("dynamic", lambda: rr(["abc", "bbb"], tf.constant("b"), tf.constant("X")))
    c("dynamic_first", lambda: rr(["abc", "bbb"], tf.constant("b"), tf.constant("X"),
                                  replace_global=False))
    c("dynamic_bad_rank", lambda: rr(["abc"], tf.constant(["b"]), tf.constant("X")))
    c("matrix", lambda: rr([["abc", "bcb"]], "b", "X"))
    c("named_group", lambda: rr(["abc"], "(?P<n>b)", r"<\1>"))
    c("invalid_pattern", lambda: rr(["a"], "(", "x"))
    c("invalid_pattern_dynamic", lambda: rr(["a"], tf.constant("("), "x"))
    c("backreference", lambda: rr(["abc"], r"(a)\1", "X"))
    c("regex_replace_top", lambda: tf.regex_replace(["a.b.c"], r"\.", "/"))
    c.shape("shape", lambda: rr(tf.placeholder(tf.string, [None, 2]), "a", "b"))
    return c.out


def number_program(tf):
    c = _Cases(tf)
    n = tf.strings.to_number
    floats = ["1.5", " 2", "1e3", "inf", "-nan", "0x10", "  -1.25  ", "1.", ".5", "INF", "NaN",
              "-Inf", "+1.5", "1E-2", "0X1a", "007", "1e-50", "3.4e39", "1e400",
              "0.1000000000000000055511151231257827", "3.4028235e38", "1.0000000596046448",
              "-0", "1e+3"]
    for dtype in ("float32", "float64"):
        for i, v in enumerate(floats):
            c(f"float_{dtype}_{i}", lambda: n([v], out_type=getattr(tf, dtype)))
        for i, bad in enumerate(["", "abc", "1e", "infinity", "1.5f", "0x1p3", ".", "1,5",
                                 "--1", "+-1", "- 1", "0x", "nan(1)", "1 2",
                                 "12345678901234567890123456789012", "   ", "e5"]):
            c(f"bad_{dtype}_{i}", lambda: n([bad], out_type=getattr(tf, dtype)))
    ints = ["12", "-3", " 4 ", "007", "-0", "\t9\n", "2147483647", "-2147483648",
            "9223372036854775807", "-9223372036854775808"]
    for dtype in ("int32", "int64"):
        for i, v in enumerate(ints):
            c(f"int_{dtype}_{i}", lambda: n([v], out_type=getattr(tf, dtype)))
        for i, bad in enumerate(["12.5", "+5", "1_0", "", "-", "0x10", "2147483648",
                                 "-2147483649", "9223372036854775808", "1 2", " - 5", "1e3"]):
            c(f"bad_{dtype}_{i}", lambda: n([bad], out_type=getattr(tf, dtype)))
    c("default_float32", lambda: tf.string_to_number([["1", "2.5"]]))
    c("string_tensor_kw", lambda: tf.strings.to_number(string_tensor=["3"], out_type=tf.int64))
    c("bad_out_type", lambda: n(["1"], out_type=tf.string))
    c.shape("shape", lambda: n(tf.placeholder(tf.string, [None, 4])))
    return c.out


def reduce_program(tf):
    c = _Cases(tf)
    rj = tf.strings.reduce_join
    m = [["a", "b"], ["c", "d"]]
    c("all", lambda: rj(m))
    c("axis0", lambda: rj(m, axis=0))
    c("axis1_keep", lambda: rj(m, axis=1, separator="-", keep_dims=True))
    c("axis_neg", lambda: rj(m, axis=-1, separator="-"))
    c("axes_10", lambda: rj(m, axis=[1, 0], separator="-"))
    c("axes_01", lambda: rj(m, axis=[0, 1], separator="-"))
    c("axes_none", lambda: rj(m, axis=[], separator="-"))
    c("axis_out_of_range", lambda: rj(m, axis=2))
    c("axis_duplicate", lambda: rj(m, axis=[0, 0]))
    c("axis_duplicate_neg", lambda: rj(m, axis=[1, -1]))
    c("empty_inner", lambda: rj(tf.zeros([2, 0], tf.string), axis=1))
    c("empty_outer", lambda: rj(tf.zeros([0, 2], tf.string), axis=1))
    c("empty_outer0", lambda: rj(tf.zeros([0, 2], tf.string), axis=0))
    c("scalar", lambda: rj("abc"))
    c("scalar_axis", lambda: rj("abc", axis=0))
    c("rank3", lambda: rj([[["a", "b"], ["c", "d"]], [["e", "f"], ["g", "h"]]], axis=[2, 0],
                          separator=","))
    c("keep_all", lambda: rj(m, keep_dims=True))
    c("reduction_indices", lambda: tf.reduce_join(m, reduction_indices=1))
    c("keepdims", lambda: tf.reduce_join(m, 0, keepdims=True))
    c("fed_axis", lambda: rj(m, axis=tf.constant(1) + 0))
    c.shape("shape_unknown", lambda: rj(tf.placeholder(tf.string), axis=1))
    c.shape("shape_partial", lambda: rj(tf.placeholder(tf.string, [None, 3]), axis=1))
    c.shape("shape_partial_keep", lambda: rj(tf.placeholder(tf.string, [None, 3]), axis=1,
                                             keep_dims=True))
    c.shape("shape_dynamic_axis", lambda: rj(tf.placeholder(tf.string, [2, 3, 4]),
                                             axis=tf.placeholder(tf.int32)))
    c.shape("shape_dynamic_axis_keep", lambda: rj(tf.placeholder(tf.string, [2, 3, 4]),
                                                  axis=tf.placeholder(tf.int32),
                                                  keep_dims=True))
    c.shape("shape_dynamic_vector", lambda: rj(tf.placeholder(tf.string, [2, 3, 4]),
                                               axis=tf.placeholder(tf.int32, [1])))
    c.shape("shape_all", lambda: rj(tf.placeholder(tf.string, [None, 3])))
    sj = tf.strings.unsorted_segment_join
    c("segments", lambda: sj(["a", "b", "c", "d"], [1, 0, 1, 3], 4, separator="-"))
    c("segments_rows", lambda: sj([["a", "b"], ["c", "d"]], [1, 0], 3))
    c("segments_2d_ids", lambda: sj([["a", "b"], ["c", "d"]], [[1, 0], [0, 0]], 2))
    c("segments_int64", lambda: sj(["a", "b"], tf.constant([1, 1], tf.int64),
                                   tf.constant(2, tf.int64), separator="+"))
    c("segments_too_big", lambda: sj(["a", "b"], [1, 5], 3))
    c("segments_negative", lambda: sj(["a", "b"], [1, -1], 3))
    c("segments_bad_shape", lambda: sj(["a", "b"], [1], 3))
    c("segments_negative_count", lambda: sj(["a", "b"], [1, 0], -1))
    c("segments_vector_count", lambda: sj(["a", "b"], [1, 0], [2]))
    c.shape("segments_shape_ids", lambda: sj(["a", "b"], tf.placeholder(tf.int32), 2))
    c.shape("segments_shape_rows", lambda: sj(tf.placeholder(tf.string, [None, 2]), [1, 0], 2))
    c.shape("segments_shape_count", lambda: sj(tf.placeholder(tf.string, [None, 2]), [1, 0],
                                               tf.placeholder(tf.int32)))
    return c.out


def hash_program(tf):
    c = _Cases(tf)
    words = ["", "a", "ab", "abc", "hello", "hello world", "0123456789abcdef",
             "The quick brown fox jumps over the lazy dog", "\u00e9\u00e8", "x" * 200]
    c("bucket", lambda: tf.strings.to_hash_bucket(words, 1000))
    c("bucket_big", lambda: tf.string_to_hash_bucket([words], 2 ** 62))
    c("bucket_one", lambda: tf.string_to_hash_bucket(words[:3], 1))
    c("bucket_kw", lambda: tf.string_to_hash_bucket(string_tensor=["a"], num_buckets=7))
    c("bucket_zero", lambda: tf.strings.to_hash_bucket(words, 0))
    c("fast", lambda: tf.strings.to_hash_bucket_fast(words, 1000))
    c("strong", lambda: tf.strings.to_hash_bucket_strong(words, 1000, [1, 2]))
    c("strong_big_key", lambda: tf.string_to_hash_bucket_strong(
        [words], 2 ** 62, [2 ** 63 - 1, 12345678901234]))
    c("strong_bad_key", lambda: tf.strings.to_hash_bucket_strong(words, 10, [1]))
    c("strong_zero", lambda: tf.strings.to_hash_bucket_strong(words, 0, [1, 2]))
    c.shape("shape", lambda: tf.strings.to_hash_bucket(tf.placeholder(tf.string, [None, 2]), 3))
    return c.out


def unicode_program(tf):
    c = _Cases(tf)
    s = tf.strings
    text = ["G\u00f6\u00f6dnight", "\U0001f60a", "", "a\x01b"]
    bad = [b"a\xffb", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80x", b"\xf4\x90\x80\x80", b"\xc0\xaf",
           b"\xe2\x82\xac\x80"]
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        c(f"transcode_{enc}", lambda: s.unicode_transcode(text, "UTF-8", enc))
    c("transcode_from_utf16", lambda: s.unicode_transcode(
        ["\U0001f60aA".encode("utf-16-be"), b"\x00", b"\xd8\x00\x00A"], "UTF-16-BE", "UTF-8"))
    c("transcode_from_utf32", lambda: s.unicode_transcode(
        ["\U0001f60aA".encode("utf-32-be"), b"\x00\x00\x00", b"\x00\x11\x00\x00"],
        "UTF-32-BE", "UTF-8"))
    c("transcode_replace", lambda: s.unicode_transcode(bad, "UTF-8", "UTF-8"))
    c("transcode_replace_char", lambda: s.unicode_transcode(bad, "UTF-8", "UTF-8",
                                                            replacement_char=ord("?")))
    c("transcode_ignore", lambda: s.unicode_transcode(bad, "UTF-8", "UTF-8", errors="ignore"))
    c("transcode_strict", lambda: s.unicode_transcode(bad, "UTF-8", "UTF-8", errors="strict"))
    c("transcode_strict_ok", lambda: s.unicode_transcode(text, "UTF-8", "UTF-16-BE",
                                                         errors="strict"))
    c("transcode_control", lambda: s.unicode_transcode(["a\x01\x1f\x7f\tb"], "UTF-8", "UTF-8",
                                                       replace_control_characters=True))
    c("transcode_bad_encoding", lambda: s.unicode_transcode(text, "UTF-8", "UTF-7"))
    c("transcode_bad_errors", lambda: s.unicode_transcode(text, "UTF-8", "UTF-8",
                                                          errors="x"))
    c("transcode_unknown_input", lambda: s.unicode_transcode(text, "NO-SUCH", "UTF-8"))
    c("transcode_2d", lambda: s.unicode_transcode([text[:2], text[2:]], "UTF-8", "UTF-32-BE"))
    c("decode_scalar", lambda: s.unicode_decode(text[0], "UTF-8"))
    c("decode_scalar_bad", lambda: s.unicode_decode(b"a\xff\xc3b", "UTF-8"))
    c("decode_scalar_ignore", lambda: s.unicode_decode(b"a\xff\xc3b", "UTF-8", errors="ignore"))
    c("decode_scalar_strict", lambda: s.unicode_decode(b"a\xffb", "UTF-8", errors="strict"))
    c("decode_scalar_control", lambda: s.unicode_decode("a\x01b", "UTF-8",
                                                        replace_control_characters=True))
    c("decode_scalar_utf16", lambda: s.unicode_decode("\U0001f60aA".encode("utf-16-be"),
                                                      "UTF-16-BE"))
    c("decode_offsets", lambda: s.unicode_decode_with_offsets(text[0], "UTF-8"))
    c("decode_offsets_bad", lambda: s.unicode_decode_with_offsets(b"a\xff\xe2\x82\xacb",
                                                                  "UTF-8"))
    c("split_scalar", lambda: s.unicode_split(text[0], "UTF-8"))
    c("split_scalar_bad", lambda: s.unicode_split(b"a\xffb", "UTF-8"))
    c("split_offsets", lambda: s.unicode_split_with_offsets("a\u00e9\U0001f60a", "UTF-8"))
    c("encode_1d", lambda: s.unicode_encode([71, 246, 246, 100, 128522], "UTF-8"))
    c("encode_2d", lambda: s.unicode_encode([[71, 246], [128522, 65]], "UTF-16-BE"))
    c("encode_3d", lambda: s.unicode_encode([[[65, 66]], [[67, 68]]], "UTF-32-BE"))
    c("encode_empty_rows", lambda: s.unicode_encode(tf.zeros([3, 0], tf.int32), "UTF-8"))
    c("encode_invalid", lambda: s.unicode_encode([65, -1, 0xD800, 0x110000, 66], "UTF-8"))
    c("encode_invalid_ignore", lambda: s.unicode_encode([65, -1, 0xD800, 66], "UTF-8",
                                                        errors="ignore"))
    c("encode_invalid_char", lambda: s.unicode_encode([65, -1, 66], "UTF-8",
                                                      replacement_char=ord("?")))
    c("encode_surrogate", lambda: s.unicode_encode([65, 0xD800, 0xDFFF, 66], "UTF-16-BE",
                                                   replacement_char=ord("?")))
    c("encode_surrogate_ignore", lambda: s.unicode_encode([65, 0xD800, 66], "UTF-32-BE",
                                                          errors="ignore"))
    c("encode_surrogate_strict", lambda: s.unicode_encode([65, 0xD800, 66], "UTF-8",
                                                          errors="strict"))
    c("encode_bad_replacement", lambda: s.unicode_encode([65, -1], "UTF-8",
                                                         replacement_char=0xD800))
    c("encode_invalid_strict", lambda: s.unicode_encode([65, -1, 66], "UTF-8", errors="strict"))
    c("encode_scalar", lambda: s.unicode_encode(65, "UTF-8"))
    c("encode_bad_encoding", lambda: s.unicode_encode([65], "UTF-7"))
    c("decode_ignore_control", lambda: s.unicode_decode(b"a\x01\xffb", "UTF-8", errors="ignore",
                                                        replace_control_characters=True))
    c("decode_strict_control", lambda: s.unicode_decode(b"a\x01b", "UTF-8", errors="strict",
                                                        replace_control_characters=True))
    c("decode_replace_control", lambda: s.unicode_decode(b"a\x01\xffb", "UTF-8",
                                                         replacement_char=0x41,
                                                         replace_control_characters=True))
    c("encode_surrogate_utf8", lambda: s.unicode_encode([65, 0xD800, -1, 66], "UTF-8",
                                                        replacement_char=ord("?")))
    c("transcode_surrogate_replacement", lambda: s.unicode_transcode(
        [b"a\xffb"], "UTF-8", "UTF-8", replacement_char=0xD800))
    c("transcode_surrogate_replacement_16", lambda: s.unicode_transcode(
        [b"a\xffb"], "UTF-8", "UTF-16-BE", replacement_char=0xD800))
    c("transcode_bad_replacement", lambda: s.unicode_transcode(
        [b"a\xffb"], "UTF-8", "UTF-8", replacement_char=-5))
    for i, (data, enc) in enumerate([("a\u00e9", "utf8"), ("a\u00e9", "utf-16le"),
                                     (b"a\x00\xe9\x00", "UTF-16LE"),
                                     (b"a\xe9\xff", "ISO-8859-1"), (b"a\xe9\xff", "latin1"),
                                     (b"\x00\x00\x00a\x00\x00\x00\x00\x00\x11", "UTF-32LE")]):
        c(f"transcode_from_{i}", lambda: s.unicode_transcode([data], enc, "UTF-8"))
    c("decode_offsets_utf16", lambda: s.unicode_decode_with_offsets(
        "\U0001f60aA".encode("utf-16-be"), "UTF-16-BE"))
    c("decode_offsets_utf32", lambda: s.unicode_decode_with_offsets(
        b"\x00\x00\x00A\x00\x11\x00\x00\x00\x00\x00B", "UTF-32-BE"))
    c("split_utf16", lambda: s.unicode_split("\U0001f60aA".encode("utf-16-be"), "UTF-16-BE"))
    c("split_latin1", lambda: s.unicode_split("ab", "latin1"))
    c("encode_int64", lambda: s.unicode_encode(tf.constant([[65]], tf.int64), "UTF-8"))
    c.shape("encode_shape_partial", lambda: s.unicode_encode(
        tf.placeholder(tf.int32, [None, 3]), "UTF-8"))
    c.shape("encode_shape", lambda: s.unicode_encode(tf.placeholder(tf.int32, [2, 3, 4]),
                                                     "UTF-8"))
    c.shape("decode_shape", lambda: s.unicode_decode(tf.placeholder(tf.string, []), "UTF-8"))
    c.shape("transcode_shape", lambda: s.unicode_transcode(tf.placeholder(tf.string, [None]),
                                                           "UTF-8", "UTF-8"))
    return c.out


def ngrams_program(tf):
    c = _Cases(tf)
    ng = tf.strings.ngrams
    words = ["a", "b", "c", "d"]
    c("bigrams", lambda: ng(words, 2))
    c("trigrams_sep", lambda: ng(words, 3, separator="|"))
    c("widths", lambda: ng(words, [1, 3]))
    c("pad", lambda: ng(words, 2, pad_values="#"))
    c("pad_pair", lambda: ng(words, 3, pad_values=("<", ">")))
    c("pad_width", lambda: ng(words, 3, pad_values=("<", ">"), padding_width=1))
    c("too_wide", lambda: ng(["a", "b"], 3))
    c("too_wide_preserve", lambda: ng(["a", "b"], 3, preserve_short_sequences=True))
    c("matrix", lambda: ng([["a", "b", "c"], ["d", "e", "f"]], 2))
    c("matrix_pad", lambda: ng([["a", "b"], ["d", "e"]], 2, pad_values="_"))
    c("rank3", lambda: ng([[["a", "b", "c"]], [["d", "e", "f"]]], 2, separator=""))
    c("bad_width", lambda: ng(words, 0))
    c("bad_padding_width", lambda: ng(words, 2, pad_values="x", padding_width=0))
    c("padding_width_without_values", lambda: ng(words, 2, padding_width=1))
    c("bad_pad_values", lambda: ng(words, 2, pad_values=3))
    c("scalar", lambda: ng("a", 2))
    c("preserve_padded", lambda: ng(["a"], 5, pad_values="#", padding_width=1,
                                    preserve_short_sequences=True))
    c("preserve_not_needed", lambda: ng(["a", "b"], 5, pad_values="#",
                                        preserve_short_sequences=True))
    c("preserve_widths", lambda: ng(["a", "b"], [4, 5], pad_values="#", padding_width=1,
                                    preserve_short_sequences=True))
    c("empty_rows", lambda: ng(tf.zeros([2, 0], tf.string), 2, pad_values="#"))
    c("empty_rows_preserve", lambda: ng(tf.zeros([2, 0], tf.string), 2, pad_values="#",
                                        preserve_short_sequences=True))
    c("empty", lambda: ng(tf.zeros([0], tf.string), 1))
    c("wide_padding", lambda: ng(["a", "b", "c"], 2, pad_values="#", padding_width=5))
    c("widths_padded", lambda: ng(["a", "b", "c"], [3, 1, 2], separator="",
                                  pad_values=("<", ">"), padding_width=1))
    c("unknown_rank", lambda: ng(tf.placeholder(tf.string), 2))
    c.shape("shape_partial", lambda: ng(tf.placeholder(tf.string, [None, 3]), 2))
    c.shape("shape_rank3", lambda: ng(tf.placeholder(tf.string, [2, 4, 3]), 2))
    return c.out


def substr_program(tf):
    c = _Cases(tf)
    ss = tf.strings.substr
    c("range", lambda: ss(["abc"], 5, 1))
    c("vectors", lambda: ss(["abc", "de"], [1, 0], [1, 5]))
    c("rank_mismatch", lambda: ss([["abc", "de"]], [1, 0], 1))
    c("broadcast_scalar_input", lambda: ss("abc", [0, 1], [1, 2]))
    c("broadcast_columns", lambda: ss(["abc", "de"], [[1], [0]], [[1], [2]]))
    c("broadcast_bad", lambda: ss(["abc", "de", "f"], [1, 0], [1, 2]))
    c("utf8", lambda: ss(["h\u00e9llo"], 1, 2, unit="UTF8_CHAR"))
    c("utf8_negative", lambda: ss(["h\u00e9llo"], -3, 2, unit="UTF8_CHAR"))
    c("utf8_range", lambda: ss(["h\u00e9llo"], 7, 2, unit="UTF8_CHAR"))
    c("utf8_invalid", lambda: ss([b"h\xffllo"], 1, 2, unit="UTF8_CHAR"))
    c("utf8_negative_len", lambda: ss(["h\u00e9llo"], 1, -1, unit="UTF8_CHAR"))
    c("utf8_end", lambda: ss(["h\u00e9llo"], 5, 1, unit="UTF8_CHAR"))
    c("utf8_from_start", lambda: ss(["h\u00e9llo"], -5, 1, unit="UTF8_CHAR"))
    c("utf8_before_start", lambda: ss(["h\u00e9llo"], -6, 1, unit="UTF8_CHAR"))
    c("utf8_leading_trail", lambda: ss([b"\x80abc"], 0, 1, unit="UTF8_CHAR"))
    c("utf8_leading_trail_3", lambda: ss([b"\x80abc"], 3, 1, unit="UTF8_CHAR"))
    c("utf8_leading_trail_neg", lambda: ss([b"\x80abc"], -1, 1, unit="UTF8_CHAR"))
    c("utf8_trails", lambda: ss([b"a\x80\x80bc"], 1, 1, unit="UTF8_CHAR"))
    c("utf8_trails_neg", lambda: ss([b"a\x80\x80bc"], -3, 2, unit="UTF8_CHAR"))
    c("negative_pos", lambda: ss(["abc"], -1, 5))
    c("before_start", lambda: ss(["abc"], -4, 1))
    c("negative_len", lambda: ss(["abc"], 1, -1))
    c("at_end", lambda: ss(["abc"], 3, 1))
    c("int64", lambda: ss(["abc"], tf.constant(1, tf.int64), tf.constant(1, tf.int64)))
    c("mixed_types", lambda: ss(["abc"], 1, tf.constant(1, tf.int64)))
    c("bad_unit", lambda: ss(["abc"], 1, 1, unit="X"))
    c("top_level", lambda: tf.substr([["abcd"]], 1, 2))
    c.shape("shape_unknown", lambda: ss(tf.placeholder(tf.string), 1, 1))
    c.shape("shape_partial", lambda: ss(tf.placeholder(tf.string, [None, 2]), [1, 2], [1, 1]))
    return c.out


SECTIONS = ("elementwise", "regex", "number", "reduce", "hash", "unicode", "ngrams",
            "substr")


def program(tf):
    return {name: globals()[name + "_program"](tf) for name in SECTIONS}
