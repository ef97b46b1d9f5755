#include "backends/cpu/cpu_executable.h"

#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/runtime/cpu_thread_pool.h"
#include "backends/host_memory_pool.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

using Pointers = absl::InlinedVector<void*, 8>;  // no allocation for a run of up to 8 leaves

// Array leaves of a buffer tree, depth-first.
void CollectLeaves(const DeviceBuffer& buffer, Pointers* leaves) {
  if (!buffer.shape().IsTuple()) {
    leaves->push_back(const_cast<void*>(buffer.data()));
    return;
  }
  for (const auto& e : buffer.elements()) CollectLeaves(*e, leaves);
}

// The result tree of `shape`, its leaves fresh buffers except those `given`
// (by leaf number; null: allocate).
absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateResult(const Shape& shape,
                                                             absl::Span<const std::shared_ptr<DeviceBuffer>> given,
                                                             int64_t* next_leaf) {
  if (!shape.IsTuple()) {
    const int64_t leaf = (*next_leaf)++;
    if (leaf < static_cast<int64_t>(given.size()) && given[leaf] != nullptr) return given[leaf];
    return DeviceBuffer::AllocateTreeOfCheckedShape(shape);
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> elements;
  elements.reserve(shape.tuple_shapes().size());
  for (const Shape& s : shape.tuple_shapes()) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> e, AllocateResult(s, given, next_leaf));
    elements.push_back(std::move(e));
  }
  return DeviceBuffer::MakeTuple(shape, std::move(elements));
}

// The leaf at `number` of `shape` (non-tuple leaves, depth-first).
const Shape* LeafShape(const Shape& shape, int64_t* number) {
  if (!shape.IsTuple()) return (*number)-- == 0 ? &shape : nullptr;
  for (const Shape& s : shape.tuple_shapes()) {
    if (const Shape* found = LeafShape(s, number)) return found;
  }
  return nullptr;
}

}  // namespace

CpuExecutable::CpuExecutable(std::unique_ptr<HloModule> module, std::unique_ptr<CpuJit> jit, EntryFunction entry,
                             int64_t arena_bytes, std::string optimized_ir, int threads,
                             std::vector<std::string> features_missing_on_host,
                             std::vector<std::unique_ptr<CustomCallInvocation>> custom_calls,
                             std::vector<std::string> objects, std::unique_ptr<ExternalConstants> constants)
    : Executable(std::move(module)),
      module_name_(this->module().name()),
      constants_(std::move(constants)),
      jit_(std::move(jit)),
      entry_(entry),
      arena_bytes_(arena_bytes),
      optimized_ir_(std::move(optimized_ir)),
      threads_(threads),
      objects_(std::move(objects)),
      device_(SharedThreadPoolDevice(threads)),
      features_missing_on_host_(std::move(features_missing_on_host)),
      custom_calls_(std::move(custom_calls)) {}

CpuExecutable::CpuExecutable(std::string module_name, std::string entry_name, ProgramShape program_shape,
                             std::unique_ptr<CpuJit> jit, EntryFunction entry, int64_t arena_bytes, int threads,
                             std::vector<std::string> objects, std::unique_ptr<ExternalConstants> constants)
    : Executable(std::move(entry_name), std::move(program_shape)),
      module_name_(std::move(module_name)),
      constants_(std::move(constants)),
      jit_(std::move(jit)),
      entry_(entry),
      arena_bytes_(arena_bytes),
      threads_(threads),
      objects_(std::move(objects)),
      device_(SharedThreadPoolDevice(threads)) {}

