#include "tests/client_test_base.h"

#include <map>

#include "absl/strings/match.h"
#include "client/grpc_client.h"
#include "tools/daemon_process.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/client_library.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_module.h"
#include "xla/primitive_util.h"

namespace xla {
namespace test {

const std::vector<std::string>& TestBackends() {
  // One entry per backend (or remote client) the op tests run on. The
  // environment variable XLA_TEST_BACKENDS ("interpreter,cpu") overrides the
  // list for a run.
  static const auto* backends = [] {
    auto* list = new std::vector<std::string>{
        "interpreter",
        // The CPU (LLVM JIT) backend, in process like the interpreter.
        "cpu",
        // The same service over gRPC: a real xla_service daemon process.
        "grpc:interpreter",
    };
    if (const char* env = std::getenv("XLA_TEST_BACKENDS"); env != nullptr && *env != '\0') {
      *list = absl::StrSplit(env, ',', absl::SkipEmpty());
    }
    return list;
  }();
  return *backends;
}

absl::StatusOr<Client*> GetClientForBackend(const std::string& name) {
  if (absl::StartsWith(name, "grpc:")) {
    // One daemon and one remote session per backend for the whole test binary.
    static auto* remotes = new std::map<std::string, std::pair<std::unique_ptr<DaemonProcess>, std::unique_ptr<GrpcClient>>>();
    auto& remote = (*remotes)[name];
    if (remote.second == nullptr) {
      absl::StatusOr<std::unique_ptr<DaemonProcess>> daemon =
          DaemonProcess::Start({"--backend=" + name.substr(5)});
      if (!daemon.ok()) return daemon.status();
      absl::StatusOr<std::unique_ptr<GrpcClient>> client = GrpcClient::Connect((*daemon)->target());
      if (!client.ok()) return client.status();
      remote.first = std::move(*daemon);
      remote.second = std::move(*client);
    }
    return static_cast<Client*>(remote.second.get());
  }
  absl::StatusOr<LocalClient*> local = ClientLibrary::GetOrCreateLocalClient(name);
  if (!local.ok()) return local.status();
  return static_cast<Client*>(*local);
}

std::string BackendParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

namespace {

template <typename T>
bool FloatBitsMatch(T e, T a) {
  double de = static_cast<double>(e), da = static_cast<double>(a);
  if (std::isnan(de) || std::isnan(da)) return std::isnan(de) && std::isnan(da);
  return de == da && std::signbit(de) == std::signbit(da);
}

template <typename T>
std::string ElementString(T v) {
  Literal l = Literal::CreateR0<T>(v);
  return l.ToStringWithoutShape();
}

}  // namespace

absl::Status ExactlyEqual(const Literal& expected, const Literal& actual) {
  if (!expected.shape().Compatible(actual.shape())) {
    return absl::InvalidArgumentError(absl::StrCat("shape mismatch: expected ", expected.shape().ToString(),
                                                   ", actual ", actual.shape().ToString(), " (actual value ",
                                                   actual.ToString().substr(0, 400), ")"));
  }
  if (expected.shape().IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      absl::Status s = ExactlyEqual(expected.tuple_elements()[i], actual.tuple_elements()[i]);
      if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("tuple element ", i, ": ", s.message()));
    }
    return absl::OkStatus();
  }
  if (!expected.shape().IsArray()) return absl::OkStatus();
  Literal a = actual.Relayout(expected.shape().layout());
  std::vector<int64_t> index(expected.shape().rank());
  return primitive_util::ArrayTypeSwitch(expected.element_type(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    auto ev = expected.data<T>();
    auto av = a.data<T>();
    if (ev.size() != av.size()) return absl::InvalidArgumentError("element count mismatch");
    for (size_t i = 0; i < ev.size(); ++i) {
      bool ok;
      if constexpr (primitive_util::is_complex_v<T>) {
        ok = FloatBitsMatch(ev[i].real(), av[i].real()) && FloatBitsMatch(ev[i].imag(), av[i].imag());
      } else if constexpr (primitive_util::is_float_v<T>) {
        ok = FloatBitsMatch(ev[i], av[i]);
      } else {
        ok = ev[i] == av[i];
      }
      if (!ok) {
        ShapeUtil::MultiIndex(expected.shape(), i, absl::MakeSpan(index));
        return absl::InvalidArgumentError(absl::StrCat(
            "mismatch at index {", absl::StrJoin(index, ","), "}: expected ", ElementString<T>(ev[i]),
            ", actual ", ElementString<T>(av[i]), "\n  expected: ", expected.ToString().substr(0, 600),
            "\n  actual:   ", actual.ToString().substr(0, 600)));
      }
    }
    return absl::OkStatus();
  });
}

