// An enum's names read both ways from one table: name, parse with the accepted names in the error, and an
// option read through Config::get_choice.
#include "sim/enum_names.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config.h"

namespace spatialsim::sim {
namespace {

enum class Shade : std::uint8_t { light, dark, very_dark };
// Not in enum order, to show that the table, not the enum's numbering, decides.
constexpr EnumNames<Shade, 3> kShadeNames{
    {{{Shade::dark, "dark"}, {Shade::light, "light"}, {Shade::very_dark, "very-dark"}}}};

TEST(EnumNames, NamesEveryValueAndParsesEveryName) {
  static_assert(kShadeNames.name(Shade::very_dark) == "very-dark");
  EXPECT_EQ(kShadeNames.names(), (std::vector<std::string>{"dark", "light", "very-dark"}));
  for (const Shade s : {Shade::light, Shade::dark, Shade::very_dark})
    EXPECT_EQ(kShadeNames.parse(kShadeNames.name(s), "shade"), s);
}

TEST(EnumNames, AnUnknownNameListsTheAcceptedOnesInTableOrder) {
  try {
    kShadeNames.parse("Dark", "shade");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown shade 'Dark' (accepted: dark, light, very-dark)");
  }
}

TEST(EnumNames, AValueMissingFromTheTableIsAProgrammingError) {
  constexpr EnumNames<Shade, 1> partial{{{{Shade::light, "light"}}}};
  EXPECT_THROW((void)partial.name(Shade::dark), std::logic_error);
}

TEST(EnumNames, FromConfigReadsTheChoiceAndNamesTheKeyOnAnyOtherValue) {
  Config config;
  config.set("machine.topology", "very-dark", "test");
  EXPECT_EQ(kShadeNames.from_config(config, "machine.topology"), Shade::very_dark);
  config.set("machine.topology", "grey", "test");
  try {
    kShadeNames.from_config(config, "machine.topology");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "machine.topology");
    EXPECT_NE(std::string(e.what()).find("very-dark"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spatialsim::sim
