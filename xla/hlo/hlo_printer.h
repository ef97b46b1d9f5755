// HLO text printer: the format hlo_parser.h reads back (round trip).
#ifndef XLA_HLO_HLO_PRINTER_H_
#define XLA_HLO_HLO_PRINTER_H_

#include <string>

namespace xla {

class HloInstruction;
class HloComputation;
class HloModule;

// "%name = f32[2,3]{1,0} add(%a, %b), attr=value, ..." (ROOT not included).
std::string HloInstructionToString(const HloInstruction& instruction);
// "%name (p: f32[2]) -> f32[2] {\n  ...\n}"; ENTRY prefix is the module's job.
std::string HloComputationToString(const HloComputation& computation);
// "HloModule name, attrs\n\n" followed by every computation, callees first.
std::string HloModuleToString(const HloModule& module);

}  // namespace xla

#endif  // XLA_HLO_HLO_PRINTER_H_
