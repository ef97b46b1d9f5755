#include "xla/program_digest.h"

#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/sha256.h"

namespace xla {
namespace {

// The serialization of a module goes through this stream into its digest,
// block by block: a module with megabytes of constants is never copied
// whole (as its serialization into one string would be). Up to one block,
// the digest is SHA-256 over the tag and the bytes. Beyond, each block of
// kBlockBytes gets its own SHA-256, computed alternately by this thread and
// a helper, and the digest is SHA-256 over another tag and the blocks'
// digests in order: two cores hash a model's weights in half the time. The
// two tags differ, so a flat input never equals a tree input.
class DigestingOutputStream : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  static constexpr absl::string_view kFlatTag = "HloModuleProto\n";
  static constexpr absl::string_view kTreeTag = "HloModuleProto tree\n";

  DigestingOutputStream() : current_(NewBuffer()) {}
  ~DigestingOutputStream() override { StopHelper(); }

  bool Next(void** data, int* size) override {
    if (used_ == kBlockBytes) EndBlock();
    *data = current_.get() + used_;
    *size = static_cast<int>(kBlockBytes - used_);
    used_ = kBlockBytes;
    return true;
  }
  void BackUp(int count) override { used_ -= static_cast<size_t>(count); }
  int64_t ByteCount() const override { return static_cast<int64_t>(blocks_ * kBlockBytes + used_); }

  // The digest of everything written (after the coded stream backed up what
  // it did not use).
  std::string Finish() {
    const absl::string_view last(current_.get(), used_);
    if (blocks_ == 0) return Sha256({kFlatTag, last});
    if (!last.empty()) EndBlock();
    StopHelper();
    Sha256Hasher tree;
    tree.Update(kTreeTag);
    absl::MutexLock lock(&mutex_);
    for (const std::string& leaf : leaves_) tree.Update(leaf);
    return tree.Finish();
  }

 private:
  // Not zeroed: a small module's digest touches only the bytes it writes.
  using Buffer = std::unique_ptr<char[]>;
  static Buffer NewBuffer() { return Buffer(new char[kBlockBytes]); }

  // The current block is complete: its digest is computed here (odd blocks)
  // or by the helper (even ones), and writing goes on in another buffer.
  void EndBlock() {
    const size_t index = blocks_++;
    Buffer block = std::move(current_);
    const size_t bytes = used_;
    used_ = 0;
    {
      absl::MutexLock lock(&mutex_);
      leaves_.resize(blocks_);
    }
    if (index % 2 == 1) {
      std::string leaf = Sha256({absl::string_view(block.get(), bytes)});
      absl::MutexLock lock(&mutex_);
      leaves_[index] = std::move(leaf);
      spare_.push_back(std::move(block));
    } else {
      if (!helper_.joinable()) helper_ = std::thread([this] { HelperLoop(); });
      absl::MutexLock lock(&mutex_);
      queue_.push_back(Job{index, bytes, std::move(block)});
    }
    absl::MutexLock lock(&mutex_);
    if (spare_.empty() && buffers_ < kMaxBuffers) {
      ++buffers_;
      current_ = NewBuffer();
      return;
    }
    mutex_.Await(absl::Condition(+[](std::vector<Buffer>* spare) { return !spare->empty(); }, &spare_));
    current_ = std::move(spare_.back());
    spare_.pop_back();
  }

  void HelperLoop() {
    absl::MutexLock lock(&mutex_);
    while (true) {
      mutex_.Await(absl::Condition(this, &DigestingOutputStream::HelperHasWork));
      if (queue_.empty()) return;  // stopping
      Job job = std::move(queue_.front());
      queue_.pop_front();
      mutex_.Unlock();
      std::string leaf = Sha256({absl::string_view(job.block.get(), job.bytes)});
      mutex_.Lock();
      leaves_[job.index] = std::move(leaf);
      spare_.push_back(std::move(job.block));
    }
  }
  bool HelperHasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !queue_.empty() || stopping_; }

  // Lets the helper finish its queue, then joins it.
  void StopHelper() {
    if (!helper_.joinable()) return;
    {
      absl::MutexLock lock(&mutex_);
      stopping_ = true;
    }
    helper_.join();
  }

  struct Job {
    size_t index, bytes;
    Buffer block;
  };
  // Blocks being written, waiting for or being hashed by the helper: the
  // memory this stream uses is at most kMaxBuffers blocks.
  static constexpr int kMaxBuffers = 4;

  Buffer current_;
  size_t used_ = 0;
  size_t blocks_ = 0;  // ended
  int buffers_ = 1;
  std::thread helper_;
  absl::Mutex mutex_;
  std::vector<std::string> leaves_ ABSL_GUARDED_BY(mutex_);
  std::deque<Job> queue_ ABSL_GUARDED_BY(mutex_);
  std::vector<Buffer> spare_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&out);
  }
  return bytes;
}

std::string ProgramDigest(const HloModuleProto& module) {
  DigestingOutputStream stream;
  {
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    module.SerializeToCodedStream(&out);
  }  // the coded stream gives back what it did not use
  return stream.Finish();
}

std::string HloTextDigest(absl::string_view hlo_text) { return Sha256({"hlo_text\n", hlo_text}); }

std::string StableHloTextDigest(absl::string_view stablehlo_text) {
  return Sha256({"stablehlo_text\n", stablehlo_text});
}

}  // namespace xla
