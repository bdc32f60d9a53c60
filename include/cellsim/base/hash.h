// Hashes whose function a format or a published figure fixes (for record
// checksums see checksum.h):
//   Fnv1a32  FNV-1a, 32 bits: small identifiers that must not change between
//            builds or runs (ASM disk incarnations, cell hash values), which
//            std::hash does not promise.
//   Md5      MD5 (RFC 1321): Oracle's SQL_ID and HASH_VALUE are taken from the
//            MD5 of a statement's text (db/sql_id.h).
// Both are pure functions, safe from any thread.
#ifndef CELLSIM_BASE_HASH_H_
#define CELLSIM_BASE_HASH_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace cellsim {

uint32_t Fnv1a32(std::string_view bytes);

using Md5Digest = std::array<uint8_t, 16>;
Md5Digest Md5(std::string_view bytes);

}  // namespace cellsim

#endif  // CELLSIM_BASE_HASH_H_