Literal L(absl::string_view text) {
  absl::StatusOr<Literal> lit = Literal::Parse(text);
  EXPECT_TRUE(lit.ok()) << "cannot parse literal '" << text << "': " << lit.status();
  if (!lit.ok()) return Literal();
  return *std::move(lit);
}

Literal RandomLiteral(const Shape& shape, std::mt19937& rng, double lo, double hi) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(RandomLiteral(s, rng, lo, hi));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal lit(shape);
  if (!shape.IsArray()) return lit;
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    auto data = lit.data<T>();
    for (auto& v : data) {
      if constexpr (std::is_same_v<T, bool>) {
        v = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
      } else if constexpr (primitive_util::is_complex_v<T>) {
        using C = typename T::value_type;
        std::uniform_real_distribution<double> dist(lo, hi);
        v = T(static_cast<C>(dist(rng)), static_cast<C>(dist(rng)));
      } else if constexpr (primitive_util::is_float_v<T>) {
        std::uniform_real_distribution<double> dist(lo, hi);
        if constexpr (std::is_same_v<T, double>) {
          v = dist(rng);
        } else {
          v = static_cast<T>(static_cast<float>(dist(rng)));
        }
      } else {
        double tlo = std::max(lo, static_cast<double>(std::numeric_limits<T>::min()));
        double thi = std::min(hi, static_cast<double>(std::numeric_limits<T>::max()));
        std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(std::ceil(tlo)),
                                                    static_cast<int64_t>(std::floor(thi)));
        v = static_cast<T>(dist(rng));
      }
    }
    return 0;
  });
  return lit;
}

absl::StatusOr<Literal> EvaluateWithReference(const XlaComputation& computation, absl::Span<const Literal> args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = HloModule::CreateFromProto(computation.proto());
  if (!module.ok()) return module.status();
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  HloEvaluator evaluator(/*max_loop_iterations=*/1 << 24);
  return evaluator.Evaluate(**module, ptrs);
}

XlaOp AddParam(XlaBuilder* builder, const Literal& value, std::vector<Literal>* args, const std::string& name) {
  int64_t number = static_cast<int64_t>(args->size());
  args->push_back(value);
  return Parameter(builder, number, value.shape(), name.empty() ? absl::StrCat("arg", number) : name);
}

void ClientTest::SetUp() {
  absl::StatusOr<Client*> client = GetClientForBackend(GetParam());
  ASSERT_TRUE(client.ok()) << "backend '" << GetParam() << "': " << client.status();
  client_ = *client;
  live_buffers_at_start_ = LiveBuffers();
}

void ClientTest::TearDown() {
  if (client_ == nullptr || live_buffers_at_start_ < 0) return;
  // Every handle a test creates is owned by a GlobalData and released when
  // it goes away; a difference here is a leak in the service.
  EXPECT_EQ(LiveBuffers(), live_buffers_at_start_) << "live buffers on the service changed during the test";
}

int64_t ClientTest::LiveBuffers() {
  absl::StatusOr<GetServiceInfoResponse> info = client_->GetServiceInfo();
  if (!info.ok()) return -1;
  return info->live_buffers();
}

std::string ClientTest::TestName() const {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = absl::StrCat(info->test_suite_name(), ".", info->name());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') c = '_';
  }
  return name;
}

namespace {

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> TransferAll(Client* client,
                                                                     absl::Span<const Literal> args) {
  std::vector<std::unique_ptr<GlobalData>> data;
  for (const Literal& a : args) {
    absl::StatusOr<std::unique_ptr<GlobalData>> d = client->TransferToServer(a);
    if (!d.ok()) return d.status();
    data.push_back(*std::move(d));
  }
  return data;
}

std::vector<GlobalData*> Pointers(const std::vector<std::unique_ptr<GlobalData>>& data) {
  std::vector<GlobalData*> ptrs;
  for (const auto& d : data) ptrs.push_back(d.get());
  return ptrs;
}

}  // namespace

absl::StatusOr<Literal> ClientTest::Execute(XlaBuilder* builder, absl::Span<const Literal> args) {
  absl::StatusOr<XlaComputation> computation = builder->Build();
  if (!computation.ok()) return computation.status();
  return ExecuteComputation(*computation, args);
}

