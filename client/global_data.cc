#include "client/global_data.h"

namespace xla {

GlobalData::~GlobalData() {
  if (released_ || service_ == nullptr) return;
  // Already-unregistered handles (an explicit Client::Unregister) are fine.
  service_->ReleaseHandle(handle_);
}

GlobalDataHandle GlobalData::Release() {
  released_ = true;
  return handle_;
}

}  // namespace xla
