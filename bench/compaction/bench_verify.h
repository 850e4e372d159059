// Host check of one compaction result in the benchmark (the tests do the thorough job): the
// count, every output word against the generator, order or uniqueness of the survivors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srt::compaction::bench {

// flags: the input keep flags; out: kept * words words of one field (field index 0, `seed`);
// returns "" or what is wrong.
std::string verifyOutput(const std::vector<uint8_t>& flags, const std::vector<uint32_t>& out,
                         uint32_t kept, uint32_t words, uint32_t seed, bool ordered);

}  // namespace srt::compaction::bench
