#include "client/query_parameters.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::client {
namespace {

// Appends `value` as a single-quoted SQL string.
void AppendQuoted(std::string_view value, std::string* out) {
  out->push_back('\'');
  for (char c : value) {
    if (c == '\'' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('\'');
}

}  // namespace

absl::StatusOr<std::string> SubstituteParameters(
    std::string_view query, const std::map<std::string, std::string>& params) {
  std::string out;
  size_t i = 0;
  while (i < query.size()) {
    char c = query[i];
    if (c == '\'' || c == '"' || c == '`') {  // a quoted string or identifier, copied whole
      size_t end = i + 1;
      while (end < query.size() && query[end] != c) end += query[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, query.size());
      out.append(query.substr(i, end - i));
      i = end;
    } else if (query.substr(i, 2) == "--") {
      size_t end = query.find('\n', i);
      end = end == std::string_view::npos ? query.size() : end;
      out.append(query.substr(i, end - i));
      i = end;
    } else if (c == '{') {
      size_t colon = query.find(':', i);
      size_t close = query.find('}', i);
      std::string name = colon == std::string_view::npos
                             ? ""
                             : std::string(query.substr(i + 1, colon - i - 1));
      bool identifier = !name.empty() && close != std::string_view::npos && colon < close;
      for (char n : name) identifier = identifier && (absl::ascii_isalnum(n) || n == '_');
      if (!identifier) {
        out.push_back(c);
        ++i;
        continue;
      }
      auto value = params.find(name);
      if (value == params.end()) {
        return core::Error(core::ErrorCode::kBadArguments,
                           absl::StrCat("Substitution `", name, "` is not set (pass --param_",
                                        name, "=VALUE)"));
      }
      out.append("CAST(");
      AppendQuoted(value->second, &out);
      absl::StrAppend(&out, " AS ", std::string(query.substr(colon + 1, close - colon - 1)), ")");
      i = close + 1;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

}  // namespace granite::client
