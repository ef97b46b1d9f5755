// Alias information for the emitted IR: which physical storage each load and
// store touches, given to LLVM as scoped-noalias metadata (!alias.scope /
// !noalias) so loops reading one buffer and writing another vectorize
// without runtime overlap checks.
//
// Emitters mark a buffer's base pointer with its region (MarkBufferRegion);
// ElementalIrEmitter tags each load/store made at an index of a marked base
// (TagBufferAccess); AttachAliasScopes turns the tags of a finished module
// into metadata. A region is physical storage, not a value: arena values
// placed on overlapping bytes (liveness reuse) are never said to differ.
// Unmarked pointers (constants, pointers derived by other means) get no
// metadata, so LLVM keeps assuming they may alias anything.
#ifndef BACKENDS_CPU_CODEGEN_ALIAS_ANALYSIS_H_
#define BACKENDS_CPU_CODEGEN_ALIAS_ANALYSIS_H_

#include <cstdint>
#include <optional>

#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Value.h"

namespace xla {
namespace cpu {

// Storage one buffer occupies during a run.
struct BufferRegion {
  enum Kind { kParam, kResult, kArena, kRowScratch };
  Kind kind = kArena;
  // kParam/kResult: the entry leaf number (each leaf is its own buffer;
  // results are freshly allocated, so distinct from parameters and arena).
  // kArena: the byte range [begin, end) of the run's arena.
  // kRowScratch: a row group's stack array for one member's row (its number
  // in the module), distinct from every other storage.
  int64_t begin = 0;
  int64_t end = 0;

  static BufferRegion Param(int64_t leaf) { return {kParam, leaf, leaf + 1}; }
  static BufferRegion Result(int64_t leaf) { return {kResult, leaf, leaf + 1}; }
  static BufferRegion Arena(int64_t begin, int64_t end) { return {kArena, begin, end}; }
  static BufferRegion RowScratch(int64_t number) { return {kRowScratch, number, number + 1}; }
};

// Whether two regions can share a byte.
bool MayOverlap(const BufferRegion& a, const BufferRegion& b);

// Records that `base` (an instruction computing a buffer's first byte) points
// to `region`. Non-instructions and empty arena ranges are left unmarked.
void MarkBufferRegion(llvm::Value* base, const BufferRegion& region);

// `copy` holds the same pointer as `base` (e.g. loaded from the captured
// array of an outlined parallel function): it gets base's mark, if any.
void CopyBufferRegion(llvm::Value* base, llvm::Value* copy);

// Tags `access` (a load or store of one element at an index within the
// buffer `base` points to) with base's region; nothing if base is unmarked.
void TagBufferAccess(llvm::Instruction* access, llvm::Value* base);

// The region `node` names when it is attached as metadata of kind `kind`
// by MarkBufferRegion or TagBufferAccess (kernel_sharing.cc compares
// functions by their regions' overlaps); nullopt for any other metadata.
std::optional<BufferRegion> RegionOfMark(unsigned kind, const llvm::MDNode& node);

// Replaces the tags of every function of `module` by !alias.scope (one
// scope per distinct region) and !noalias (the scopes of every region that
// cannot overlap it), and removes the marks.
void AttachAliasScopes(llvm::Module& module);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_ALIAS_ANALYSIS_H_
