// GlobalData: a client's owned reference to a buffer held by the service.
// Releases the handle when destroyed (ServiceInterface::ReleaseHandle).
#ifndef CLIENT_GLOBAL_DATA_H_
#define CLIENT_GLOBAL_DATA_H_

#include "proto/xla_data.pb.h"
#include "xla/service_interface.h"

namespace xla {

class GlobalData {
 public:
  GlobalData(ServiceInterface* service, GlobalDataHandle handle) : service_(service), handle_(handle) {}
  ~GlobalData();
  GlobalData(const GlobalData&) = delete;
  GlobalData& operator=(const GlobalData&) = delete;

  const GlobalDataHandle& handle() const { return handle_; }
  // Gives up ownership: the destructor will not unregister the handle.
  GlobalDataHandle Release();

 private:
  ServiceInterface* service_;
  GlobalDataHandle handle_;
  bool released_ = false;
};

}  // namespace xla

#endif  // CLIENT_GLOBAL_DATA_H_
