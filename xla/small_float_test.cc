// The small float formats' conversions against values worked out by hand
// from each format's definition (exponent bits, mantissa bits, bias,
// inf/NaN rules), as ml_dtypes (XLA's convert) rounds: to nearest even,
// overflow to inf / NaN / the largest finite value by the format.
#include "xla/small_float.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "xla/primitive_util.h"
#include "xla/types.h"

namespace xla {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

const SmallFloatFormat& F(PrimitiveType type) { return *primitive_util::SmallFloatFormatOf(type); }
uint8_t Enc(PrimitiveType type, double v) { return SmallFloatFromDouble(F(type), v); }
double Dec(PrimitiveType type, uint8_t bits) { return SmallFloatToDouble(F(type), bits); }

TEST(SmallFloatTest, F8E4M3FN) {
  const PrimitiveType t = F8E4M3FN;  // bias 7, no inf, NaN = S.1111.111
  EXPECT_EQ(Dec(t, 0x7E), 448.0);                     // 1.75 * 2^8, the largest
  EXPECT_EQ(Dec(t, 0x01), std::ldexp(1.0, -9));       // smallest subnormal
  EXPECT_EQ(Dec(t, 0x08), std::ldexp(1.0, -6));       // smallest normal
  EXPECT_EQ(Dec(t, 0x38), 1.0);
  EXPECT_TRUE(std::isnan(Dec(t, 0x7F)));
  EXPECT_TRUE(std::isnan(Dec(t, 0xFF)));
  EXPECT_EQ(Enc(t, 448.0), 0x7E);
  EXPECT_EQ(Enc(t, 464.0), 0x7E);  // halfway to 480: 448's mantissa 110 is even
  EXPECT_EQ(Enc(t, 465.0), 0x7F);  // rounds to 480, past the largest: NaN
  EXPECT_EQ(Enc(t, 1e6), 0x7F);
  EXPECT_EQ(Enc(t, kInf), 0x7F);
  EXPECT_EQ(Enc(t, -kInf), 0xFF);
  EXPECT_EQ(Enc(t, kNan), 0x7F);
  EXPECT_EQ(Enc(t, -0.0), 0x80);
  EXPECT_EQ(Enc(t, 1.0625), 0x38);  // tie between 1 and 1.125: even (1)
  EXPECT_EQ(Enc(t, 1.1875), 0x3A);  // tie between 1.125 and 1.25: even (1.25)
  EXPECT_EQ(Enc(t, std::ldexp(1.0, -10)), 0x00);      // half the smallest subnormal: 0
  EXPECT_EQ(Enc(t, 3 * std::ldexp(1.0, -10)), 0x02);  // 1.5 subnormal steps: even (2)
  EXPECT_EQ(Enc(t, -1.0), 0xB8);
}

TEST(SmallFloatTest, F8E5M2) {
  const PrimitiveType t = F8E5M2;  // IEEE-like, bias 15
  EXPECT_EQ(Dec(t, 0x7B), 57344.0);
  EXPECT_EQ(Dec(t, 0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(Dec(t, 0x7C), kInf);
  EXPECT_EQ(Dec(t, 0xFC), -kInf);
  EXPECT_TRUE(std::isnan(Dec(t, 0x7D)));
  EXPECT_EQ(Enc(t, 60000.0), 0x7B);
  EXPECT_EQ(Enc(t, 61440.0), 0x7C);  // tie between 57344 (odd) and 65536: inf
  EXPECT_EQ(Enc(t, -1e6), 0xFC);
  EXPECT_EQ(Enc(t, kNan), 0x7E);  // quiet NaN
  EXPECT_EQ(Enc(t, -0.0), 0x80);
  EXPECT_EQ(Enc(t, 0.1), 0x2E);  // 0.09375 = 1.5 * 2^-4
  EXPECT_EQ(Dec(t, 0x2E), 0.09375);
}

TEST(SmallFloatTest, F8E4M3AndF8E3M4) {
  EXPECT_EQ(Dec(F8E4M3, 0x77), 240.0);
  EXPECT_EQ(Dec(F8E4M3, 0x78), kInf);
  EXPECT_EQ(Enc(F8E4M3, 248.0), 0x78);  // tie, 240's mantissa is odd: up, to inf
  EXPECT_EQ(Enc(F8E4M3, 247.0), 0x77);
  EXPECT_EQ(Enc(F8E4M3, kNan), 0x7C);
  EXPECT_EQ(Dec(F8E4M3, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(Dec(F8E3M4, 0x6F), 15.5);
  EXPECT_EQ(Dec(F8E3M4, 0x70), kInf);
  EXPECT_EQ(Dec(F8E3M4, 0x01), 0.015625);
  EXPECT_EQ(Enc(F8E3M4, 15.75), 0x70);
  EXPECT_EQ(Enc(F8E3M4, 3.1415), 0x49);  // 3.125 = 1.5625 * 2
  EXPECT_EQ(Enc(F8E3M4, -0.0), 0x80);
}

TEST(SmallFloatTest, Fnuz) {
  // NaN is 0x80, there is no -0, no inf; the bias is one more than IEEE's.
  EXPECT_EQ(Dec(F8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_EQ(Dec(F8E4M3FNUZ, 0x01), std::ldexp(1.0, -10));
  EXPECT_TRUE(std::isnan(Dec(F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(Enc(F8E4M3FNUZ, -0.0), 0x00);
  EXPECT_EQ(Enc(F8E4M3FNUZ, 248.0), 0x80);  // overflow: NaN
  EXPECT_EQ(Enc(F8E4M3FNUZ, -kInf), 0x80);
  EXPECT_EQ(Enc(F8E4M3FNUZ, -kNan), 0x80);
  EXPECT_EQ(Enc(F8E4M3FNUZ, -1.0), 0xC0);
  EXPECT_EQ(Enc(F8E4M3FNUZ, -std::ldexp(1.0, -12)), 0x00);  // rounds to zero, unsigned
  EXPECT_EQ(Dec(F8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(Dec(F8E5M2FNUZ, 0x01), std::ldexp(1.0, -17));
  EXPECT_EQ(Enc(F8E5M2FNUZ, 1.0), 0x40);
  EXPECT_EQ(Dec(F8E4M3B11FNUZ, 0x7F), 30.0);
  EXPECT_EQ(Dec(F8E4M3B11FNUZ, 0x01), std::ldexp(1.0, -13));
  EXPECT_EQ(Enc(F8E4M3B11FNUZ, 31.0), 0x80);  // tie, 30 is odd: up, past the largest
  EXPECT_EQ(Enc(F8E4M3B11FNUZ, 30.9), 0x7F);
}

TEST(SmallFloatTest, F8E8M0FNU) {
  const PrimitiveType t = F8E8M0FNU;  // 2^(e - 127), no sign, no zero, NaN 0xFF
  EXPECT_EQ(Dec(t, 0x7F), 1.0);
  EXPECT_EQ(Dec(t, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(Dec(t, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(Dec(t, 0xFF)));
  EXPECT_EQ(Enc(t, 1.0), 0x7F);
  EXPECT_EQ(Enc(t, 3.0), 0x81);   // 1.5 * 2: halfway, rounds up to 4
  EXPECT_EQ(Enc(t, 0.75), 0x7F);  // 1.5 * 2^-1: up to 1
  EXPECT_EQ(Enc(t, 2.9), 0x80);
  EXPECT_EQ(Enc(t, 0.1), 0x7C);   // 0.125
  EXPECT_EQ(Enc(t, 0.0), 0xFF);   // no zero
  EXPECT_EQ(Enc(t, -1.0), 0xFF);  // no sign
  EXPECT_EQ(Enc(t, std::ldexp(1.0, 128)), 0xFF);
  EXPECT_EQ(Enc(t, kInf), 0xFF);
}

TEST(SmallFloatTest, MxFormatsSaturate) {
  // F4E2M1FN: 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf or NaN.
  const double f4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(Dec(F4E2M1FN, i), f4[i]);
    EXPECT_EQ(Dec(F4E2M1FN, 8 + i), -f4[i]);
  }
  EXPECT_EQ(Enc(F4E2M1FN, 5.0), 0x6);   // tie between 4 (even) and 6
  EXPECT_EQ(Enc(F4E2M1FN, 7.0), 0x7);   // rounds past 6: the largest
  EXPECT_EQ(Enc(F4E2M1FN, 1e9), 0x7);
  EXPECT_EQ(Enc(F4E2M1FN, -kInf), 0xF);
  EXPECT_EQ(Enc(F4E2M1FN, 0.25), 0x0);  // tie between 0 and 0.5: 0
  EXPECT_EQ(Enc(F4E2M1FN, 0.75), 0x2);  // tie between 0.5 and 1: 1
  EXPECT_EQ(Enc(F4E2M1FN, -0.0), 0x8);
  EXPECT_EQ(Enc(F4E2M1FN, kNan), 0x8);   // ml_dtypes: -0 for NaN
  EXPECT_EQ(Enc(F4E2M1FN, -kNan), 0x0);
  EXPECT_EQ(Dec(F6E2M3FN, 0x1F), 7.5);
  EXPECT_EQ(Dec(F6E2M3FN, 0x01), 0.125);
  EXPECT_EQ(Enc(F6E2M3FN, 100.0), 0x1F);
  EXPECT_EQ(Enc(F6E2M3FN, -100.0), 0x3F);
  EXPECT_EQ(Enc(F6E2M3FN, 3.1415), 0x15);  // 3.25 = 1.625 * 2
  EXPECT_EQ(Dec(F6E3M2FN, 0x1F), 28.0);
  EXPECT_EQ(Dec(F6E3M2FN, 0x01), 0.0625);
  EXPECT_EQ(Enc(F6E3M2FN, 30.0), 0x1F);
  EXPECT_EQ(Enc(F6E3M2FN, -0.0), 0x20);
}

TEST(SmallFloatTest, EveryEncodingRoundTrips) {
  // Decoding then encoding gives the bits back, except NaNs (one NaN per
  // format) and E8M0's none.
  for (PrimitiveType t : {F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E3M4, F8E5M2FNUZ, F8E4M3FNUZ, F8E8M0FNU,
                          F6E2M3FN, F6E3M2FN, F4E2M1FN}) {
    const SmallFloatFormat& f = F(t);
    for (int b = 0; b < (1 << f.bit_width()); ++b) {
      double v = Dec(t, b);
      if (std::isnan(v)) {
        EXPECT_TRUE(f.IsNan(b)) << f.name << " " << b;
        continue;
      }
      EXPECT_EQ(Enc(t, v), b) << f.name << " bits " << b << " value " << v;
    }
  }
}

TEST(SmallFloatTest, CppTypes) {
  EXPECT_EQ(static_cast<float>(f8e4m3fn(0.1f)), 0.1015625f);
  EXPECT_EQ(f8e4m3fn(1000.0).bits(), 0x7F);
  EXPECT_EQ(static_cast<int>(s4(9)), -7);
  EXPECT_EQ(static_cast<int>(s4(-9)), 7);
  EXPECT_EQ(static_cast<int>(u4(-1)), 15);
  EXPECT_EQ(static_cast<int>(s2(2)), -2);
  EXPECT_EQ(static_cast<int>(u2(5)), 1);
  EXPECT_EQ(primitive_util::BitWidth(S4), 4);
  EXPECT_EQ(primitive_util::BitWidth(F6E3M2FN), 6);
  EXPECT_EQ(primitive_util::BitWidth(F8E8M0FNU), 8);
  EXPECT_EQ(primitive_util::ByteWidth(F4E2M1FN), 1);
  EXPECT_EQ(primitive_util::LowercaseName(F8E4M3B11FNUZ), "f8e4m3b11fnuz");
  EXPECT_EQ(*primitive_util::TypeFromLowercaseName("u2"), U2);
  EXPECT_TRUE(primitive_util::IsSignedIntegralType(S2));
  EXPECT_TRUE(primitive_util::IsFloatingPointType(F4E2M1FN));
}

}  // namespace
}  // namespace xla
