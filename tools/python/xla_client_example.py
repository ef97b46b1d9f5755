#!/usr/bin/python3
"""A Python client of the xla_service daemon: the proof that a non-C++
client works. Compiles an HLO text module, transfers arguments, executes,
and reads the result back, using only the gRPC service definition.

Stubs come from proto/ (bazel build //proto:service_py); run with
PYTHONPATH pointing at the folder that holds proto/*_pb2.py:

  PYTHONPATH=bazel-bin /usr/bin/python3 tools/python/xla_client_example.py \
      --target=127.0.0.1:PORT [--auth_token=TOKEN]

Prints the result as "f32[4] {12, 24, 36, 48}" and exits 0 when it matches
the expected axpy values, 1 otherwise.
"""
import argparse
import sys

import grpc

from proto import xla_data_pb2
from proto import xla_pb2
from proto import xla_service_pb2
from proto import xla_service_pb2_grpc

AXPY_HLO = """
HloModule axpy
ENTRY axpy {
  alpha = f32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ab = f32[4] broadcast(alpha), dimensions={}
  ax = f32[4] multiply(ab, x)
  ROOT r = f32[4] add(ax, y)
}
"""


def f32_literal(values, dims):
    literal = xla_data_pb2.LiteralProto()
    literal.shape.element_type = xla_data_pb2.F32
    literal.shape.dimensions.extend(dims)
    literal.shape.layout.minor_to_major.extend(reversed(range(len(dims))))
    literal.f32s.extend(values)
    return literal


class Session:
    """Opens a session on construction; every call carries its id."""

    def __init__(self, target, auth_token=""):
        self.channel = grpc.insecure_channel(target)
        self.stub = xla_service_pb2_grpc.XlaServiceStub(self.channel)
        self.metadata = [("xla-auth-token", auth_token)] if auth_token else []
        response = self.stub.OpenSession(
            xla_service_pb2.OpenSessionRequest(client_name="python-example"), metadata=self.metadata)
        self.metadata = self.metadata + [("xla-session", response.session_id)]

    def call(self, method, request):
        return getattr(self.stub, method)(request, metadata=self.metadata)

    def close(self):
        self.call("CloseSession", xla_service_pb2.CloseSessionRequest())
        self.channel.close()


def format_f32(literal):
    dims = ",".join(str(d) for d in literal.shape.dimensions)
    values = ", ".join("%g" % v for v in literal.f32s)
    return "f32[%s] {%s}" % (dims, values)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", required=True, help="host:port of the daemon")
    parser.add_argument("--auth_token", default="")
    args = parser.parse_args()

    session = Session(args.target, args.auth_token)
    try:
        compiled = session.call("Compile", xla_pb2.CompileRequest(hlo_text=AXPY_HLO))
        handles = []
        for values, dims in (([2.0], []), ([1, 2, 3, 4], [4]), ([10, 20, 30, 40], [4])):
            response = session.call(
                "TransferToServer", xla_pb2.TransferToServerRequest(literal=f32_literal(values, dims)))
            handles.append(response.data)
        executed = session.call("Execute", xla_pb2.ExecuteRequest(handle=compiled.handle, arguments=handles))
        result = session.call("TransferToClient", xla_pb2.TransferToClientRequest(data=executed.output))
        text = format_f32(result.literal)
        print(text)
        try:
            session.call("Compile", xla_pb2.CompileRequest(hlo_text="HloModule broken\nENTRY e { ROOT x = f32[] bogus() }"))
            print("expected an error for a bad module", file=sys.stderr)
            return 1
        except grpc.RpcError as error:
            print("bad module rejected: %s" % error.code().name, file=sys.stderr)
    finally:
        session.close()
    return 0 if list(result.literal.f32s) == [12.0, 24.0, 36.0, 48.0] else 1


if __name__ == "__main__":
    sys.exit(main())
