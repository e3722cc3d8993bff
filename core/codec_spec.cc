#include "core/codec_spec.h"

#include <cctype>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr int kMaxZstdLevel = 22;
constexpr char kSuspiciousNote[] =
    " (Note: you can enable setting 'allow_suspicious_codecs' to skip this check)";

// A codec as written: a name and its integer arguments.
struct WrittenCodec {
  std::string name;
  std::vector<int64_t> args;
  size_t position = 0;  // of the name in the codec text, 0-based
};

// Splits "Delta, ZSTD(1)" into written codecs. Grammar: name [ '(' int {',' int} ')' ] {',' ...}.
absl::StatusOr<std::vector<WrittenCodec>> SplitCodecs(std::string_view text,
                                                      std::string_view column) {
  std::vector<WrittenCodec> out;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto fail = [&](std::string_view expected) {
    return Error(ErrorCode::kSyntaxError,
                 absl::StrCat("Cannot parse CODEC(", std::string(text), ") of column ",
                              std::string(column), ": expected ", std::string(expected),
                              " at position ", i + 1));
  };
  while (true) {
    skip();
    WrittenCodec codec;
    codec.position = i;
    while (i < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      codec.name.push_back(text[i++]);
    }
    if (codec.name.empty() || std::isdigit(static_cast<unsigned char>(codec.name[0]))) {
      return fail("a codec name");
    }
    skip();
    if (i < text.size() && text[i] == '(') {
      ++i;
      while (true) {
        skip();
        size_t begin = i;
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        const bool digits = i > begin && std::isdigit(static_cast<unsigned char>(text[i - 1]));
        if (!digits || i - begin > 12) {
          return fail("an integer codec argument");
        }
        codec.args.push_back(std::strtoll(std::string(text.substr(begin, i - begin)).c_str(),
                                          nullptr, 10));
        skip();
        if (i < text.size() && text[i] == ',') {
          ++i;
          continue;
        }
        if (i < text.size() && text[i] == ')') {
          ++i;
          break;
        }
        return fail("',' or ')'");
      }
      skip();
    }
    out.push_back(std::move(codec));
    if (i == text.size()) break;
    if (text[i] != ',') return fail("',' or the end of the codec list");
    ++i;
  }
  return out;
}

std::string StepText(const CodecStep& step) {
  switch (step.kind) {
    case CodecKind::kNone: return "NONE";
    case CodecKind::kLZ4: return "LZ4";
    case CodecKind::kLZ4HC: return absl::StrCat("LZ4HC(", step.param, ")");
    case CodecKind::kZSTD: return absl::StrCat("ZSTD(", step.param, ")");
    case CodecKind::kDelta: return absl::StrCat("Delta(", step.param, ")");
    case CodecKind::kDoubleDelta: return "DoubleDelta";
    case CodecKind::kGorilla: return absl::StrCat("Gorilla(", step.param, ")");
    case CodecKind::kT64: return "T64";
  }
  return "";
}

std::string ChainText(const std::vector<CodecStep>& steps) {
  std::vector<std::string> parts;
  for (const CodecStep& step : steps) parts.push_back(StepText(step));
  return absl::StrJoin(parts, ", ");
}