absl::StatusOr<Literal> ClientTest::ExecuteComputation(const XlaComputation& computation,
                                                       absl::Span<const Literal> args) {
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> data = TransferAll(client_, args);
  if (!data.ok()) return data.status();
  std::vector<Shape> shapes;
  for (const Literal& a : args) shapes.push_back(a.shape());
  absl::StatusOr<ExecutionHandle> handle = client_->Compile(computation, shapes);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<std::unique_ptr<GlobalData>> result = client_->Execute(*handle, Pointers(*data));
  absl::Status unregister = client_->UnregisterExecutable(*handle);
  if (!result.ok()) return result.status();
  if (!unregister.ok()) return unregister;
  return client_->TransferToClient(**result);
}

absl::StatusOr<Literal> ClientTest::ExecuteAndTransfer(const XlaComputation& computation,
                                                       absl::Span<const Literal> args) {
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> data = TransferAll(client_, args);
  if (!data.ok()) return data.status();
  return client_->ExecuteAndTransfer(computation, Pointers(*data));
}

void ClientTest::ComputeAndCompare(XlaBuilder* builder, absl::Span<const Literal> args, const Literal& expected,
                                   std::optional<ErrorSpec> error) {
  absl::StatusOr<XlaComputation> computation = builder->Build();
  ASSERT_TRUE(computation.ok()) << builder->name() << ": Build failed: " << computation.status();
  absl::StatusOr<Literal> actual = ExecuteComputation(*computation, args);
  ASSERT_TRUE(actual.ok()) << builder->name() << " on " << backend() << ": execution failed: " << actual.status();

  absl::StatusOr<ProgramShape> program_shape = computation->GetProgramShape();
  ASSERT_TRUE(program_shape.ok()) << program_shape.status();
  EXPECT_TRUE(actual->shape().Compatible(program_shape->result()))
      << builder->name() << ": result shape " << actual->shape().ToString() << " is not the declared "
      << program_shape->result().ToString();

  absl::Status cmp = error.has_value() ? literal_comparison::Near(expected, *actual, *error)
                                       : ExactlyEqual(expected, *actual);
  EXPECT_TRUE(cmp.ok()) << builder->name() << " on " << backend() << ": " << cmp.message()
                        << "\n  expected: " << expected.ToString().substr(0, 600)
                        << "\n  actual:   " << actual->ToString().substr(0, 600);

  // The backend must also agree with the reference semantics.
  CompareWithReference(*computation, args, error);
}

void ClientTest::CompareWithReference(const XlaComputation& computation, absl::Span<const Literal> args,
                                      std::optional<ErrorSpec> error) {
  absl::StatusOr<Literal> reference = EvaluateWithReference(computation, args);
  ASSERT_TRUE(reference.ok()) << computation.name() << ": reference evaluator failed: " << reference.status();
  absl::StatusOr<Literal> actual = ExecuteAndTransfer(computation, args);
  ASSERT_TRUE(actual.ok()) << computation.name() << " on " << backend()
                           << ": ExecuteAndTransfer failed: " << actual.status();
  absl::Status cmp = error.has_value() ? literal_comparison::Near(*reference, *actual, *error)
                                       : ExactlyEqual(*reference, *actual);
  EXPECT_TRUE(cmp.ok()) << computation.name() << ": backend " << backend()
                        << " disagrees with the reference evaluator: " << cmp.message();
}

void ClientTest::CompareWithReferenceOnRandomInputs(XlaBuilder* builder, ErrorSpec error, const RandomSpec& spec) {
  absl::StatusOr<XlaComputation> computation = builder->Build();
  ASSERT_TRUE(computation.ok()) << builder->name() << ": Build failed: " << computation.status();
  absl::StatusOr<ProgramShape> program_shape = computation->GetProgramShape();
  ASSERT_TRUE(program_shape.ok()) << program_shape.status();
  std::mt19937 rng(spec.seed);
  for (int trial = 0; trial < spec.trials; ++trial) {
    std::vector<Literal> args;
    for (const Shape& s : program_shape->parameters()) args.push_back(RandomLiteral(s, rng, spec.lo, spec.hi));
    SCOPED_TRACE(absl::StrCat("random trial ", trial, " (seed ", spec.seed, ")"));
    CompareWithReference(*computation, args, error);
  }
}

void ClientTest::ExpectBuildError(XlaBuilder* builder, absl::string_view substring, absl::StatusCode code) {
  absl::StatusOr<XlaComputation> computation = builder->Build();
  ASSERT_FALSE(computation.ok()) << builder->name() << ": Build succeeded but an error containing '" << substring
                                 << "' was expected";
  EXPECT_EQ(computation.status().code(), code) << computation.status();
  EXPECT_NE(computation.status().message().find(substring), absl::string_view::npos)
      << "message '" << computation.status().message() << "' does not contain '" << substring << "'";
}

}  // namespace test
}  // namespace xla
