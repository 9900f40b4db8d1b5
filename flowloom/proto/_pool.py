"""flowloom's own protobuf descriptor pool.

flowloom's schemas carry TensorFlow's message names (`tensorflow.GraphDef`, ...) so that the
bytes are TF's. Registered in protobuf's default pool they would collide with TensorFlow's own
when both are imported in one process; in this pool they do not, and the wire format is the
same. The well-known types flowloom's schemas use (Any, wrappers) are added here too.
"""

from google.protobuf import any_pb2, descriptor_pool, wrappers_pb2

POOL = descriptor_pool.DescriptorPool()
for _well_known in (any_pb2, wrappers_pb2):
    POOL.AddSerializedFile(_well_known.DESCRIPTOR.serialized_pb)
