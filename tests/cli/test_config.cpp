// sim::Config: every typed getter's accepted and rejected values, and the one-line error format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config.h"

namespace spatialsim::sim {
namespace {

constexpr const char* kKey = "model.depth";
constexpr const char* kOrigin = "run.ini:12";

Config with(const std::string& value) {
  Config c;
  c.set(kKey, value, kOrigin);
  return c;
}

// The message a rejected value must produce, minus the getter's "what is accepted" tail.
std::string message_head(const std::string& quoted_value) {
  return std::string(kKey) + " = " + quoted_value + " (from " + kOrigin + "): ";
}

// What an error shows of a long word: 80 bytes, never half a UTF-8 character (a value of 79 bytes and an
// "\xc3\xa9" printed its first byte alone).
TEST(ShownPart, CutsAtEightyBytesOnACharacterBoundary) {
  EXPECT_EQ(shown_part(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(shown_part(std::string(81, 'a')), std::string(80, 'a'));
  EXPECT_EQ(shown_part(std::string(79, 'a') + "\xc3\xa9"
                                              "b"),
            std::string(79, 'a'));
  EXPECT_EQ(shown_part(std::string(78, 'a') + "\xc3\xa9"
                                              "b"),
            std::string(78, 'a') + "\xc3\xa9");
}

TEST(Config, ErrorMessageIsExactAndOneLine) {
  try {
    with("0").get_positive(kKey);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), kKey);
    EXPECT_STREQ(e.what(),
                 "model.depth = \"0\" (from run.ini:12): must be a whole number between 1 and "
                 "18446744073709551615");
  }
}

TEST(Config, ErrorMessageEscapesControlBytesAndQuotes) {
  try {
    with("4\n\"x\"\x01").get_uint(kKey);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_NE(what.find(R"("4\x0a\"x\"\x01")"), std::string::npos) << what;
  }
}

TEST(Config, LongValuesAreCutInMessages) {
  try {
    with(std::string(500, '7') + "z").get_uint(kKey);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 250u);
    EXPECT_NE(what.find("\"..."), std::string::npos) << what;
  }
}

TEST(Config, MissingKeyNamesIt) {
  Config c;
  try {
    c.get_uint("machine.nope");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "machine.nope");
    EXPECT_STREQ(e.what(), "machine.nope is not set (the default configuration has no such key)");
  }
  EXPECT_THROW(c.origin("machine.nope"), ConfigError);
  EXPECT_FALSE(c.has("machine.nope"));
}

TEST(Config, SetOverridesAndRecordsOrigin) {
  Config c;
  c.set("b.x", "1", "default");
  c.set("a.y", "2", "default");
  EXPECT_FALSE(c.is_explicit("b.x"));
  c.set("b.x", "3", "command line");
  EXPECT_EQ(c.raw("b.x"), "3");
  EXPECT_EQ(c.origin("b.x"), "command line");
  EXPECT_TRUE(c.is_explicit("b.x"));
  EXPECT_EQ(c.get_string("a.y"), "2");
  EXPECT_EQ(c.keys(), (std::vector<std::string>{"a.y", "b.x"}));
}

// A value set over a default keeps the default it replaced, through any number of later settings, so
// that an error about a size can say which option grew it over its default.
TEST(Config, DefaultRawIsTheBuiltInValueAValueReplaced) {
  Config c;
  c.set("b.x", "1", "default");
  ASSERT_NE(c.default_raw("b.x"), nullptr);
  EXPECT_EQ(*c.default_raw("b.x"), "1");
  c.set("b.x", "3", "run.ini:4");
  c.set("b.x", "5", "command line");
  ASSERT_NE(c.default_raw("b.x"), nullptr);
  EXPECT_EQ(*c.default_raw("b.x"), "1");
  EXPECT_EQ(c.raw("b.x"), "5");
  c.set("c.z", "9", "command line");  // no default under it
  EXPECT_EQ(c.default_raw("c.z"), nullptr);
  EXPECT_EQ(c.default_raw("d.none"), nullptr);
}

// What the user set, and where: every value not from the defaults, in key order, as errors show them.
TEST(Config, ExplicitSettingsNameValueAndOrigin) {
  Config c;
  c.set("b.x", "1", "default");
  c.set("a.y", "2", "default");
  EXPECT_EQ(c.explicit_settings(), std::vector<std::string>{});
  c.set("b.x", "3", "run.ini:4");
  c.set("c.z", "a \"b\"", "command line");
  EXPECT_EQ(c.explicit_settings(), (std::vector<std::string>{"b.x = \"3\" (from run.ini:4)",
                                                             "c.z = \"a \\\"b\\\"\" (from command line)"}));
  const std::string long_value(200, '7');  // not cut, as an error's value is: the origin is no help here
  c.set("d.w", long_value, "command line");
  EXPECT_EQ(c.explicit_settings().back(), "d.w = \"" + long_value + "\" (from command line)");
  // Bytes that are not UTF-8, in the value or the file's name, are \xNN as in an error line: results files
  // store these lines as UTF-8 text, and the raw 0xE9 of a Latin-1 "r\xe9s.h5" was not.
  c.set("e.v", "r\xe9s.h5", "c\xe9.ini:2");
  EXPECT_EQ(c.explicit_settings().back(), "e.v = \"r\\xe9s.h5\" (from c\\xe9.ini:2)");
  c.set("f.u", "r\xc3\xa9s.h5", "command line");  // UTF-8 is kept
  EXPECT_EQ(c.explicit_settings().back(), "f.u = \"r\xc3\xa9s.h5\" (from command line)");
}

TEST(Config, FailNamesKeyValueOriginAndWhatIsAccepted) {
  try {
    with("7").fail(kKey, "must be even");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "model.depth = \"7\" (from run.ini:12): must be even");
  }
}

