"""QueueRunnerDef: TF's message (flowloom/proto/queue_runner.proto), which a MetaGraphDef's
`queue_runners` collection holds, so that TF reads flowloom's queue runners back and back."""

from flowloom.proto.queue_runner_pb2 import QueueRunnerDef  # noqa: F401
