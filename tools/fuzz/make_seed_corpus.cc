// Writes the fuzz targets' seed corpora (tools/xla fuzz runs it first):
// random modules from the differential fuzzer's generator (hlo_fuzz) plus
// the HLO files named on the command line, as HLO text, as HloModuleProto,
// as literal and shape protos of their arguments, and as service requests
// that compile, run and transfer them.
//   make_seed_corpus OUT_DIR [FILE.hlo ...]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/xla.pb.h"
#include "tools/hlo_fuzz/fuzz_arguments.h"
#include "tools/hlo_fuzz/module_generator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

constexpr int kGeneratedModules = 200;
constexpr int64_t kMaxSeedLiteralBytes = 4096;

// The service_request_fuzzer's method numbers (its first input byte).
enum Method : char {
  kCompile = 0,
  kExecute = 1,
  kExecuteGraph = 2,
  kTransferToServer = 4,
  kTransferToClient = 5,
  kDeconstructTuple = 7,
  kGetShape = 8,
  kGetComputationShape = 9,
  kComputeConstantGraph = 10,
  kTransferToInfeed = 11,
  kExecuteAsync = 16,
};

class CorpusWriter {
 public:
  explicit CorpusWriter(std::filesystem::path root) : root_(std::move(root)) {}

  void Write(const std::string& target, const std::string& bytes) {
    const std::filesystem::path dir = root_ / target;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / absl::StrCat("seed_", count_[target]++), std::ios::binary) << bytes;
  }
  void Write(const std::string& target, char prefix, const google::protobuf::MessageLite& message) {
    Write(target, std::string(1, prefix) + message.SerializeAsString());
  }
  int total() const {
    int n = 0;
    for (const auto& [target, count] : count_) n += count;
    return n;
  }

 private:
  std::filesystem::path root_;
  std::map<std::string, int> count_;
};

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_seed_corpus OUT_DIR [FILE.hlo ...]\n");
    return 2;
  }
  CorpusWriter out(argv[1]);
  std::vector<std::string> texts;
  for (int i = 0; i < kGeneratedModules; ++i) texts.push_back(hlo_fuzz::GenerateModule(i).text);
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    out.Write("hlo_text", texts[i]);
    absl::StatusOr<HloModuleProto> proto = ParseHloModuleToProto(texts[i]);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(texts[i]);
    if (!proto.ok() || !module.ok()) continue;
    out.Write("hlo_proto", proto->SerializeAsString());
    std::vector<Literal> arguments = hlo_fuzz::MakeArguments(**module, i);
    for (const Literal& argument : arguments) {
      // Small literals only: a fuzzer's time goes to many short inputs.
      if (ShapeUtil::ByteSizeOfStorage(argument.shape()) > kMaxSeedLiteralBytes) continue;
      out.Write("literal_proto", 0, argument.ToProto());
      out.Write("literal_proto", 1, argument.shape().ToProto());
    }
    if (i % 4 != 0) continue;  // requests for a quarter of the modules
    CompileRequest compile;
    *compile.mutable_computation() = *proto;
    out.Write("service_request", kCompile, compile);
    CompileRequest compile_text;
    compile_text.set_hlo_text(texts[i]);
    out.Write("service_request", kCompile, compile_text);
    ExecuteGraphRequest graph;
    *graph.mutable_computation() = *proto;
    for (size_t a = 0; a < arguments.size(); ++a) graph.add_arguments()->set_handle(1 + a % 3);
    out.Write("service_request", kExecuteGraph, graph);
    GetComputationShapeRequest shape;
    *shape.mutable_computation() = *proto;
    out.Write("service_request", kGetComputationShape, shape);
    ComputeConstantGraphRequest constant;
    *constant.mutable_computation() = *proto;
    out.Write("service_request", kComputeConstantGraph, constant);
    for (const Literal& argument : arguments) {
      TransferToServerRequest transfer;
      *transfer.mutable_literal() = argument.ToProto();
      out.Write("service_request", kTransferToServer, transfer);
      TransferToInfeedRequest infeed;
      *infeed.mutable_literal() = argument.ToProto();
      out.Write("service_request", kTransferToInfeed, infeed);
    }
  }
  // Requests on the handles every fuzzed session starts with (buffers 1..3,
  // executable 1).
  for (int handle = 1; handle <= 3; ++handle) {
    TransferToClientRequest fetch;
    fetch.mutable_data()->set_handle(handle);
    out.Write("service_request", kTransferToClient, fetch);
    GetShapeRequest shape;
    shape.mutable_data()->set_handle(handle);
    out.Write("service_request", kGetShape, shape);
    DeconstructTupleRequest tuple;
    tuple.mutable_tuple_handle()->set_handle(handle);
    out.Write("service_request", kDeconstructTuple, tuple);
  }
  ExecuteRequest execute;
  execute.mutable_handle()->set_handle(1);
  execute.add_arguments()->set_handle(1);
  execute.add_arguments()->set_handle(1);
  out.Write("service_request", kExecute, execute);
  ExecuteAsyncRequest async;
  *async.mutable_execute() = execute;
  out.Write("service_request", kExecuteAsync, async);
  execute.set_transfer_result(true);
  out.Write("service_request", kExecute, execute);
  std::printf("make_seed_corpus: %d seeds in %s\n", out.total(), argv[1]);
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) { return xla::Main(argc, argv); }
