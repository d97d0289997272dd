#pragma once
// The names of an enum's values as options and outputs spell them: one table read both ways, so that the
// name printed, the names an option accepts and the value a name parses to cannot drift apart.
//
// Usage:
//   enum class Colour : std::uint8_t { red, green };
//   constexpr sim::EnumNames<Colour, 2> kColourNames{
//       {{{Colour::red, "red"}, {Colour::green, "green"}}}};
//   kColourNames.name(Colour::green);                  // "green"
//   kColourNames.from_config(config, "paint.colour");  // via Config::get_choice: a ConfigError naming
//                                                      // the key and the names for any other value
//   kColourNames.parse("blue", "colour");  // invalid_argument: unknown colour 'blue' (accepted: red, green)

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config.h"
#include "sim/text.h"

namespace spatialsim::sim {

template <typename Enum, std::size_t N>
struct EnumNames {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  constexpr std::string_view name(Enum value) const {
    for (const auto& [v, n] : entries)
      if (v == value) return n;
    throw std::logic_error("EnumNames: a value without a name");
  }

  // In table order: the order --help lists them and option errors offer them.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }

  // `what` names the thing in the error ("activation", "loss").
  Enum parse(std::string_view text, std::string_view what) const {
    for (const auto& [v, n] : entries)
      if (n == text) return v;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(text) +
                                "' (accepted: " + joined(names()) + ")");
  }

  Enum from_config(const Config& config, const std::string& key) const {
    return parse(config.get_choice(key, names()), key);
  }
};

}  // namespace spatialsim::sim
