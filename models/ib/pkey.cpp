#include "models/ib/pkey.hpp"

namespace hcasim::ib {

bool pkey_table_accepts(const std::vector<uint16_t>& table, uint16_t key) {
  for (uint16_t entry : table)
    if (pkey_match(entry, key)) return true;
  return false;
}

}  // namespace hcasim::ib
