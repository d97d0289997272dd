#pragma once
// Options document themselves where they are used: a component's .cpp registers the keys it reads, with
// unit and help text, and the front end builds --help and the unknown-key check from this table.
// Default values are not here: they live in configs/default.ini (compiled in), the single source.
//
// Usage (in a component's .cpp):
//   namespace { const sim::OptionRegistration options{
//       {"machine.topology", "choice", "mesh | torus: links between the four neighbours, wrapping or not"},
//       {"sim.seed", "seed", "seed of weights and data", sim::OptionReach::values_only}};
//       }

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace spatialsim::sim {

// What setting an option can change. values_only: the numbers a run computes (a seed, a learning rate, the
// data), never a count; a run that computes no numbers (counting mode) refuses it rather than ignore it.
enum class OptionReach : std::uint8_t { counts, values_only };

struct OptionSpec {
  std::string key;   // section.key, as in the INI file and on the command line
  std::string unit;  // "tiles", "bytes", "cycles", "pJ", "choice", "bool", "list", "path", ...
  std::string help;  // one line: what it does and what values are accepted
  OptionReach reach = OptionReach::counts;
};

class OptionTable {
 public:
  static void add(const OptionSpec& spec);      // a key registered twice is a program error (throws)
  static const std::vector<OptionSpec>& all();  // sorted by key
  static const OptionSpec* find(const std::string& key);
};

struct OptionRegistration {
  OptionRegistration(std::initializer_list<OptionSpec> specs) {
    for (const auto& s : specs) OptionTable::add(s);
  }
};

}  // namespace spatialsim::sim
