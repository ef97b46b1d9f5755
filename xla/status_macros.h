// Status helpers: keep the happy path flat with RETURN_IF_ERROR and
// ASSIGN_OR_RETURN, and build error statuses with printf-style messages.
#ifndef XLA_STATUS_MACROS_H_
#define XLA_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"

namespace xla {

template <typename... Args>
absl::Status InvalidArgument(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::InvalidArgumentError(absl::StrFormat(format, args...));
}
template <typename... Args>
absl::Status NotFound(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::NotFoundError(absl::StrFormat(format, args...));
}
template <typename... Args>
absl::Status Unimplemented(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::UnimplementedError(absl::StrFormat(format, args...));
}
template <typename... Args>
absl::Status Internal(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::InternalError(absl::StrFormat(format, args...));
}
template <typename... Args>
absl::Status FailedPrecondition(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::FailedPreconditionError(absl::StrFormat(format, args...));
}
template <typename... Args>
absl::Status ResourceExhausted(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::ResourceExhaustedError(absl::StrFormat(format, args...));
}

// Returns `status` with `prefix: ` prepended to its message (same code).
absl::Status AddErrorContext(const absl::Status& status, absl::string_view prefix);

}  // namespace xla

#define XLA_STATUS_CONCAT_INNER(a, b) a##b
#define XLA_STATUS_CONCAT(a, b) XLA_STATUS_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status _xla_status = (expr);               \
    if (!_xla_status.ok()) return _xla_status;         \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(XLA_STATUS_CONCAT(_xla_statusor_, __LINE__), lhs, expr)

#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                          \
  if (!statusor.ok()) return statusor.status();    \
  lhs = std::move(statusor).value()

#endif  // XLA_STATUS_MACROS_H_