int64_t CpuExecutable::SizeInBytes() const {
  int64_t bytes = static_cast<int64_t>(optimized_ir_.size());
  for (const std::string& object : objects_) bytes += static_cast<int64_t>(object.size());
  if (constants_ != nullptr) bytes += constants_->total_bytes();
  return bytes;
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> CpuExecutable::Execute(
    absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments, const ExecutionControl* control) {
  return ExecuteWithDonations(arguments, {}, control);
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> CpuExecutable::ExecuteWithDonations(
    absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
    absl::Span<const std::shared_ptr<DeviceBuffer>> donated, const ExecutionControl* control) {
  if (!features_missing_on_host_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CPU backend: compiled for ", jit_->target().Describe(), ", whose features this host lacks (",
        absl::StrJoin(features_missing_on_host_, ", "), "); it can be inspected but not run here"));
  }
  const ProgramShape& signature = program_shape();
  if (arguments.size() != signature.parameters().size()) {
    return InvalidArgument("CPU backend: %d arguments for %d parameters", arguments.size(),
                           signature.parameters().size());
  }
  // Arguments in another layout than compiled for are relaid out first.
  std::vector<std::shared_ptr<const DeviceBuffer>> relaid;
  Pointers params;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Shape& want = signature.parameters()[i];
    const DeviceBuffer* arg = arguments[i].get();
    // The code reads the parameter's bytes: an argument of another shape
    // would be read out of bounds.
    if (!arg->shape().Compatible(want)) {
      return InvalidArgument("CPU backend: argument %d has shape %s but parameter %d is %s", i, arg->shape().ToString(),
                             i, want.ToString());
    }
    if (!ShapeUtil::SameLayouts(arg->shape(), want)) {
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> copy,
                       DeviceBuffer::FromLiteral(arg->ToLiteral().RelayoutTo(want)));
      relaid.push_back(copy);
      arg = copy.get();
    }
    CollectLeaves(*arg, &params);
  }
  const Shape& result_shape = signature.result();
  // Result leaves written in place of donated arguments.
  absl::InlinedVector<std::shared_ptr<DeviceBuffer>, 4> given;
  if (!donated.empty()) {
    for (const InPlaceResult& in_place : in_place_results_) {
      if (in_place.parameter >= static_cast<int64_t>(donated.size())) continue;
      const std::shared_ptr<DeviceBuffer>& buffer = donated[in_place.parameter];
      int64_t number = in_place.result_leaf;
      const Shape* leaf = LeafShape(result_shape, &number);
      if (buffer == nullptr || leaf == nullptr || !buffer->owns_memory() || buffer->shape().IsTuple() ||
          !buffer->shape().Compatible(*leaf) || !ShapeUtil::SameLayouts(buffer->shape(), *leaf)) {
        continue;
      }
      if (given.size() <= static_cast<size_t>(in_place.result_leaf)) given.resize(in_place.result_leaf + 1);
      given[in_place.result_leaf] = buffer;
    }
  }
  std::shared_ptr<DeviceBuffer> result;
  if (given.empty()) {
    ASSIGN_OR_RETURN(result, DeviceBuffer::AllocateTreeOfCheckedShape(result_shape));
  } else {
    int64_t next_leaf = 0;
    ASSIGN_OR_RETURN(result, AllocateResult(result_shape, given, &next_leaf));
  }
  Pointers results;
  if (result_shape.IsTuple()) {
    for (DeviceBuffer* leaf : result->MutableLeaves()) results.push_back(leaf->mutable_data());
  } else {
    results.push_back(result->mutable_data());
  }

  const int64_t arena_size = std::max<int64_t>(arena_bytes_, 1);
  HostMemoryPool& pool = HostMemoryPool::Global();
  auto free_arena = [&pool, arena_size](char* p) { pool.Free(p, arena_size); };
  std::unique_ptr<char, decltype(free_arena)> arena(static_cast<char*>(pool.Allocate(arena_size)), free_arena);
  if (arena == nullptr) return ResourceExhausted("CPU backend: could not allocate a %d-byte arena", arena_size);
  // Runtime calls (collectives, feeds) report failures through the control:
  // a caller without one gets a local one.
  std::optional<ExecutionControl> local_control;
  if (control == nullptr) control = &local_control.emplace();
  entry_(params.data(), results.data(), arena.get(), device_, control);
  RETURN_IF_ERROR(control->error());
  if (control->stopped()) return control->StopStatus();
  return result;
}

}  // namespace cpu
}  // namespace xla
