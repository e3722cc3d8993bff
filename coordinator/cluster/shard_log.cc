#include "coordinator/cluster/shard_log.h"

#include <xxhash.h>

#include <cstdio>

namespace granite::coordinator {

std::string BlockNameOf(const std::string& id) {
  XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text;
}

}  // namespace granite::coordinator
