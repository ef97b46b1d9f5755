// The smallest program around an ahead-of-time compiled MLP: NAME.o, its
// header and the AOT runtime, nothing else (tools/xla aot's size figure).
// Prints the class probabilities of the first row for fixed inputs
// (value(i) = scale * ((i * 7) % 13 - 6) per argument; aot_mlp_test checks
// them against the interpreter).
#include <cstdint>
#include <cstdio>

#include "tests/aot/aot_mlp.h"

int main() {
  xla::aot::AlignedBuffer x(aot_mlp::kArgumentBytes[0]), w1(aot_mlp::kArgumentBytes[1]),
      b1(aot_mlp::kArgumentBytes[2]), w2(aot_mlp::kArgumentBytes[3]), b2(aot_mlp::kArgumentBytes[4]),
      out(aot_mlp::kResultBytes[0]);
  const float scales[] = {0.25f, 0.03125f, 0.125f, 0.0625f, 0.5f};
  xla::aot::AlignedBuffer* args[] = {&x, &w1, &b1, &w2, &b2};
  const void* arg_data[5];
  for (int a = 0; a < 5; ++a) {
    float* f = reinterpret_cast<float*>(args[a]->data());
    for (int64_t i = 0; i < aot_mlp::kArgumentBytes[a] / 4; ++i) f[i] = scales[a] * static_cast<float>((i * 7) % 13 - 6);
    arg_data[a] = args[a]->data();
  }
  void* results[] = {out.data()};
  aot_mlp mlp;
  if (!mlp.Run(arg_data, results)) return 1;
  const float* p = reinterpret_cast<const float*>(out.data());
  for (int j = 0; j < 10; ++j) std::printf("%s%.6f", j ? " " : "", p[j]);
  std::printf("\n");
  return 0;
}
