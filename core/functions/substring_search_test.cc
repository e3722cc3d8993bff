#include "core/functions/substring_search.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "core/absl_compat.h"

namespace granite::core {
namespace {

using Isa = SubstringSearcher::Isa;

// The instruction sets this machine can run; AVX2 only where the CPU has it.
std::vector<Isa> TestedIsas() {
  std::vector<Isa> isas = {Isa::kScalar};
#if defined(__x86_64__)
  isas.push_back(Isa::kSse2);
  if (SubstringSearcher::CpuHasAvx2()) isas.push_back(Isa::kAvx2);
#endif
  return isas;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto: return "auto";
    case Isa::kScalar: return "scalar";
    case Isa::kSse2: return "sse2";
    case Isa::kAvx2: return "avx2";
  }
  return "?";
}

// The reference: std::string_view::find, on ASCII-lowered copies when folding.
size_t ReferenceFind(std::string_view haystack, std::string_view needle, bool fold) {
  if (!fold) return haystack.find(needle);
  const std::string h = absl::AsciiStrToLower(ToAbsl(haystack));
  const std::string n = absl::AsciiStrToLower(ToAbsl(needle));
  return std::string_view(h).find(n);
}

// Random text over a small alphabet (so needles recur and share prefixes), with upper case
// letters and the UTF-8 bytes of Cyrillic letters ("д" = D0 B4, "Д" = D0 94).
class TextGenerator {
 public:
  explicit TextGenerator(uint32_t seed) : rng_(seed) {}

  std::string Text(size_t length) {
    static constexpr std::string_view kPieces[] = {
        "a", "a", "a", "b", "b", "A", "B", "g", "o", "\xd0\xb4", "\xd0\x94", "\xd0", "\xff"};
    std::string text;
    while (text.size() < length) {
      text += kPieces[Uniform(std::size(kPieces))];
    }
    text.resize(length);
    return text;
  }

  size_t Uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  // A needle for `haystack`: often a piece of it (at either edge or inside), else random text.
  std::string Needle(const std::string& haystack) {
    const size_t length = Uniform(8) == 0 ? Uniform(71) : Uniform(6);
    switch (Uniform(4)) {
      case 0:
        return haystack.substr(0, length);
      case 1:
        return haystack.substr(haystack.size() - std::min(length, haystack.size()));
      case 2: {
        const size_t start = Uniform(haystack.size() + 1);
        return haystack.substr(start, length);
      }
      default:
        return Text(length);
    }
  }

