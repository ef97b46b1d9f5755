#include "tools/hlo_fuzz/fuzz_arguments.h"

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "xla/primitive_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

// Uniform in [-4, 4), from the raw bits (std::uniform_real_distribution's
// sequence differs between standard libraries).
double UniformPlusMinusFour(std::mt19937_64& rng) {
  return std::ldexp(static_cast<double>(rng() >> 11), -53) * 8 - 4;
}

// Through float, which every float type converts to and from.
template <typename T>
double ToDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double ToDouble<double>(double v) {
  return v;
}

template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return static_cast<T>(static_cast<float>(v));
  }
}

template <typename T>
T FloatValue(std::mt19937_64& rng, bool huge) {
  using Limits = std::numeric_limits<T>;
  const double max = ToDouble(Limits::max());
  const double min_normal = ToDouble(Limits::min());
  const double min_subnormal = ToDouble(Limits::denorm_min());
  const int r = static_cast<int>(rng() % 100);
  double v;
  if (r < 55) {
    v = UniformPlusMinusFour(rng);
  } else if (r < 65) {
    v = static_cast<double>(static_cast<int>(rng() % 9) - 4);
  } else {
    static const double kSpecials[] = {0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const double specials[] = {nan, -nan, inf, -inf, min_subnormal, -min_subnormal, min_subnormal * 3,
                               min_normal, -min_normal, min_normal - min_subnormal};
    const double huge_values[] = {max, -max, max / 3, 1e30, -1e20, 65504, 65520};
    const int k = static_cast<int>(rng() % (huge ? 27 : 20));
    if (k < 10) {
      v = kSpecials[k];
    } else if (k < 20) {
      v = specials[k - 10];
    } else {
      v = huge_values[k - 20];
    }
  }
  return FromDouble<T>(v);
}

template <typename T>
T IntValue(std::mt19937_64& rng) {
  using Limits = std::numeric_limits<T>;
  const int bits = static_cast<int>(sizeof(T) * 8);
  const int r = static_cast<int>(rng() % 100);
  if (r < 40) {
    const int64_t v = static_cast<int64_t>(rng() % 17) - (std::is_signed_v<T> ? 8 : 0);
    return static_cast<T>(v);
  }
  if (r < 65) {
    const T specials[] = {T(0),
                          T(1),
                          static_cast<T>(-1),
                          Limits::min(),
                          Limits::max(),
                          static_cast<T>(Limits::min() + 1),
                          static_cast<T>(Limits::max() - 1),
                          static_cast<T>(bits - 1),
                          static_cast<T>(bits),
                          static_cast<T>(bits + 1),
                          static_cast<T>(-bits)};
    return specials[rng() % 11];
  }
  return static_cast<T>(rng());
}

}  // namespace

uint64_t StableHash(uint64_t seed, const std::string& text) {
  uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Literal MakeArgument(const Shape& shape, uint64_t seed) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      elements.push_back(MakeArgument(shape.tuple_shapes(i), StableHash(seed, std::to_string(i))));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  std::mt19937_64 rng(seed);
  const bool huge = rng() % 5 == 0;
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (T& v : literal.data<T>()) {
      if constexpr (std::is_same_v<T, bool>) {
        v = rng() & 1;
      } else if constexpr (std::is_integral_v<T>) {
        v = IntValue<T>(rng);
      } else if constexpr (primitive_util::is_float_v<T>) {
        v = FloatValue<T>(rng, huge);
      } else {
        v = T(static_cast<float>(UniformPlusMinusFour(rng)));  // complex
      }
    }
  });
  return literal;
}

std::vector<Literal> MakeArguments(const HloModule& module, uint64_t seed) {
  std::vector<Literal> args;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    args.push_back(MakeArgument(p->shape(), StableHash(seed, p->name())));
  }
  return args;
}

}  // namespace hlo_fuzz
}  // namespace xla
