#include "core/thread_name.h"

#include <pthread.h>

#include <algorithm>

namespace granite::core {

void SetCurrentThreadName(std::string_view name) {
  char buffer[16];  // the kernel's limit, with the terminating zero
  size_t length = std::min(name.size(), sizeof(buffer) - 1);
  name.copy(buffer, length);
  buffer[length] = '\0';
  (void)pthread_setname_np(pthread_self(), buffer);
}

}  // namespace granite::core
