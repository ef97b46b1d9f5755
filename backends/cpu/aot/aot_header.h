// NAME.h of an ahead-of-time compiled module (tools/xla aot): declares the
// object's entry symbol and a C++ class NAME that runs it on the caller's
// buffers, with the shapes, layouts and sizes those buffers must have.
#ifndef BACKENDS_CPU_AOT_AOT_HEADER_H_
#define BACKENDS_CPU_AOT_AOT_HEADER_H_

#include <cstdint>
#include <string>

#include "xla/shape.h"

namespace xla {
namespace aot {

struct AotHeaderInfo {
  std::string name;    // the class; a C identifier
  std::string symbol;  // the entry function in NAME.o
  std::string source;  // the program file it was compiled from
  std::string target;  // CPU and features the code needs
  ProgramShape program_shape;
  int64_t arena_bytes = 0;
  int threads = 1;
};

std::string AotHeader(const AotHeaderInfo& info);

}  // namespace aot
}  // namespace xla

#endif  // BACKENDS_CPU_AOT_AOT_HEADER_H_
