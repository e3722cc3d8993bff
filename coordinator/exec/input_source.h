// InputSource: the data of an INSERT ... FORMAT as it arrives, piece by piece (the gRPC service
// reads it from the client's stream of QueryInfo messages), so that the insert executor
// (coordinator/exec/insert_executor.h) parses and sends chunk after chunk instead of holding all of it.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Yields the pieces of a streamed input in order.
// Thread-safety: none; called from the thread that runs the query.
class InputSource {
 public:
  virtual ~InputSource() = default;

  // Replaces *piece with the next piece of text and returns true, or returns false at the end of
  // the input. An error (the client cancelled) fails the query that reads the input.
  virtual absl::StatusOr<bool> Next(std::string* piece) = 0;
  // Returns false once no further piece can come (the client said its input is complete); true
  // while it may.
  virtual bool HasMore() const { return true; }
};

}  // namespace granite::coordinator
