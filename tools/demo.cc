// The README's demo: the axpy example of the XLA overview, built with
// parameters and with constants, plus a 2-layer MLP forward pass, all run on
// the embedded in-process service. Each result is checked against plain C++.
#include <cmath>
#include <cstdio>
#include <vector>

#include "client/client_library.h"
#include "client/xla_builder.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

absl::StatusOr<Literal> ComputeAxpyParameters(Client* client, const Literal& alpha, const Literal& x,
                                              const Literal& y) {
  XlaBuilder builder("axpy");
  auto param_alpha = Parameter(&builder, 0, alpha.shape(), "alpha");
  auto param_x = Parameter(&builder, 1, x.shape(), "x");
  auto param_y = Parameter(&builder, 2, y.shape(), "y");
  Add(Mul(param_alpha, param_x), param_y);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  if (!computation.ok()) return computation.status();
  auto alpha_data = client->TransferToServer(alpha);
  if (!alpha_data.ok()) return alpha_data.status();
  auto x_data = client->TransferToServer(x);
  if (!x_data.ok()) return x_data.status();
  auto y_data = client->TransferToServer(y);
  if (!y_data.ok()) return y_data.status();
  return client->ExecuteAndTransfer(*computation, {alpha_data->get(), x_data->get(), y_data->get()});
}

absl::StatusOr<Literal> ComputeAxpyConstants(Client* client, float alpha, absl::Span<const float> x,
                                             absl::Span<const float> y) {
  XlaBuilder builder("axpy");
  auto constant_alpha = ConstantR0<float>(&builder, alpha);
  auto constant_x = ConstantR1<float>(&builder, x);
  auto constant_y = ConstantR1<float>(&builder, y);
  Add(Mul(constant_alpha, constant_x), constant_y);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  if (!computation.ok()) return computation.status();
  return client->ExecuteAndTransfer(*computation, {});
}

// relu(x @ w1 + b1) @ w2 + b2, then softmax over the classes.
absl::StatusOr<Literal> ComputeMlp(Client* client, const Literal& x, const Literal& w1, const Literal& b1,
                                   const Literal& w2, const Literal& b2) {
  XlaBuilder builder("mlp");
  auto px = Parameter(&builder, 0, x.shape(), "x");
  auto pw1 = Parameter(&builder, 1, w1.shape(), "w1");
  auto pb1 = Parameter(&builder, 2, b1.shape(), "b1");
  auto pw2 = Parameter(&builder, 3, w2.shape(), "w2");
  auto pb2 = Parameter(&builder, 4, b2.shape(), "b2");
  auto hidden = Max(Add(Dot(px, pw1), pb1, {1}), ConstantR0<float>(&builder, 0.0f));
  auto logits = Add(Dot(hidden, pw2), pb2, {1});
  auto add_builder = builder.CreateSubBuilder("add");
  Add(Parameter(add_builder.get(), 0, ShapeUtil::MakeShape(F32, {}), "a"),
      Parameter(add_builder.get(), 1, ShapeUtil::MakeShape(F32, {}), "b"));
  auto add = add_builder->Build();
  if (!add.ok()) return add.status();
  auto max_builder = builder.CreateSubBuilder("max");
  Max(Parameter(max_builder.get(), 0, ShapeUtil::MakeShape(F32, {}), "a"),
      Parameter(max_builder.get(), 1, ShapeUtil::MakeShape(F32, {}), "b"));
  auto max = max_builder->Build();
  if (!max.ok()) return max.status();
  auto row_max = Reduce(logits, MinValue(&builder, F32), *max, {1});
  auto exps = Exp(Sub(logits, row_max, {0}));
  auto sums = Reduce(exps, ConstantR0<float>(&builder, 0.0f), *add, {1});
  Div(exps, sums, {0});
  absl::StatusOr<XlaComputation> computation = builder.Build();
  if (!computation.ok()) return computation.status();
  std::vector<std::unique_ptr<GlobalData>> data;
  for (const Literal* l : {&x, &w1, &b1, &w2, &b2}) {
    auto d = client->TransferToServer(*l);
    if (!d.ok()) return d.status();
    data.push_back(std::move(*d));
  }
  std::vector<GlobalData*> args;
  for (auto& d : data) args.push_back(d.get());
  return client->ExecuteAndTransfer(*computation, args);
}

