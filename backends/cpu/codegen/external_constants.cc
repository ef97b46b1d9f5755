#include "backends/cpu/codegen/external_constants.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "backends/host_memory_pool.h"

namespace xla {
namespace cpu {

void ExternalConstants::Add(std::string symbol, absl::string_view bytes) {
  constexpr size_t kAlignment = HostMemoryPool::kAlignment;
  // aligned_alloc wants a multiple of the alignment (and one byte at least).
  const size_t rounded = std::max<size_t>(1, (bytes.size() + kAlignment - 1) / kAlignment) * kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded);
  if (data == nullptr) throw std::bad_alloc();
  std::memcpy(data, bytes.data(), bytes.size());
  entries_.push_back(Entry{std::move(symbol), std::unique_ptr<char, void (*)(void*)>(static_cast<char*>(data), &std::free),
                           static_cast<int64_t>(bytes.size())});
  total_bytes_ += static_cast<int64_t>(bytes.size());
}

void ExternalConstants::AddInPlace(std::string symbol, absl::string_view bytes, std::shared_ptr<const void> owner) {
  // The symbol's address: the entry frees nothing, `owner` keeps the bytes.
  char* data = const_cast<char*>(bytes.data());
  entries_.push_back(Entry{std::move(symbol), std::unique_ptr<char, void (*)(void*)>(data, [](void*) {}),
                           static_cast<int64_t>(bytes.size())});
  total_bytes_ += static_cast<int64_t>(bytes.size());
  if (owners_.empty() || owners_.back() != owner) owners_.push_back(std::move(owner));
}

}  // namespace cpu
}  // namespace xla
