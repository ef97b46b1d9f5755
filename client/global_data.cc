#include "client/global_data.h"

namespace xla {

GlobalData::~GlobalData() {
  if (released_ || service_ == nullptr) return;
  UnregisterRequest request;
  *request.add_data() = handle_;
  UnregisterResponse response;
  // Already-unregistered handles (an explicit Client::Unregister) are fine.
  service_->Unregister(request, &response).IgnoreError();
}

GlobalDataHandle GlobalData::Release() {
  released_ = true;
  return handle_;
}

}  // namespace xla
