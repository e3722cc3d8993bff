// TransportMemoryScope: charges what gRPC allocates and frees during one call on this thread (a
// stream's Write or Read, a unary call) to the server's MemoryTracker, not to the thread's query.
//
// Why: gRPC serializes a message into its own slices on the thread that calls Write, and its
// transport frees them on whichever thread ends up writing them to the socket: its executor, a
// poller, another call's handler. A query that wrote its result under its own tracker was
// charged every slice and credited almost none, so a streamed SELECT's tracker grew by each
// block it sent (about 5 MiB) until MEMORY_LIMIT_EXCEEDED, whatever it really held (issue 23).
// The read buffers gRPC fills while a thread polls inside Read move between threads alike.
// gRPC's own threads charge the server tracker; inside this scope ours do too, so transport
// bytes are the server's on both sides. They stay under max_server_memory_usage and are bounded
// by the streams' flow-control windows: a sync Write returns once its message is in the
// transport.
//
// The query's own pending balance is set aside, untouched, for the length of the call: the
// query is charged exactly as if the call had allocated nothing (no extra flush, so no extra
// limit check in the middle of a small query).
//
// Not for reads whose message the query keeps (an INSERT's input moved out of its QueryInfo):
// the message's own strings are parsed inside Read, and would be charged to the server but
// freed by the query. A reader that reuses one message object keeps its strings' capacity from
// read to read, so only the last one's bytes change sides.
#pragma once

#include "core/memory/memory_tracker.h"

namespace granite::core {

// Thread-safety: a scope belongs to the thread that made it; scopes nest.
class TransportMemoryScope {
 public:
  TransportMemoryScope() : saved_(memory_internal::thread_memory) {
    memory_internal::thread_memory.tracker = nullptr;
    memory_internal::thread_memory.untracked = 0;
  }
  ~TransportMemoryScope() {
    memory_internal::Flush();  // to the server tracker
    memory_internal::thread_memory = saved_;
  }
  TransportMemoryScope(const TransportMemoryScope&) = delete;
  TransportMemoryScope& operator=(const TransportMemoryScope&) = delete;

 private:
  const memory_internal::ThreadMemory saved_;
};

}  // namespace granite::core
