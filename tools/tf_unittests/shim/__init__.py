"""Runs TensorFlow's Python unit tests against flowloom: maps `tensorflow.*` module paths
onto flowloom (importer.py, modules.py) and supplies TF's test harness (test_util.py,
platform_test.py). It implements no TF behaviour: what flowloom lacks fails its test."""
