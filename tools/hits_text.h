// Builds the natural-looking strings of the synthetic `hits` table: search phrases, host names,
// URL paths, page titles and phone models, in mixed Russian (UTF-8 Cyrillic) and Latin text.
// Every function is a pure function of its integer key, so a page, a phrase or a host always has
// the same text wherever it appears (the anonymised ClickBench data keeps such consistency too).
// No word or syllable contains "google" or "Google": those substrings only appear where the
// generator puts them on purpose (they are query literals).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace granite::tools {

// Appends deterministic text derived from integer keys. Thread-safety: stateless; thread-safe.
class HitsText {
 public:
  // Appends a search phrase of 1-5 words (mostly Cyrillic). About 1 in 200 phrases starts with a
  // space, as some real ones do.
  static void AppendPhrase(uint64_t phrase_id, std::string* out);

  // Appends `words` space-separated words chosen by `key`; `latin_share` is the chance (0..1) of
  // each word being Latin instead of Cyrillic.
  static void AppendWords(uint64_t key, int words, double latin_share, std::string* out);

  // Appends a host name like "kamiro.ru" or "tezovi-lanu.com" (Latin syllables and a TLD).
  static void AppendHost(uint64_t host_key, std::string* out);

  // Appends a URL path starting with '/': 0-4 segments of words, Cyrillic (raw or
  // percent-encoded) and numbers, maybe a file suffix and a query string. `long_query` adds a
  // long query string (some sites carry hundreds of bytes of parameters).
  static void AppendPath(uint64_t page_key, bool long_query, std::string* out);

  // Appends a page title: 2-8 words, then " - " and the site's name derived from `site_key`.
  static void AppendTitle(uint64_t page_key, uint64_t site_key, std::string* out);

  // Appends `text` with every byte outside [A-Za-z0-9._~-] written as %XX, and ' ' as '+'.
  static void AppendPercentEncoded(std::string_view text, std::string* out);

  // Appends a random Latin token of 1-3 syllables chosen by `key` (used for parameter values).
  static void AppendToken(uint64_t key, std::string* out);
};

}  // namespace granite::tools