 private:
  std::mt19937 rng_;
};

TEST(SubstringSearcherTest, AutoPicksAVectorLoop) {
  SubstringSearcher searcher("google");
#if defined(__x86_64__)
  EXPECT_EQ(searcher.isa(), SubstringSearcher::CpuHasAvx2() ? Isa::kAvx2 : Isa::kSse2);
#endif
  EXPECT_EQ(searcher.Find("http://www.google.com/"), 11u);
  EXPECT_EQ(searcher.Find("http://www.goo.gle.com/"), std::string_view::npos);
}

TEST(SubstringSearcherTest, EdgeCases) {
  for (Isa isa : TestedIsas()) {
    SCOPED_TRACE(IsaName(isa));
    EXPECT_EQ(SubstringSearcher("", false, isa).Find(""), 0u);
    EXPECT_EQ(SubstringSearcher("", false, isa).Find("abc"), 0u);
    EXPECT_EQ(SubstringSearcher("a", false, isa).Find(""), std::string_view::npos);
    EXPECT_EQ(SubstringSearcher("c", false, isa).Find("abc"), 2u);
    EXPECT_EQ(SubstringSearcher("C", true, isa).Find("abc"), 2u);
    EXPECT_EQ(SubstringSearcher("c", true, isa).Find("abCc"), 2u);
    EXPECT_EQ(SubstringSearcher("abc", false, isa).Find("ab"), std::string_view::npos);
    // Overlapping prefixes: the first candidate fails, the next one starts inside it.
    EXPECT_EQ(SubstringSearcher("aab", false, isa).Find("aaab"), 1u);
    const std::string long_text = std::string(40, 'a') + "ab" + std::string(40, 'a');
    EXPECT_EQ(SubstringSearcher("aab", false, isa).Find(long_text), 39u);
    EXPECT_EQ(SubstringSearcher(std::string(41, 'a') + "b", false, isa).Find(long_text), 0u);
    // Needle at the very end of a haystack longer than one vector step.
    const std::string tail_text = std::string(67, '.') + "xyz";
    EXPECT_EQ(SubstringSearcher("xyz", false, isa).Find(tail_text), 67u);
    EXPECT_EQ(SubstringSearcher("XYZ", true, isa).Find(tail_text), 67u);
    EXPECT_EQ(SubstringSearcher("xyzw", false, isa).Find(tail_text), std::string_view::npos);
    // Cyrillic: bytes are compared exactly, folding touches ASCII letters only.
    const std::string cyrillic = "url=/\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82-mir";
    EXPECT_EQ(SubstringSearcher("\xd0\xb8\xd0\xb2", false, isa).Find(cyrillic), 9u);
    EXPECT_EQ(SubstringSearcher("\xd0\xbf\xd1\x80", true, isa).Find(cyrillic),  // "пр" vs "Пр"
              std::string_view::npos);
    EXPECT_EQ(SubstringSearcher("\xd1\x82-MIR", true, isa).Find(cyrillic), 15u);
  }
}

TEST(SubstringSearcherTest, MatchesStringViewFindOnRandomInput) {
  TextGenerator gen(20261122);
  const std::vector<Isa> isas = TestedIsas();
  for (int iteration = 0; iteration < 20000; ++iteration) {
    // Mostly 0..70 bytes (URL-like rows), sometimes long enough for several vector steps.
    const std::string haystack = gen.Text(gen.Uniform(8) == 0 ? gen.Uniform(201) : gen.Uniform(71));
    const std::string needle = gen.Needle(haystack);
    const bool fold = gen.Uniform(3) == 0;
    // An exact-size heap copy, so that ASan reports any read past the end.
    std::unique_ptr<char[]> exact(new char[haystack.size() + (haystack.empty() ? 1 : 0)]);
    std::memcpy(exact.get(), haystack.data(), haystack.size());
    const std::string_view view(exact.get(), haystack.size());
    const size_t expected = ReferenceFind(haystack, needle, fold);
    for (Isa isa : isas) {
      ASSERT_EQ(SubstringSearcher(needle, fold, isa).Find(view), expected)
          << IsaName(isa) << " fold=" << fold << " needle=\"" << needle << "\" haystack=\""
          << haystack << "\"";
    }
  }
}

TEST(SubstringSearcherTest, NeverReadsPastTheEnd) {
  // The haystack ends at a page boundary followed by an inaccessible page: an overread faults.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mapping =
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  char* base = static_cast<char*>(mapping);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  std::memset(base, 'a', page);
  char* end = base + page;
  for (Isa isa : TestedIsas()) {
    for (size_t needle_size : {2, 3, 17, 33}) {
      const std::string needle = std::string(needle_size - 1, 'a') + "b";  // never found
      SubstringSearcher searcher(needle, false, isa);
      SubstringSearcher folded(needle, true, isa);
      for (size_t length = 0; length <= 140; ++length) {
        EXPECT_EQ(searcher.Find(end - length, end), end);
        EXPECT_EQ(folded.Find(end - length, end), end);
      }
    }
    // Found in the last bytes.
    end[-1] = 'b';
    EXPECT_EQ(SubstringSearcher("ab", false, isa).Find(base, end), end - 2);
    EXPECT_EQ(SubstringSearcher("AB", true, isa).Find(base, end), end - 2);
    end[-1] = 'a';
  }
  munmap(mapping, 2 * page);
}

// Builds a String column from `rows`.
Column StringsOf(const std::vector<std::string>& rows) {
  Column column(TypeId::kString);
  for (const std::string& row : rows) column.AppendString(row);
  return column;
}

std::vector<uint8_t> MarkedRows(const SubstringSearcher& searcher, const Column& strings) {
  std::vector<uint8_t> out(strings.size(), 0);
  searcher.MarkRowsContaining(strings, out.data());
  return out;
}

TEST(SubstringSearcherTest, ColumnRejectsHitsAcrossRowBoundaries) {
  for (Isa isa : TestedIsas()) {
    SCOPED_TRACE(IsaName(isa));
    const Column strings = StringsOf({"xgoo", "glex", "", "agoogle", "goog", "le", "google"});
    EXPECT_EQ(MarkedRows(SubstringSearcher("google", false, isa), strings),
              (std::vector<uint8_t>{0, 0, 0, 1, 0, 0, 1}));
    EXPECT_EQ(MarkedRows(SubstringSearcher("GOOGLE", true, isa), strings),
              (std::vector<uint8_t>{0, 0, 0, 1, 0, 0, 1}));
    EXPECT_EQ(MarkedRows(SubstringSearcher("", false, isa), strings),
              (std::vector<uint8_t>(7, 1)));
    EXPECT_EQ(MarkedRows(SubstringSearcher("x", false, isa), strings),
              (std::vector<uint8_t>{1, 1, 0, 0, 0, 0, 0}));
    // Rows far apart: the gallop over many non-matching rows finds the right one.
    std::vector<std::string> rows(5000, "http://example.com/page");
    rows[1] = "googl";
    rows[2] = "e";
    rows[4321] = "http://google.com";
    rows[4999] = "google";
    std::vector<uint8_t> expected(5000, 0);
    expected[4321] = expected[4999] = 1;
    EXPECT_EQ(MarkedRows(SubstringSearcher("google", false, isa), StringsOf(rows)), expected);
  }
}

TEST(SubstringSearcherTest, ColumnMatchesPerRowSearchOnRandomInput) {
  TextGenerator gen(7);
  const std::vector<Isa> isas = TestedIsas();
  for (int iteration = 0; iteration < 1500; ++iteration) {
    std::vector<std::string> rows(gen.Uniform(40));
    for (std::string& row : rows) row = gen.Text(gen.Uniform(gen.Uniform(4) == 0 ? 71 : 8));
    const Column strings = StringsOf(rows);
    const std::string needle = gen.Text(1 + gen.Uniform(5));
    const bool fold = gen.Uniform(3) == 0;
    std::vector<uint8_t> expected;
    for (const std::string& row : rows) {
      expected.push_back(ReferenceFind(row, needle, fold) != std::string_view::npos);
    }
    for (Isa isa : isas) {
      ASSERT_EQ(MarkedRows(SubstringSearcher(needle, fold, isa), strings), expected)
          << IsaName(isa) << " fold=" << fold << " needle=\"" << needle << "\"";
    }
  }
}

}  // namespace
}  // namespace granite::core
