#include "core/metrics/events.h"

namespace granite::core {

const std::array<EventInfo, kEventCount>& AllEvents() {
  static const std::array<EventInfo, kEventCount> events = {{
#define GRANITE_EVENT_INFO(id, family, labels, unit, description) \
  {#id, family, labels, EventUnit::unit, description},
      GRANITE_EVENTS(GRANITE_EVENT_INFO)
#undef GRANITE_EVENT_INFO
  }};
  return events;
}

std::array<uint64_t, kEventCount> EventTotals() {
  std::array<uint64_t, kEventCount> totals;
  ThreadCounters::SumRange(0, kEventCount, totals.data());
  return totals;
}

}  // namespace granite::core
