#include "tests/conformance/interpreter_printing.h"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/FileCheck/FileCheck.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace conformance {
namespace {

// The MLIR spelling of an element type: i1, i32, ui8, f16, complex<f32>.
std::string MlirElementType(PrimitiveType type) {
  switch (type) {
    case PRED: return "i1";
    case C64: return "complex<f32>";
    case C128: return "complex<f64>";
    default: break;
  }
  const std::string name(primitive_util::LowercaseName(type));  // s32, u8, f16, bf16
  if (primitive_util::IsIntegralType(type)) {
    return absl::StrCat(primitive_util::IsSignedIntegralType(type) ? "i" : "ui", name.substr(1));
  }
  // The f8/f6/f4 families: f8E4M3FN, f6E2M3FN, f4E2M1FN.
  if (name.size() > 2 && (name[0] == 'f') && (name[1] == '8' || name[1] == '6' || name[1] == '4')) {
    return absl::StrCat(name.substr(0, 2), absl::AsciiStrToUpper(name.substr(2)));
  }
  return name;
}

// Every element of a row-major array as text.
std::vector<std::string> ElementStrings(const Literal& literal) {
  std::vector<std::string> out;
  primitive_util::ArrayTypeSwitch(literal.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (const T& v : literal.data<T>()) {
      if constexpr (std::is_same_v<T, bool>) {
        out.push_back(v ? "true" : "false");
      } else if constexpr (primitive_util::is_complex_v<T>) {
        out.push_back(absl::StrFormat("[%e, %e]", static_cast<double>(v.real()), static_cast<double>(v.imag())));
      } else if constexpr (primitive_util::is_float_v<T>) {
        out.push_back(absl::StrFormat("%e", static_cast<double>(v)));
      } else if constexpr (std::is_integral_v<T>) {
        out.push_back(absl::StrCat(v));
      } else {  // s2/s4/u2/u4: a byte holding the value
        out.push_back(absl::StrCat(static_cast<int64_t>(v)));
      }
    }
  });
  return out;
}

// The nested brackets of dimension `d` from element `*next` on.
void PrintDimension(const std::vector<int64_t>& dims, size_t d, const std::vector<std::string>& elements,
                    size_t* next, const std::string& indent, std::string* out) {
  if (d + 1 == dims.size()) {
    std::vector<std::string> row(elements.begin() + *next, elements.begin() + *next + dims[d]);
    *next += dims[d];
    absl::StrAppend(out, "[", absl::StrJoin(row, ", "), "]");
    return;
  }
  if (dims[d] == 0) {
    absl::StrAppend(out, "[]");
    return;
  }
  absl::StrAppend(out, "[\n");
  for (int64_t i = 0; i < dims[d]; ++i) {
    absl::StrAppend(out, indent, "  ");
    PrintDimension(dims, d + 1, elements, next, indent + "  ", out);
    absl::StrAppend(out, i + 1 < dims[d] ? ",\n" : "\n");
  }
  absl::StrAppend(out, indent, "]");
}

}  // namespace

std::string PrintLikeInterpreter(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) return absl::StrCat("<", shape.ToString(), ">");
  const Literal row_major = literal.RelayoutTo(ShapeUtil::WithDefaultLayout(shape));
  std::string type = "tensor<";
  for (int64_t d : shape.dimensions()) absl::StrAppend(&type, d, "x");
  absl::StrAppend(&type, MlirElementType(shape.element_type()), ">");
  const std::vector<std::string> elements = ElementStrings(row_major);
  if (shape.rank() == 0) return absl::StrCat(type, " {", elements.empty() ? "" : elements[0], "}");
  std::string body;
  size_t next = 0;
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  if (ShapeUtil::ElementsIn(shape) == 0 && dims[0] == 0) {
    body = "[]";
  } else {
    PrintDimension(dims, 0, elements, &next, "  ", &body);
  }
  return absl::StrCat(type, " {\n  ", body, "\n}");
}

absl::Status MatchCheckLines(absl::string_view check_file, absl::string_view output, const std::string& filename) {
  llvm::FileCheckRequest request;
  request.CheckPrefixes = {"CHECK"};
  llvm::FileCheck checker(request);
  llvm::SourceMgr sources;
  std::string diagnostics;
  llvm::raw_string_ostream diagnostics_stream(diagnostics);
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic& d, void* stream) {
        d.print(nullptr, *static_cast<llvm::raw_string_ostream*>(stream), /*ShowColors=*/false);
      },
      &diagnostics_stream);
  std::unique_ptr<llvm::MemoryBuffer> check_buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(check_file.data(), check_file.size()), filename);
  llvm::SmallString<4096> check_storage;
  llvm::StringRef check_text = checker.CanonicalizeFile(*check_buffer, check_storage);
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(check_text, filename), llvm::SMLoc());
  if (checker.readCheckFile(sources, check_text)) {
    diagnostics_stream.flush();
    return absl::InvalidArgumentError(absl::StrCat("reading the CHECK lines: ", diagnostics));
  }
  std::unique_ptr<llvm::MemoryBuffer> output_buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(output.data(), output.size()), "<output>");
  llvm::SmallString<4096> output_storage;
  llvm::StringRef output_text = checker.CanonicalizeFile(*output_buffer, output_storage);
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(output_text, "<output>"), llvm::SMLoc());
  if (!checker.checkInput(sources, output_text)) {
    diagnostics_stream.flush();
    return absl::FailedPreconditionError(absl::StrCat("the CHECK lines do not match the output:\n", diagnostics));
  }
  return absl::OkStatus();
}

}  // namespace conformance
}  // namespace xla
