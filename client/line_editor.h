// LineEditor: reads the interactive client's lines from a terminal with libedit (Debian's BSD
// editline): arrow keys, Emacs editing keys, Ctrl+R search, and a history file kept across
// sessions (~/.granite-client-history, or $GRANITE_HISTORY_FILE), as clickhouse-client keeps
// ~/.clickhouse-client-history. Used by client.cc only when stdin is a terminal.
#pragma once

#include <string>

namespace granite::client {

// Reads lines with editing and history.
// Thread-safety: one instance at a time, on one thread (libedit's readline state is global).
class LineEditor {
 public:
  // Loads the history file (a missing one is created on the first save).
  LineEditor();
  // Saves the history.
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // Shows `prompt` and reads one line into *line (without its newline); false at end of input or
  // when the read was interrupted (the caller tells the two apart by its interrupt count).
  bool ReadLine(const std::string& prompt, std::string* line);
  // Adds a finished statement to the history (consecutive duplicates are dropped).
  void Remember(const std::string& statement);

  // Returns the history file's path.
  static std::string HistoryPath();

 private:
  std::string last_;
};

}  // namespace granite::client