// ---- accepted values ----

TEST(ConfigAccept, Int) {
  EXPECT_EQ(with("0").get_int(kKey), 0);
  EXPECT_EQ(with("-5").get_int(kKey), -5);
  EXPECT_EQ(with("+7").get_int(kKey), 7);
  EXPECT_EQ(with("9223372036854775807").get_int(kKey), INT64_MAX);
  EXPECT_EQ(with("-9223372036854775808").get_int(kKey), INT64_MIN);
}

TEST(ConfigAccept, UintAndPositive) {
  EXPECT_EQ(with("0").get_uint(kKey), 0u);
  EXPECT_EQ(with("18446744073709551615").get_uint(kKey), UINT64_MAX);
  EXPECT_EQ(with("+3").get_uint(kKey), 3u);
  EXPECT_EQ(with("1").get_positive(kKey), 1u);
  EXPECT_EQ(with("0012").get_positive(kKey), 12u);
}

TEST(ConfigAccept, Double) {
  EXPECT_EQ(with("0.5").get_double(kKey), 0.5);
  EXPECT_EQ(with("-2").get_double(kKey), -2.0);
  EXPECT_EQ(with("1e-3").get_double(kKey), 1e-3);
  EXPECT_EQ(with("1E3").get_double(kKey), 1000.0);
  EXPECT_EQ(with("+1.5").get_double(kKey), 1.5);
  EXPECT_EQ(with(".25").get_double(kKey), 0.25);
  // Full precision: no 6-digit round trip.
  EXPECT_EQ(with("0.1234567890123456").get_double(kKey), 0.1234567890123456);
  EXPECT_EQ(with("0").get_nonnegative_double(kKey), 0.0);
  EXPECT_EQ(with("2.5").get_nonnegative_double(kKey), 2.5);
  // -0 is 0, sign included: a -0 price made theory's reuse threshold -inf.
  EXPECT_FALSE(std::signbit(with("-0").get_nonnegative_double(kKey)));
  EXPECT_FALSE(std::signbit(with("-0.0e3").get_nonnegative_double(kKey)));
  EXPECT_GT(with("1e-310").get_nonnegative_double(kKey), 0.0);  // subnormal, not an underflow
}

TEST(ConfigAccept, Bool) {
  for (const char* t : {"true", "1", "yes", "on", "TRUE", "On"}) EXPECT_TRUE(with(t).get_bool(kKey)) << t;
  for (const char* f : {"false", "0", "no", "off", "False", "OFF"}) EXPECT_FALSE(with(f).get_bool(kKey)) << f;
}

TEST(ConfigAccept, Choice) {
  EXPECT_EQ(with("tanh").get_choice(kKey, {"relu", "tanh"}), "tanh");
  EXPECT_EQ(with("b").get_choice(kKey, std::vector<std::string>{"a", "b"}), "b");
}

