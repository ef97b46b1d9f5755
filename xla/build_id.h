// The build id of the binary (or shared library) this code is linked into:
// the GNU build-id note the linker writes (--build-id, set for every link in
// .bazelrc), as hex. Two processes of the same build have the same id; any
// rebuild that changes the linked code changes it. Persistent executables
// (the service's cache) are keyed by it, since their code calls this
// build's runtime functions.
#ifndef XLA_BUILD_ID_H_
#define XLA_BUILD_ID_H_

#include <string>

namespace xla {

// Empty when the object has no build-id note (a link without --build-id).
const std::string& BuildId();

}  // namespace xla

#endif  // XLA_BUILD_ID_H_
