// A gate per table between its writers and a rewrite of it. An INSERT holds its table's gate
// shared from before it reads the table's schema until its rows are committed; a rewrite (ALTER
// TABLE's copy-and-swap of the rows, DELETE) holds it exclusively from before it reads the schema
// until the swap. So no INSERT commits rows into the old table once its copy began (they would be
// lost with it), and an INSERT that waited reads the new table's schema.
//
// Thread-safety: thread-safe. Gates live for the process (one small entry per table name).
#pragma once

#include <mutex>
#include <shared_mutex>
#include <string>

namespace granite::coordinator {

std::shared_lock<std::shared_mutex> LockTableForWrite(const std::string& table);
std::unique_lock<std::shared_mutex> LockTableForRewrite(const std::string& table);

}  // namespace granite::coordinator
