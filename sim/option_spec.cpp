#include "sim/option_spec.h"

#include <algorithm>
#include <stdexcept>

namespace spatialsim::sim {

namespace {

struct Table {
  std::vector<OptionSpec> specs;
  bool sorted = true;
};

// Built on first use, because components register from static initialisers in any order.
Table& table() {
  static Table t;
  return t;
}

void sort_if_needed(Table& t) {
  if (t.sorted) return;
  std::sort(t.specs.begin(), t.specs.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  t.sorted = true;
}

}  // namespace

void OptionTable::add(const OptionSpec& spec) {
  if (spec.key.empty()) throw std::logic_error("option table: empty key");
  if (find(spec.key) != nullptr) throw std::logic_error("option table: key registered twice: " + spec.key);
  auto& t = table();
  t.specs.push_back(spec);
  t.sorted = false;
}

const std::vector<OptionSpec>& OptionTable::all() {
  auto& t = table();
  sort_if_needed(t);
  return t.specs;
}

const OptionSpec* OptionTable::find(const std::string& key) {
  const auto& specs = all();
  auto it = std::lower_bound(specs.begin(), specs.end(), key,
                             [](const OptionSpec& s, const std::string& k) { return s.key < k; });
  return (it != specs.end() && it->key == key) ? &*it : nullptr;
}

}  // namespace spatialsim::sim
