#include "client/line_editor.h"

#include <editline/readline.h>

#include <cstdlib>

namespace granite::client {

LineEditor::LineEditor() {
  using_history();
  stifle_history(10000);
  read_history(HistoryPath().c_str());
}

LineEditor::~LineEditor() { write_history(HistoryPath().c_str()); }

std::string LineEditor::HistoryPath() {
  if (const char* explicit_path = std::getenv("GRANITE_HISTORY_FILE")) return explicit_path;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.granite-client-history";
}

bool LineEditor::ReadLine(const std::string& prompt, std::string* line) {
  char* text = readline(prompt.c_str());
  if (text == nullptr) return false;
  *line = text;
  std::free(text);
  return true;
}

void LineEditor::Remember(const std::string& statement) {
  if (statement.empty() || statement == last_) return;
  last_ = statement;
  add_history(statement.c_str());
}

}  // namespace granite::client
