#include "backends/cpu/transforms/row_fusion.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "xla/hlo/hlo_opcode.h"

namespace xla {
namespace cpu {

namespace {

using Predicate = std::function<bool(const HloInstruction*)>;

class RowLocality {
 public:
  RowLocality(const absl::flat_hash_set<const HloInstruction*>& members, const Predicate& fused)
      : members_(members), fused_(fused) {}

  // Whether generating `node` at an index whose dimension `row_dim` is the
  // current row r (-1: the index does not depend on r) reads, of the
  // members' buffers, only their row r.
  bool ReadsOnlyRow(const HloInstruction* node, int64_t row_dim) const {
    if (!fused_(node)) {
      if (!members_.contains(node)) return true;  // computed before the group
      return row_dim >= 0 && row_dim == RowDimension(node->shape());
    }
    return GeneratingReadsOnlyRow(node, row_dim);
  }

  // The same for computing `node` from its operands (whether or not it is
  // fused itself).
  bool GeneratingReadsOnlyRow(const HloInstruction* node, int64_t row_dim) const {
    const HloOpcode op = node->opcode();
    if (op == HloOpcode::kIota || op == HloOpcode::kConstant) return true;
    if (IsElementwise(op) || op == HloOpcode::kMap) {
      return absl::c_all_of(node->operands(), [&](const HloInstruction* o) {
        return ReadsOnlyRow(o, o->shape().rank() == node->shape().rank() ? row_dim : -1);
      });
    }
    if (op == HloOpcode::kBroadcast) {
      const auto& dims = node->dimensions();
      int64_t d = -1;
      for (int64_t k = 0; k < static_cast<int64_t>(dims.size()); ++k) {
        if (dims[k] == row_dim) d = k;
      }
      return ReadsOnlyRow(node->operand(0), d);
    }
    if (op == HloOpcode::kTranspose) {
      return ReadsOnlyRow(node->operand(0), row_dim >= 0 ? node->dimensions()[row_dim] : -1);
    }
    if (op == HloOpcode::kReduce && node->shape().IsArray()) {
      // Output dimension i is the operand's i-th kept dimension.
      const int64_t half = node->operand_count() / 2;
      const auto& reduced = node->dimensions();
      std::vector<int64_t> kept;
      for (int64_t d = 0; d < node->operand(0)->shape().rank(); ++d) {
        if (!absl::c_linear_search(reduced, d)) kept.push_back(d);
      }
      const int64_t d = row_dim >= 0 && row_dim < static_cast<int64_t>(kept.size()) ? kept[row_dim] : -1;
      for (int64_t i = 0; i < node->operand_count(); ++i) {
        if (!ReadsOnlyRow(node->operand(i), i < half ? d : -1)) return false;
      }
      return true;
    }
    // Anything else (concatenate, pad, slice, reverse, gather, ...) moves
    // elements between rows: none of its operands may reach a member. (Asking
    // ReadsAnyMember of `node` itself was wrong when `node` is the candidate:
    // not fused and not yet a member, it answered "reads none" unseen.)
    return absl::c_none_of(node->operands(), [&](const HloInstruction* o) { return ReadsAnyMember(o); });
  }

 private:
  bool ReadsAnyMember(const HloInstruction* node) const {
    if (!fused_(node)) return members_.contains(node);
    return absl::c_any_of(node->operands(), [&](const HloInstruction* o) { return ReadsAnyMember(o); });
  }

  const absl::flat_hash_set<const HloInstruction*>& members_;
  const Predicate& fused_;
};

// Whether `h` reads a member through a value that is neither emitted nor
// fused (a tuple, or a get-tuple-element of one): such a read sees the
// member whole, before the group's row loop has finished it, so h cannot
// join. Reads through fused instructions are RowLocality's to judge, and an
// emitted non-member was complete before the group began.
bool ReadsMemberThroughAlias(const HloInstruction* h, const absl::flat_hash_set<const HloInstruction*>& members,
                             const absl::flat_hash_set<const HloInstruction*>& emitted, const Predicate& fused) {
  std::vector<std::pair<const HloInstruction*, bool>> stack;  // (value, reached through an alias)
  for (const HloInstruction* operand : h->operands()) stack.push_back({operand, false});
  absl::flat_hash_set<std::pair<const HloInstruction*, bool>> seen;
  while (!stack.empty()) {
    auto [x, via_alias] = stack.back();
    stack.pop_back();
    if (!seen.insert({x, via_alias}).second) continue;
    if (members.contains(x)) {
      if (via_alias) return true;
      continue;
    }
    if (emitted.contains(x)) continue;
    const bool alias = via_alias || !fused(x);
    for (const HloInstruction* operand : x->operands()) stack.push_back({operand, alias});
  }
  return false;
}

}  // namespace

int MajorRangeLevel(const Shape& shape) {
  const auto& minor_to_major = shape.layout().minor_to_major();
  int level = static_cast<int>(minor_to_major.size()) - 1;
  while (level > 0 && shape.dimensions(minor_to_major[level]) == 1) --level;
  return std::max(level, 0);
}

int64_t RowDimension(const Shape& shape) {
  return shape.rank() == 0 ? -1 : shape.layout().minor_to_major(MajorRangeLevel(shape));
}

std::vector<RowGroup> FindRowGroups(absl::Span<const HloInstruction* const> emitted, const Predicate& loop_emitted,
                                    const Predicate& fused) {
  std::vector<RowGroup> groups;
  RowGroup current;
  absl::flat_hash_set<const HloInstruction*> members;
  const absl::flat_hash_set<const HloInstruction*> emitted_set(emitted.begin(), emitted.end());
  auto close = [&] {
    if (current.members.size() >= 2) groups.push_back(current);
    current = RowGroup();
    members.clear();
  };
  for (const HloInstruction* h : emitted) {
    const bool candidate = loop_emitted(h) && h->shape().IsArray() && h->shape().rank() > 0;
    const int64_t rows = candidate ? h->shape().dimensions(RowDimension(h->shape())) : 0;
    if (!candidate || rows < 2) {
      close();
      continue;
    }
    bool joins = !current.members.empty() && rows == current.rows &&
                 static_cast<int64_t>(current.members.size()) < kMaxRowGroupMembers;
    if (joins) {
      // Computing h's row r reads only row r of earlier members.
      joins = RowLocality(members, fused).GeneratingReadsOnlyRow(h, RowDimension(h->shape())) &&
              !ReadsMemberThroughAlias(h, members, emitted_set, fused);
    }
    if (!joins) {
      close();
      current.rows = rows;
    }
    current.members.push_back(h);
    members.insert(h);
  }
  close();
  return groups;
}

}  // namespace cpu
}  // namespace xla