// The same MLP in plain C++, the reference the demo checks against.
Literal ReferenceMlp(const Literal& x, const Literal& w1, const Literal& b1, const Literal& w2, const Literal& b2) {
  int64_t n = x.shape().dimensions(0), d = x.shape().dimensions(1), h = w1.shape().dimensions(1),
          c = w2.shape().dimensions(1);
  Literal out(ShapeUtil::MakeShape(F32, {n, c}));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<float> hidden(h), logits(c);
    for (int64_t j = 0; j < h; ++j) {
      float acc = b1.Get<float>({j});
      for (int64_t k = 0; k < d; ++k) acc += x.Get<float>({i, k}) * w1.Get<float>({k, j});
      hidden[j] = std::max(acc, 0.0f);
    }
    float mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < c; ++j) {
      float acc = b2.Get<float>({j});
      for (int64_t k = 0; k < h; ++k) acc += hidden[k] * w2.Get<float>({k, j});
      logits[j] = acc;
      mx = std::max(mx, acc);
    }
    for (int64_t j = 0; j < c; ++j) sum += std::exp(logits[j] - mx);
    for (int64_t j = 0; j < c; ++j) out.Set<float>({i, j}, std::exp(logits[j] - mx) / sum);
  }
  return out;
}

int Report(const char* name, const absl::StatusOr<Literal>& result, const Literal& expected, ErrorSpec spec) {
  if (!result.ok()) {
    std::printf("%s: FAILED: %s\n", name, result.status().ToString().c_str());
    return 1;
  }
  absl::Status near = literal_comparison::Near(expected, *result, spec);
  std::printf("%s = %s  [%s]\n", name, result->ToString().c_str(),
              near.ok() ? "matches the C++ reference" : std::string(near.message()).c_str());
  return near.ok() ? 0 : 1;
}

int Main() {
  absl::StatusOr<LocalClient*> client = ClientLibrary::GetOrCreateLocalClient();
  if (!client.ok()) {
    std::printf("no local client: %s\n", client.status().ToString().c_str());
    return 1;
  }
  auto info = (*client)->GetServiceInfo();
  std::printf("service backend: %s\n", info.ok() ? info->default_backend().c_str() : "?");
  int failures = 0;
  const float alpha = 3.5f;
  const std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = alpha * x[i] + y[i];
  Literal expected = Literal::CreateR1<float>(want);
  std::printf("axpy: alpha = %g, x = %s, y = %s\n", alpha, Literal::CreateR1<float>(x).ToString().c_str(),
              Literal::CreateR1<float>(y).ToString().c_str());
  failures += Report("axpy (parameters)",
                     ComputeAxpyParameters(*client, Literal::CreateR0<float>(alpha), Literal::CreateR1<float>(x),
                                           Literal::CreateR1<float>(y)),
                     expected, ErrorSpec{0, 0});
  failures += Report("axpy (constants) ", ComputeAxpyConstants(*client, alpha, x, y), expected, ErrorSpec{0, 0});

  Literal mx = Literal::CreateR2<float>({{1, -2, 3, 0.5f}, {-1, 0, 2, 4}, {0.25f, 1, -3, 2}});
  Literal w1 = Literal::CreateR2<float>({{0.5f, -1, 0.25f}, {1, 0.5f, -0.5f}, {-0.25f, 0.75f, 1}, {0.1f, 0.2f, 0.3f}});
  Literal b1 = Literal::CreateR1<float>({0.1f, -0.2f, 0.3f});
  Literal w2 = Literal::CreateR2<float>({{1, -1}, {0.5f, 0.25f}, {-0.75f, 1.5f}});
  Literal b2 = Literal::CreateR1<float>({0.05f, -0.05f});
  std::printf("mlp: x f32[3,4] -> dense(3) relu -> dense(2) softmax\n");
  failures += Report("mlp probabilities", ComputeMlp(*client, mx, w1, b1, w2, b2), ReferenceMlp(mx, w1, b1, w2, b2),
                     ErrorSpec{1e-6, 1e-5});
  std::printf(failures == 0 ? "demo: all results match\n" : "demo: %d result(s) differ\n", failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xla

int main() { return xla::Main(); }
