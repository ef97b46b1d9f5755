// Malformed input never crashes the importer and always gives a located
// error: truncated files, unknown ops, type mismatches, wrong region
// arity, bad hex blob lengths, and random mutations of corpus files.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "gtest/gtest.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/importer.h"

namespace xla {
namespace stablehlo {
namespace {

std::string CorpusDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return std::string(env != nullptr && env[0] != '\0' ? env : "/work/shared") + "/conformance/stablehlo";
}

// Imports `text`; an error must be "name:line:col: message". A module that
// imports must pass the verifier.
void ExpectLocatedErrorOrValid(const std::string& text, const std::string& what) {
  ImportOptions options;
  options.split_input_file = WantsSplitInputFile(text);
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "m.mlir", options);
  if (!chunks.ok()) {
    static const std::regex kLocated("^m\\.mlir:[0-9]+:[0-9]+: .+");
    EXPECT_TRUE(std::regex_match(std::string(chunks.status().message()), kLocated))
        << what << ": " << chunks.status().message();
    return;
  }
  for (const ImportedChunk& chunk : *chunks) {
    for (const EntryPoint& entry : chunk.entries) {
      absl::Status verified = VerifyHloModule(*entry.module);
      EXPECT_TRUE(verified.ok()) << what << ": the importer produced a module the verifier rejects: " << verified;
    }
  }
}

const char kModule[] = R"(func.func @main() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2x2xf32>
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
  %b = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<2xf32>) -> tensor<2x2xf32>
  %s = "stablehlo.sort"(%b) <{dimension = 0 : i64}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %w = stablehlo.add %b, %a : tensor<2x2xf32>
  check.expect_almost_eq_const %w, dense<[[4.0, 5.0], [10.0, 11.0]]> : tensor<2x2xf32>
  func.return %w : tensor<2x2xf32>
}
)";

TEST(MalformedInputTest, EveryTruncationIsALocatedError) {
  const std::string text = kModule;
  for (size_t n = 0; n < text.size(); ++n) ExpectLocatedErrorOrValid(text.substr(0, n), "truncated at " + std::to_string(n));
}

