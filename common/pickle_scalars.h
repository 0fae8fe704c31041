// Decoders of the scalars a pickle holds in its own encodings: little-endian and two's complement
// ints, protocol 0's decimal lines and its raw-unicode-escape text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace memfloor::common {

// The unsigned little-endian integer of `bytes` (at most 8 of them).
uint64_t littleEndian(std::span<const uint8_t> bytes);

// LONG1's and LONG4's value: little-endian two's complement of any length (none is 0); nullopt
// when it is outside int64.
std::optional<int64_t> twosComplement(std::span<const uint8_t> bytes);

// The int of a protocol 0 decimal line (INT, LONG without its 'L', GET, PUT): an optional '-'
// then digits. nullopt when it is not that, or outside int64.
std::optional<int64_t> decimalInt(std::string_view line);

// The float of a FLOAT line as Python's repr writes it ("0.5", "1e+100", "inf", "nan").
std::optional<double> decimalFloat(std::string_view line);

// UNICODE's line decoded from raw-unicode-escape (bytes are Latin-1 code points, \uXXXX and
// \UXXXXXXXX escapes after an odd run of backslashes) to UTF-8; nullopt for a bad escape.
std::optional<std::string> rawUnicodeEscape(std::string_view line);

}  // namespace memfloor::common