// Builds one step from a written codec for a column of `type` (Nullable removed).
absl::StatusOr<CodecStep> MakeStep(const WrittenCodec& codec, TypeId type,
                                   std::string_view column) {
  const std::string where = absl::StrCat(" (column ", std::string(column), ")");
  const std::string type_name(TypeName(type));
  const bool fixed = !HasStringLayout(type);
  const size_t width = fixed ? ValueSize(type) : 0;
  CodecStep step;
  auto no_args = [&]() -> absl::Status {
    if (codec.args.empty()) return absl::OkStatus();
    return Error(ErrorCode::kDataTypeCannotHaveArguments,
                 absl::StrCat("Compression codec ", codec.name, " cannot have arguments", where));
  };
  auto at_most_one = [&]() -> absl::Status {
    if (codec.args.size() <= 1) return absl::OkStatus();
    return Error(ErrorCode::kIllegalCodecParameter,
                 absl::StrCat(codec.name, " codec must have 1 parameter, given ",
                              codec.args.size(), where));
  };
  // The value width a preprocessing codec works on: its argument, else the type's.
  auto value_width = [&](bool numeric_only) -> absl::StatusOr<int> {
    if (!fixed) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Codec ", codec.name, " is not applicable for ", type_name,
                                " because the data type is not ",
                                numeric_only ? "numeric" : "of fixed size", where));
    }
    if (!codec.args.empty()) {
      int64_t n = codec.args[0];
      if (n != 1 && n != 2 && n != 4 && n != 8) {
        return Error(ErrorCode::kIllegalCodecParameter,
                     absl::StrCat(codec.name == "Delta" ? "Delta value for delta" : codec.name,
                                  " codec can be 1, 2, 4 or 8, given ", n, where));
      }
      return static_cast<int>(n);
    }
    if (width != 1 && width != 2 && width != 4 && width != 8) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Codec ", codec.name,
                                " is only applicable for data types of size 1, 2, 4, 8 bytes. "
                                "Given type ",
                                type_name, where));
    }
    return static_cast<int>(width);
  };
  if (codec.name == "NONE" || codec.name == "LZ4") {
    if (absl::Status s = no_args(); !s.ok()) return s;
    step.kind = codec.name == "NONE" ? CodecKind::kNone : CodecKind::kLZ4;
  } else if (codec.name == "LZ4HC") {
    if (absl::Status s = at_most_one(); !s.ok()) return s;
    step.kind = CodecKind::kLZ4HC;
    int64_t level = codec.args.empty() ? 0 : codec.args[0];
    if (level > 12 || level < -65536) {
      return Error(ErrorCode::kIllegalCodecParameter,
                   absl::StrCat("LZ4HC codec can't have level more than 12, given ", level, where));
    }
    step.param = static_cast<int>(level);
  } else if (codec.name == "ZSTD") {
    if (absl::Status s = at_most_one(); !s.ok()) return s;
    step.kind = CodecKind::kZSTD;
    int64_t level = codec.args.empty() ? 1 : codec.args[0];
    if (level > kMaxZstdLevel) {
      return Error(ErrorCode::kIllegalCodecParameter,
                   absl::StrCat("ZSTD codec can't have level more than ", kMaxZstdLevel,
                                ", given ", level, where));
    }
    if (level < -131072) {
      return Error(ErrorCode::kIllegalCodecParameter,
                   absl::StrCat("ZSTD codec can't have level less than -131072, given ", level,
                                where));
    }
    step.param = static_cast<int>(level);
  } else if (codec.name == "Delta" || codec.name == "DoubleDelta") {
    if (absl::Status s = at_most_one(); !s.ok()) return s;
    step.kind = codec.name == "Delta" ? CodecKind::kDelta : CodecKind::kDoubleDelta;
    absl::StatusOr<int> n = value_width(step.kind == CodecKind::kDoubleDelta);
    if (!n.ok()) return n.status();
    step.param = *n;
  } else if (codec.name == "Gorilla") {
    if (absl::Status s = at_most_one(); !s.ok()) return s;
    step.kind = CodecKind::kGorilla;
    absl::StatusOr<int> n = value_width(false);
    if (!n.ok()) return n.status();
    step.param = *n;
  } else if (codec.name == "T64") {
    if (absl::Status s = no_args(); !s.ok()) return s;
    const bool integer = IsInteger(type) || (IsDecimal(type) && width <= 8);
    if (!integer) {
      return Error(ErrorCode::kIllegalSyntaxForCodecType,
                   absl::StrCat("T64 codec is not supported for specified type ", type_name,
                                where));
    }
    step.kind = CodecKind::kT64;
    step.param = static_cast<int>(width);
    step.is_signed = IsSignedInteger(type) || IsDecimal(type);
  } else {
    return Error(ErrorCode::kUnknownCodec,
                 absl::StrCat("Unknown codec family: ", codec.name, where));
  }
  return step;
}

}  // namespace

bool IsGenericCodec(CodecKind kind) {
  return kind == CodecKind::kNone || kind == CodecKind::kLZ4 || kind == CodecKind::kLZ4HC ||
         kind == CodecKind::kZSTD;
}

std::string CodecSpec::ToString() const { return ChainText(steps); }

absl::StatusOr<CodecSpec> ParseCodecSpec(std::string_view text, TypeId type,
                                         std::string_view column) {
  absl::StatusOr<std::vector<WrittenCodec>> written = SplitCodecs(text, column);
  if (!written.ok()) return written.status();
  const TypeId value_type = RemoveNullable(type);
  CodecSpec spec;
  for (const WrittenCodec& codec : *written) {
    absl::StatusOr<CodecStep> step = MakeStep(codec, value_type, column);
    if (!step.ok()) return step.status();
    spec.steps.push_back(*step);
  }
  // ClickHouse's sanity checks on the chain (allow_suspicious_codecs = 0).
  const std::string chain = spec.ToString();
  const std::string where = absl::StrCat(" (column ", std::string(column), ")");
  bool generic_seen = false;
  bool compresses = false;
  for (const CodecStep& step : spec.steps) {
    if (step.kind == CodecKind::kNone && spec.steps.size() > 1) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("It does not make sense to have codec NONE along with other "
                                "compression codecs: ",
                                chain, ".", kSuspiciousNote, where));
    }
    if (generic_seen) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("The combination of compression codecs ", chain,
                                " is meaningless, because it does not make sense to apply any "
                                "transformations after generic compression algorithm.",
                                kSuspiciousNote, where));
    }
    if (step.kind == CodecKind::kGorilla && !IsFloat(value_type)) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("The combination of compression codecs ", chain,
                                " is meaningless, because it does not make sense to apply a "
                                "floating-point time series codec to non-floating-point columns",
                                kSuspiciousNote, where));
    }
    generic_seen = IsGenericCodec(step.kind);
    compresses = compresses || step.kind != CodecKind::kDelta;
  }
  if (!compresses) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Compression codec ", chain,
                              " does not compress anything. You may want to add generic "
                              "compression algorithm after other transformations, like: ",
                              chain, ", LZ4.", kSuspiciousNote, where));
  }
  return spec;
}

}  // namespace granite::core
