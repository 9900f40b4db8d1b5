"""Regenerates flowloom/proto/*_pb2.py from flowloom/proto/*.proto.

Dev-time only: needs `pip install grpcio-tools`; the generated modules need
only the `protobuf` runtime.

grpcio-tools stamps each module with a check that the runtime is at least the
protoc version it bundles. The generated code itself only uses
`descriptor_pool.AddSerializedFile` and `builder.BuildTopDescriptorsAndMessages`,
which exist since protobuf 3.20, so the check is removed here to keep
`protobuf>=4.21` working.

The modules register their schemas in flowloom's own descriptor pool
(flowloom/proto/_pool.py), not protobuf's default one, so that flowloom and
TensorFlow (whose messages have the same `tensorflow.*` names) can be imported in
one process; the serialized descriptors, hence the wire format, are unchanged.

Usage (from the repository root):
  python tools/gen_protos.py
"""

import glob
import os
import re
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO_DIR = os.path.join(REPO_ROOT, "flowloom", "proto")

# Matches the runtime-version block grpcio-tools (protobuf >= 5.26) emits.
_VERSION_CHECK = re.compile(
    r"from google\.protobuf import runtime_version as _runtime_version\n"
    r"|_runtime_version\.ValidateProtobufRuntimeVersion\(\n(?:.*\n)*?\)\n"
)


_DEFAULT_POOL = "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile("
_OWN_POOL = "DESCRIPTOR = _flowloom_pool.POOL.AddSerializedFile("
_IMPORTS_END = "# @@protoc_insertion_point(imports)\n"


def _postprocess(path):
    """Drops the runtime version check and moves the module into flowloom's own pool."""
    with open(path) as f:
        source = f.read()
    stripped = _VERSION_CHECK.sub("", source)
    if "_runtime_version" in stripped:
        raise RuntimeError(f"{path}: unrecognised runtime version check; update gen_protos.py")
    if stripped.count(_DEFAULT_POOL) != 1 or _IMPORTS_END not in stripped:
        raise RuntimeError(f"{path}: unrecognised generated code; update gen_protos.py")
    stripped = stripped.replace(_DEFAULT_POOL, _OWN_POOL).replace(
        _IMPORTS_END, _IMPORTS_END + "from flowloom.proto import _pool as _flowloom_pool\n", 1)
    with open(path, "w") as f:
        f.write(stripped)


def main():
    from grpc_tools import protoc  # dev-time dependency

    well_known = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    protos = sorted(glob.glob(os.path.join(PROTO_DIR, "*.proto")))
    for old in glob.glob(os.path.join(PROTO_DIR, "*_pb2.py")):
        os.remove(old)
    args = ["protoc", f"-I{REPO_ROOT}", f"-I{well_known}", f"--python_out={REPO_ROOT}"]
    args += [os.path.relpath(p, REPO_ROOT) for p in protos]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    for generated in sorted(glob.glob(os.path.join(PROTO_DIR, "*_pb2.py"))):
        _postprocess(generated)
    init = os.path.join(PROTO_DIR, "__init__.py")
    if not os.path.exists(init):
        with open(init, "w") as f:
            f.write(
                '"""Protobuf schemas, wire-compatible with TensorFlow\'s (package `tensorflow`)."""\n'
            )
    print(f"generated {len(protos)} modules in {os.path.relpath(PROTO_DIR, REPO_ROOT)}")


if __name__ == "__main__":
    main()
