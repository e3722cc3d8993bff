// Status propagation macros used across granite (absl::Status / absl::StatusOr, no exceptions).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define GRANITE_CONCAT_INNER(a, b) a##b
#define GRANITE_CONCAT(a, b) GRANITE_CONCAT_INNER(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    ::absl::Status granite_status_ = (expr);       \
    if (!granite_status_.ok()) return granite_status_; \
  } while (false)

// Evaluates a StatusOr expression; on error returns its status, else moves its value into `lhs`.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(GRANITE_CONCAT(granite_statusor_, __LINE__), lhs, expr)

#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                          \
  if (!statusor.ok()) return statusor.status();    \
  lhs = std::move(statusor).value()
