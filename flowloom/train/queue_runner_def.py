"""QueueRunnerDef (tensorflow/core/protobuf/queue_runner.proto), encoded by hand: five fields,
so a MetaGraphDef keeps its queue runners and TF reads them back."""

from flowloom.framework import errors
from flowloom.io.varint import decode_varint, encode_varint

# Field numbers: 1 queue_name, 2 enqueue_op_name (repeated), 3 close_op_name,
# 4 cancel_op_name, 5 queue_closed_exception_types (repeated enum error.Code, packed).


class QueueRunnerDef:
    """The fields of TF's QueueRunnerDef, with SerializeToString / FromString."""

    def __init__(self, queue_name="", enqueue_op_name=(), close_op_name="", cancel_op_name="",
                 queue_closed_exception_types=()):
        self.queue_name = queue_name
        self.enqueue_op_name = list(enqueue_op_name)
        self.close_op_name = close_op_name
        self.cancel_op_name = cancel_op_name
        self.queue_closed_exception_types = list(queue_closed_exception_types)

    def SerializeToString(self):  # noqa: N802 - the protobuf method name
        out = bytearray()

        def put(field, text):
            data = text.encode("utf-8")
            out.extend(encode_varint(field << 3 | 2))
            out.extend(encode_varint(len(data)))
            out.extend(data)

        if self.queue_name:
            put(1, self.queue_name)
        for name in self.enqueue_op_name:
            put(2, name)
        if self.close_op_name:
            put(3, self.close_op_name)
        if self.cancel_op_name:
            put(4, self.cancel_op_name)
        if self.queue_closed_exception_types:
            packed = b"".join(encode_varint(c) for c in self.queue_closed_exception_types)
            out.extend(encode_varint(5 << 3 | 2))
            out.extend(encode_varint(len(packed)))
            out.extend(packed)
        return bytes(out)

    @classmethod
    def FromString(cls, data):  # noqa: N802 - the protobuf method name
        msg = cls()
        pos, end = 0, len(data)
        while pos < end:
            key, pos = decode_varint(data, pos, end, what="QueueRunnerDef key")
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, pos = decode_varint(data, pos, end)
                if field == 5:
                    msg.queue_closed_exception_types.append(value)
                continue
            if wire != 2:
                raise errors.DataLossError(None, None, f"QueueRunnerDef: bad wire type {wire}")
            length, pos = decode_varint(data, pos, end, what="QueueRunnerDef length")
            if pos + length > end:
                raise errors.DataLossError(None, None, "QueueRunnerDef: truncated field")
            chunk = bytes(data[pos:pos + length])
            pos += length
            if field == 5:
                p = 0
                while p < len(chunk):
                    code, p = decode_varint(chunk, p)
                    msg.queue_closed_exception_types.append(code)
                continue
            text = chunk.decode("utf-8")
            if field == 1:
                msg.queue_name = text
            elif field == 2:
                msg.enqueue_op_name.append(text)
            elif field == 3:
                msg.close_op_name = text
            elif field == 4:
                msg.cancel_op_name = text
        return msg