TEST(MalformedInputTest, SpecificMistakes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"unknown op", "func.func @main() {\n  %a = stablehlo.nope : tensor<f32>\n  return\n}"},
      {"type mismatch", "func.func @main() -> tensor<f32> {\n  %a = stablehlo.constant dense<1> : tensor<i32>\n"
                        "  return %a : tensor<f32>\n}"},
      {"wrong region arity", "func.func @main() {\n  %a = stablehlo.constant dense<1> : tensor<2xi32>\n"
                             "  %i = stablehlo.constant dense<0> : tensor<i32>\n"
                             "  %r = \"stablehlo.reduce\"(%a, %i) ({\n  ^bb0(%x: tensor<i32>):\n"
                             "    stablehlo.return %x : tensor<i32>\n  }) {dimensions = array<i64: 0>} : "
                             "(tensor<2xi32>, tensor<i32>) -> tensor<i32>\n  return\n}"},
      {"two regions missing", "func.func @main() {\n  %p = stablehlo.constant dense<true> : tensor<i1>\n"
                              "  %r = \"stablehlo.if\"(%p) : (tensor<i1>) -> tensor<i32>\n  return\n}"},
      {"bad hex blob", "func.func @main() {\n  %a = stablehlo.constant dense<\"0x00112\"> : tensor<2xi8>\n  return\n}"},
      {"hex blob not hex", "func.func @main() {\n  %a = stablehlo.constant dense<\"0xZZ\"> : tensor<i8>\n  return\n}"},
      {"out of range", "func.func @main() {\n  %a = stablehlo.constant dense<300> : tensor<i8>\n  return\n}"},
      {"undefined value", "func.func @main() {\n  %a = stablehlo.abs %nope : tensor<f32>\n  return\n}"},
      {"bad result index", "func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n"
                           "  %b = stablehlo.abs %a#3 : tensor<f32>\n  return\n}"},
      {"recursion", "func.func @main() {\n  call @main() : () -> ()\n  return\n}"},
      {"huge constant", "func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<99999999999xf32>\n"
                        "  return\n}"},
      {"dynamic shape", "func.func @main(%a: tensor<?xf32>) {\n  return\n}"},
      {"scan dimension out of range",
       "func.func @main() {\n  %a = stablehlo.constant dense<1> : tensor<4xi32>\n"
       "  %i = stablehlo.constant dense<0> : tensor<i32>\n"
       "  %0:2 = chlo.scan(%a) inits(%i) dimension=3 {\n  ^bb0(%x: tensor<i32>, %c: tensor<i32>):\n"
       "    stablehlo.return %x, %c : tensor<i32>, tensor<i32>\n  } : (tensor<4xi32>, tensor<i32>) -> "
       "(tensor<4xi32>, tensor<i32>)\n  return\n}"},
      {"scan body arity", "func.func @main() {\n  %a = stablehlo.constant dense<1> : tensor<4xi32>\n"
                          "  %i = stablehlo.constant dense<0> : tensor<i32>\n"
                          "  %0:2 = chlo.scan(%a) inits(%i) dimension=0 {\n  ^bb0(%x: tensor<i32>):\n"
                          "    stablehlo.return %x, %x : tensor<i32>, tensor<i32>\n  } : (tensor<4xi32>, tensor<i32>) "
                          "-> (tensor<4xi32>, tensor<i32>)\n  return\n}"},
      {"ragged dot with a ragged contracting dimension",
       "func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<4x6xf32>\n"
       "  %b = stablehlo.constant dense<1.0> : tensor<6x3xf32>\n"
       "  %g = stablehlo.constant dense<[2, 4]> : tensor<2xi64>\n"
       "  %r = \"chlo.ragged_dot\"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
       "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
       "rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>} : "
       "(tensor<4x6xf32>, tensor<6x3xf32>, tensor<2xi64>) -> tensor<2x4x3xf32>\n  return\n}"},
      {"deep nesting", "func.func @main() {\n  %a = stablehlo.constant dense<" + std::string(100000, '[') +
                           "> : tensor<f32>\n  return\n}"},
  };
  for (const auto& [what, text] : cases) {
    absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "m.mlir");
    EXPECT_FALSE(chunks.ok()) << what;
    ExpectLocatedErrorOrValid(text, what);
  }
}

// 10,000 random mutations of corpus files (byte deletions, insertions of
// syntax characters, duplicated and swapped spans, digit changes): each
// imports into a module the verifier accepts or gives a located error.
TEST(MalformedInputTest, RandomMutationsOfCorpusFiles) {
  const std::string root = CorpusDir();
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << root << " not found (set XLA_SHARED_DIR)";
  std::vector<std::string> texts;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".mlir") continue;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    if (text.size() < 20000) texts.push_back(std::move(text));  // keeps the test fast
  }
  ASSERT_FALSE(texts.empty());
  std::sort(texts.begin(), texts.end());
  std::mt19937_64 rng(20240611);
  const std::string syntax = "%@#<>[]{}(),:=x-.0123456789\"^ \n";
  for (int i = 0; i < 10000; ++i) {
    std::string text = texts[rng() % texts.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      const size_t len = 1 + rng() % 8;
      switch (rng() % 5) {
        case 0: text.erase(at, len); break;
        case 1: text.insert(at, 1, syntax[rng() % syntax.size()]); break;
        case 2: text.insert(at, text.substr(at, len)); break;
        case 3: {
          const size_t other = rng() % text.size();
          std::string a = text.substr(at, len);
          text.erase(at, len);
          text.insert(std::min(other, text.size()), a);
          break;
        }
        case 4:
          if (std::isdigit(static_cast<unsigned char>(text[at]))) {
            text[at] = static_cast<char>('0' + rng() % 10);
          } else {
            text[at] = syntax[rng() % syntax.size()];
          }
          break;
      }
    }
    ExpectLocatedErrorOrValid(text, "mutation " + std::to_string(i));
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla
