#include "coordinator/exec/local_consume.h"

#include "core/block_sort.h"
#include "core/memory/memory_tracker.h"
#include "core/status_macros.h"

namespace granite::coordinator {

absl::Status ConsumeWithinMemoryLimit(const core::FragmentPipeline& pipeline,
                                      core::FragmentPipeline::LocalState& state,
                                      const core::Block& input) {
  // Large enough that the slices' copies and calls cost nothing next to the work on them.
  constexpr size_t kSliceRows = size_t{1} << 20;
  const size_t rows = input.rows();
  if (rows <= kSliceRows) {
    RETURN_IF_ERROR(pipeline.Consume(state, input));
    return core::CurrentMemoryLimitStatus();
  }
  for (size_t at = 0; at < rows; at += kSliceRows) {
    RETURN_IF_ERROR(pipeline.Consume(state, core::SliceRows(input, at, kSliceRows)));
    RETURN_IF_ERROR(core::CurrentMemoryLimitStatus());
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
