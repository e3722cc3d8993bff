// Text forms of the Bool, UUID and DateTime64 values and FixedString padding, as ClickHouse writes
// and reads them. core/value_text.h calls these for those types, so every output format, input
// format, CAST and literal shares them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/types.h"

namespace granite::core {

// Appends "true" or "false" (any non-zero byte is true).
void AppendBoolText(uint8_t value, std::string* out);
// Parses ClickHouse's Bool words, case-insensitive: true / false, 1 / 0, yes / no, on / off,
// t / f, y / n, enable / disable. Returns false for anything else.
bool ParseBoolText(std::string_view text, uint8_t* value);

// A UUID value is the UInt128 ClickHouse compares: its low 64 bits are the first 16 hex digits of
// the text, its high 64 bits the last 16, so UUIDs order by the text's second half first (as
// ClickHouse orders them), and the value's little-endian bytes are ClickHouse's binary form.
//
// Appends the 36-character form "61f0c404-5cb3-11e7-907b-a6006ad3dba0".
void AppendUuidText(UnsignedInt128 value, std::string* out);
// Parses the 36-character form (hex digits of either case) or 32 hex digits without dashes.
bool ParseUuidText(std::string_view text, UnsignedInt128* value);
// The 16 bytes of a UUID in ClickHouse's binary formats (RowBinary, Native): each text half as a
// little-endian 64-bit number, the first half first (the value's own memory).
void UuidToClickHouseBytes(UnsignedInt128 value, char* out);
UnsignedInt128 UuidFromClickHouseBytes(const char* bytes);

// Returns 10^precision. REQUIRES: 0 <= precision <= 18.
int64_t TicksPerSecond(int precision);
// Appends "2023-01-02 03:04:05.123" (`precision` fraction digits; none for 0) of `ticks`
// 10^-precision seconds since the epoch (negative before 1970).
void AppendDateTime64Text(int64_t ticks, int precision, std::string* out);
// Parses "YYYY-MM-DD hh:mm:ss[.fraction]" ('T' allowed between date and time, a trailing 'Z'
// accepted), "YYYY-MM-DD", or a unix timestamp "seconds[.fraction]"; fraction digits beyond
// `precision` are dropped, fewer are padded. Returns false on malformed text or a value whose
// ticks overflow int64 (at precision 9: before 1677 or after 2262).
bool ParseDateTime64Text(std::string_view text, int precision, int64_t* ticks);
// Returns whether `ticks` of `precision` fall in years 0001 .. 9999 (printable as four digits).
bool DateTime64InRange(int64_t ticks, int precision);

}  // namespace granite::core