TEST(ConfigAccept, Lists) {
  EXPECT_EQ(with("32,64,10").get_positive_list(kKey), (std::vector<std::uint64_t>{32, 64, 10}));
  EXPECT_EQ(with("4, 8").get_positive_list(kKey), (std::vector<std::uint64_t>{4, 8}));
  EXPECT_EQ(with("7").get_positive_list(kKey), (std::vector<std::uint64_t>{7}));
  EXPECT_TRUE(with("").get_positive_list(kKey).empty());
  EXPECT_EQ(with("forward,backprop").get_string_list(kKey),
            (std::vector<std::string>{"forward", "backprop"}));
  EXPECT_EQ(with(" a , b ").get_string_list(kKey), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(with("").get_string_list(kKey).empty());
}

TEST(ConfigAccept, Dims) {
  using Dims = std::pair<std::uint32_t, std::uint32_t>;
  EXPECT_EQ(with("4x4").get_dims(kKey), Dims(4, 4));
  EXPECT_EQ(with("32x16").get_dims(kKey), Dims(32, 16));
  EXPECT_EQ(with("1X2").get_dims(kKey), Dims(1, 2));
  EXPECT_EQ(with("4294967295x1").get_dims(kKey), Dims(4294967295u, 1));
  EXPECT_EQ(with("auto").get_dims(kKey, true), Dims(0, 0));
}

// ---- rejected values ----

enum class Getter {
  kInt,
  kUint,
  kPositive,
  kDouble,
  kNonNegative,
  kBool,
  kChoice,
  kPositiveList,
  kStringList,
  kDims,
  kDimsOrAuto
};

struct Rejected {
  Getter getter;
  std::string value;
  std::string accepted;  // expected tail of the message
};

void PrintTo(const Rejected& c, std::ostream* os) {
  *os << "getter " << static_cast<int>(c.getter) << ", value \"" << c.value << '"';
}

void call(Getter g, const Config& c) {
  switch (g) {
    case Getter::kInt:
      c.get_int(kKey);
      break;
    case Getter::kUint:
      c.get_uint(kKey);
      break;
    case Getter::kPositive:
      c.get_positive(kKey);
      break;
    case Getter::kDouble:
      c.get_double(kKey);
      break;
    case Getter::kNonNegative:
      c.get_nonnegative_double(kKey);
      break;
    case Getter::kBool:
      c.get_bool(kKey);
      break;
    case Getter::kChoice:
      c.get_choice(kKey, {"relu", "tanh"});
      break;
    case Getter::kPositiveList:
      c.get_positive_list(kKey);
      break;
    case Getter::kStringList:
      c.get_string_list(kKey);
      break;
    case Getter::kDims:
      c.get_dims(kKey);
      break;
    case Getter::kDimsOrAuto:
      c.get_dims(kKey, true);
      break;
  }
}

class ConfigReject : public testing::TestWithParam<Rejected> {};

TEST_P(ConfigReject, ThrowsNamingKeyValueOriginAndAccepted) {
  const auto& p = GetParam();
  try {
    call(p.getter, with(p.value));
    FAIL() << "accepted \"" << p.value << "\"";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), kKey);
    EXPECT_EQ(std::string(e.what()), message_head("\"" + p.value + "\"") + p.accepted);
  }
}

const std::string kIntRange = "must be a whole number between -9223372036854775808 and 9223372036854775807";
const std::string kUintRange = "must be a whole number between 0 and 18446744073709551615";
const std::string kPositiveRange = "must be a whole number between 1 and 18446744073709551615";
const std::string kFinite = "must be a finite decimal number (for example 0.5, -2 or 1e-3)";
const std::string kNonNegative = "must be a finite decimal number >= 0 (for example 0, 0.5 or 1e-3)";
const std::string kUnderflow =
    "is closer to 0 than any double (the smallest is about 4.9e-324); give 0, or a number further from 0";
const std::string kBoolAccepted = "must be true/false, 1/0, yes/no or on/off";
const std::string kPositiveListAccepted =
    "must be a comma-separated list of whole numbers between 1 and 18446744073709551615 (for example "
    "32,64,10), or empty";
const std::string kStringListAccepted =
    "must be a comma-separated list without empty elements (for example a,b,c), or empty";
const std::string kDimsAccepted =
    "must be RxC with whole numbers R and C between 1 and 4294967295 (for example 4x4)";

