"""Timeline.analyze_step_stats gives what TF 1.15 gave on the same StepStats
(tests/data/timeline_analysis_tf.json, made by tests/data/record_timeline_analysis.py), and
finds a peak on a traced run."""

import pytest

import flowloom as tf
from flowloom.client import timeline
from flowloom.proto import step_stats_pb2
from tests.ops.recorded import run_program

GOT, EXPECTED = run_program("timeline_analysis_programs", "timeline_analysis_tf.json",
                            step_stats_pb2, timeline)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert GOT[key] == EXPECTED[key]


def test_a_traced_run_has_a_cpu_peak():
    meta = tf.RunMetadata()
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([[1.0] * 64] * 64)
        sess.run(tf.matmul(x, x) + 1.0,
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    peak = timeline.Timeline(meta.step_stats).analyze_step_stats().allocator_maximums["cpu"]
    assert peak.num_bytes >= 2 * 64 * 64 * 4 and peak.timestamp > 0
