// Counts Ctrl+C presses (SIGINT) for the interactive client, which turns them into a query cancel
// (while a query runs) or into discarding the statement being typed (at the prompt).
#pragma once

#include <signal.h>

namespace granite::client {

// Installs a SIGINT handler that only counts signals, and restores the previous handler when
// destroyed. The count is process-wide (a signal handler has no object to talk to).
// Thread-safety: Count() and Reset() may be called from any thread; the handler touches only a
// lock-free atomic. At most one InterruptWatcher may exist at a time.
class InterruptWatcher {
 public:
  InterruptWatcher();
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // Returns the number of SIGINTs since construction or the last Reset().
  int Count() const;
  void Reset();

  // Chooses whether a system call that SIGINT interrupts is restarted (SA_RESTART). Reading a line
  // at the prompt wants it off, so that Ctrl+C ends the read at once; the rest wants it on.
  void SetRestartSystemCalls(bool restart);

 private:
  struct sigaction previous_;
};

}  // namespace granite::client
