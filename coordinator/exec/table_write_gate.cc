#include "coordinator/exec/table_write_gate.h"

#include <map>
#include <memory>
#include <mutex>

namespace granite::coordinator {
namespace {

std::shared_mutex& GateOf(const std::string& table) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<std::shared_mutex>> gates;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<std::shared_mutex>& gate = gates[table];
  if (!gate) gate = std::make_unique<std::shared_mutex>();
  return *gate;
}

}  // namespace

std::shared_lock<std::shared_mutex> LockTableForWrite(const std::string& table) {
  return std::shared_lock<std::shared_mutex>(GateOf(table));
}

std::unique_lock<std::shared_mutex> LockTableForRewrite(const std::string& table) {
  return std::unique_lock<std::shared_mutex>(GateOf(table));
}

}  // namespace granite::coordinator
