// ConsumeWithinMemoryLimit: feeds a block held on the coordinator (a system table, a subquery's
// or a join's materialized rows) to a FragmentPipeline in slices, and stops between two slices
// once the thread's query is over its memory limit (core/memory/memory_tracker.h). One Consume of
// the whole block would build, say, a GROUP BY's whole hash table before anyone could look.
#pragma once

#include "absl/status/status.h"
#include "core/block.h"
#include "core/fragment_pipeline.h"

namespace granite::coordinator {

// Consumes `input` into `state`; MEMORY_LIMIT_EXCEEDED once the current query tracker is over.
absl::Status ConsumeWithinMemoryLimit(const core::FragmentPipeline& pipeline,
                                      core::FragmentPipeline::LocalState& state,
                                      const core::Block& input);

}  // namespace granite::coordinator
