#!/usr/bin/python3
"""A Python client of the xla_service daemon: the proof that a non-C++
client works. Compiles the axpy module twice, from HLO text
(CompileRequest.hlo_text) and from StableHLO MLIR text
(CompileRequest.stablehlo_text), transfers arguments, executes, and reads
the results back, using only the gRPC service definition. Malformed text of
either kind must be rejected with INVALID_ARGUMENT.

Stubs come from proto/ (bazel build //proto:service_py); run with
PYTHONPATH pointing at the folder that holds proto/*_pb2.py:

  PYTHONPATH=bazel-bin /usr/bin/python3 tools/python/xla_client_example.py \
      --target=127.0.0.1:PORT [--auth_token=TOKEN]

Prints each result as "hlo: f32[4] {12, 24, 36, 48}" (and
"stablehlo: ...") and exits 0 when both match the expected axpy values
and both malformed modules were rejected, 1 otherwise.
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

# The same computation as StableHLO text; `@main` is the entry point.
AXPY_STABLEHLO = """
func.func @main(%alpha: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %ab = stablehlo.broadcast_in_dim %alpha, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %ax = stablehlo.multiply %ab, %x : tensor<4xf32>
  %r = stablehlo.add %ax, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

BROKEN = {
    "hlo": "HloModule broken\nENTRY e { ROOT x = f32[] bogus() }",
    # Errors are located: "stablehlo_text:2:8: stablehlo.nope: unknown op".
    "stablehlo": "func.func @main() {\n  %0 = stablehlo.nope : tensor<f32>\n  return\n}\n",
}


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

    def compile_hlo(self, text):
        return self.call("Compile", xla_pb2.CompileRequest(hlo_text=text))

    def compile_stablehlo(self, text):
        """StableHLO MLIR text with one entry point (@main, or its only
        function); import errors are INVALID_ARGUMENT "stablehlo_text:LINE:COL: ..."."""
        return self.call("Compile", xla_pb2.CompileRequest(stablehlo_text=text))

    def close(self):
        self.call("CloseSession", xla_service_pb2.CloseSessionRequest())
        self.channel.close()


def format_f32(literal):
    dims = ",".join(str(d) for d in literal.shape.dimensions)
    values = ", ".join("%g" % v for v in literal.f32s)
    return "f32[%s] {%s}" % (dims, values)


def run_axpy(compiled, session, one_request):
    """Runs a compiled axpy on its arguments and returns the result literal.

    With one_request, Execute returns the (small) result itself
    (transfer_result); otherwise it returns a handle to fetch."""
    handles = []
    for values, dims in (([2.0], []), ([1, 2, 3, 4], [4]), ([10, 20, 30, 40], [4])):
        response = session.call(
            "TransferToServer", xla_pb2.TransferToServerRequest(literal=f32_literal(values, dims)))
        handles.append(response.data)
    executed = session.call(
        "Execute", xla_pb2.ExecuteRequest(handle=compiled.handle, arguments=handles, transfer_result=one_request))
    if one_request:
        return executed.result_literal
    result = session.call("TransferToClient", xla_pb2.TransferToClientRequest(data=executed.output))
    return result.literal


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", required=True, help="host:port of the daemon")
    parser.add_argument("--auth_token", default="")
    args = parser.parse_args()

    ok = True
    session = Session(args.target, args.auth_token)
    try:
        compilers = {"hlo": session.compile_hlo, "stablehlo": session.compile_stablehlo}
        for kind, text in (("hlo", AXPY_HLO), ("stablehlo", AXPY_STABLEHLO)):
            # The HLO program's result is fetched with a second call, the
            # StableHLO one's comes back with the Execute.
            literal = run_axpy(compilers[kind](text), session, one_request=(kind == "stablehlo"))
            print("%s: %s" % (kind, format_f32(literal)))
            ok = ok and list(literal.f32s) == [12.0, 24.0, 36.0, 48.0]
        for kind, text in BROKEN.items():
            try:
                compilers[kind](text)
                print("%s: expected an error for a bad module" % kind, file=sys.stderr)
                ok = False
            except grpc.RpcError as error:
                print("bad %s rejected: %s: %s" % (kind, error.code().name, error.details()), file=sys.stderr)
                ok = ok and error.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        session.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