INSTANTIATE_TEST_SUITE_P(
    Table, ConfigReject,
    testing::Values(
        Rejected{Getter::kInt, "12abc", kIntRange}, Rejected{Getter::kInt, "", kIntRange},
        Rejected{Getter::kInt, " 1", kIntRange}, Rejected{Getter::kInt, "1.0", kIntRange},
        Rejected{Getter::kInt, "9223372036854775808", kIntRange},
        Rejected{Getter::kInt, "-9223372036854775809", kIntRange}, Rejected{Getter::kInt, "--1", kIntRange},
        Rejected{Getter::kInt, "+-1", kIntRange}, Rejected{Getter::kInt, "0x10", kIntRange},
        Rejected{Getter::kInt, "1e3", kIntRange}, Rejected{Getter::kInt, "+", kIntRange},
        Rejected{Getter::kUint, "-1", kUintRange}, Rejected{Getter::kUint, "-0", kUintRange},
        Rejected{Getter::kUint, "18446744073709551616", kUintRange},
        Rejected{Getter::kUint, "1 000", kUintRange}, Rejected{Getter::kUint, "abc", kUintRange},
        Rejected{Getter::kPositive, "0", kPositiveRange}, Rejected{Getter::kPositive, "-3", kPositiveRange},
        Rejected{Getter::kPositive, "99999999999999999999", kPositiveRange},
        Rejected{Getter::kDouble, "nan", kFinite}, Rejected{Getter::kDouble, "inf", kFinite},
        Rejected{Getter::kDouble, "-inf", kFinite}, Rejected{Getter::kDouble, "1e999", kFinite},
        Rejected{Getter::kDouble, "1.0.0", kFinite}, Rejected{Getter::kDouble, "", kFinite},
        Rejected{Getter::kDouble, "0x1p3", kFinite}, Rejected{Getter::kDouble, "1,5", kFinite},
        Rejected{Getter::kDouble, "0.5 ", kFinite}, Rejected{Getter::kDouble, "++1", kFinite},
        Rejected{Getter::kNonNegative, "-0.5", kNonNegative},
        Rejected{Getter::kNonNegative, "-1e-9", kNonNegative},
        Rejected{Getter::kNonNegative, "x", kNonNegative},
        Rejected{Getter::kNonNegative, "nan", kNonNegative}, Rejected{Getter::kDouble, "1e-400", kUnderflow},
        Rejected{Getter::kDouble, "-1e-400", kUnderflow},
        Rejected{Getter::kNonNegative, "1e-400", kUnderflow},
        Rejected{Getter::kNonNegative, "inf", kNonNegative}, Rejected{Getter::kBool, "2", kBoolAccepted},
        Rejected{Getter::kBool, "maybe", kBoolAccepted}, Rejected{Getter::kBool, "", kBoolAccepted},
        Rejected{Getter::kBool, "tru", kBoolAccepted},
        Rejected{Getter::kChoice, "RELU", "must be one of: relu, tanh"},
        Rejected{Getter::kChoice, "", "must be one of: relu, tanh"},
        Rejected{Getter::kChoice, "relu ", "must be one of: relu, tanh"},
        Rejected{Getter::kPositiveList, "1,,2", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, "1,", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, "0,1", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, "a", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, ",", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, "1;2", kPositiveListAccepted},
        Rejected{Getter::kPositiveList, "1,18446744073709551616", kPositiveListAccepted},
        Rejected{Getter::kStringList, "a,,b", kStringListAccepted},
        Rejected{Getter::kStringList, "a,", kStringListAccepted},
        Rejected{Getter::kStringList, ",", kStringListAccepted}, Rejected{Getter::kDims, "4", kDimsAccepted},
        Rejected{Getter::kDims, "4x", kDimsAccepted}, Rejected{Getter::kDims, "x4", kDimsAccepted},
        Rejected{Getter::kDims, "0x4", kDimsAccepted}, Rejected{Getter::kDims, "4x0", kDimsAccepted},
        Rejected{Getter::kDims, "4x4x4", kDimsAccepted}, Rejected{Getter::kDims, "-1x4", kDimsAccepted},
        Rejected{Getter::kDims, "+4x4", kDimsAccepted}, Rejected{Getter::kDims, "4x+4", kDimsAccepted},
        Rejected{Getter::kDims, "4 x 4", kDimsAccepted},
        Rejected{Getter::kDims, "4294967296x1", kDimsAccepted},
        Rejected{Getter::kDims, "auto", kDimsAccepted},
        Rejected{Getter::kDimsOrAuto, "AUTO", kDimsAccepted + ", or auto"},
        Rejected{Getter::kDimsOrAuto, "", kDimsAccepted + ", or auto"}));

}  // namespace
}  // namespace spatialsim::sim
