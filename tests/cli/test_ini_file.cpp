// The INI reader: grammar, line numbers in errors, files, and robustness against arbitrary bytes.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "cli/embedded_default_config.h"
#include "cli/ini_file.h"

namespace spatialsim::cli {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_ini(text, "run.ini");
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(IniFile, ParsesSectionsTopLevelCommentsAndEmptyValues) {
  const auto entries = parse_ini(
      "# comment\n"
      "schedule = forward,backprop\n"
      "\n"
      "  ; another comment\n"
      "[model]\n"
      "depth=8\n"
      "  widths =   \n"
      "[ machine ]\n"
      "\ttopology\t=\ttorus  \n",
      "run.ini");
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].key, "schedule");
  EXPECT_EQ(entries[0].value, "forward,backprop");
  EXPECT_EQ(entries[0].line, 2u);
  EXPECT_EQ(entries[1].key, "model.depth");
  EXPECT_EQ(entries[1].value, "8");
  EXPECT_EQ(entries[1].line, 6u);
  EXPECT_EQ(entries[2].key, "model.widths");
  EXPECT_EQ(entries[2].value, "");
  EXPECT_EQ(entries[3].key, "machine.topology");
  EXPECT_EQ(entries[3].value, "torus");
  EXPECT_EQ(entries[3].line, 9u);
}

// A '#' not after a blank is part of the value (a file name may hold one), and so is a ';' anywhere:
// sweep.vary separates its keys with it, blanks around it allowed.
TEST(IniFile, ValueKeepsEqualsSignsHashesAndSemicolons) {
  const auto entries =
      parse_ini("[sweep]\nvary = model.depth=2,4 ; step.tokens=64,128\nout = run#3;a.h5\n", "x");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].value, "model.depth=2,4 ; step.tokens=64,128");
  EXPECT_EQ(entries[1].value, "run#3;a.h5");
}

TEST(IniFile, CrLfBomAndMissingFinalNewline) {
  const auto entries = parse_ini("\xEF\xBB\xBF[model]\r\ndepth = 3\r\n\r\nwidth = 5", "x");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key, "model.depth");
  EXPECT_EQ(entries[0].value, "3");
  EXPECT_EQ(entries[1].value, "5");
  EXPECT_EQ(entries[1].line, 4u);
}

TEST(IniFile, DottedKeysOnlyAtTopLevel) {
  const auto entries = parse_ini("model.depth = 3\n", "x");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, "model.depth");
  EXPECT_EQ(error_of("[model]\na.b = 1\n"),
            "run.ini:2: a key must be letters, digits, '_' or '-', got \"a.b\"");
}

TEST(IniFile, EmptyTextHasNoEntries) {
  EXPECT_TRUE(parse_ini("", "x").empty());
  EXPECT_TRUE(parse_ini("\n\n# only comments\n", "x").empty());
}

struct BadIni {
  std::string text;
  std::string message;
};

void PrintTo(const BadIni& c, std::ostream* os) {
  *os << testing::PrintToString(c.text);  // escaped: the texts hold control bytes
}

class IniFileRejects : public testing::TestWithParam<BadIni> {};

TEST_P(IniFileRejects, WithFileAndLine) {
  EXPECT_EQ(error_of(GetParam().text), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, IniFileRejects,
    testing::Values(
        BadIni{"[model]\ndepth = 1\n\ndepth = 2\n",
               "run.ini:4: model.depth is set twice in this file (first on line 2)"},
        BadIni{"a = 1\nmodel.depth = 1\n[model]\ndepth = 2\n",
               "run.ini:4: model.depth is set twice in this file (first on line 2)"},
        BadIni{"[model]\njust words\n",
               "run.ini:2: expected \"key = value\", \"[section]\" or a comment, got \"just words\""},
        BadIni{"\n\n[model\n",
               "run.ini:3: a section header must be [name] alone on its line, got \"[model\""},
        BadIni{"[model] x\n",
               "run.ini:1: a section header must be [name] alone on its line, got \"[model] x\""},
        BadIni{"[]\n",
               "run.ini:1: a section name must be letters, digits, '_' or '-' (no nesting), got \"[]\""},
        BadIni{"[a.b]\n",
               "run.ini:1: a section name must be letters, digits, '_' or '-' (no nesting), got \"[a.b]\""},
        BadIni{"[a b]\n",
               "run.ini:1: a section name must be letters, digits, '_' or '-' (no nesting), got \"[a b]\""},
        BadIni{"= 4\n", "run.ini:1: missing key before '='"},
        BadIni{"[m]\nkey with space = 4\n",
               "run.ini:2: a key must be letters, digits, '_' or '-', got \"key with space\""},
        BadIni{"a..b = 1\n",
               "run.ini:1: a key must be letters, digits, '_' or '-' (dots between parts allowed here), got "
               "\"a..b\""},
        BadIni{"x\x01y = 1\n", "run.ini:1: control character \\x01 in the line: a config file is text"},
        BadIni{"model.depth = 4\n\xEF\xBB\xBFmodel.width = 8\n",
               "run.ini:2: a key must be letters, digits, '_' or '-' (dots between parts allowed here), got "
               "\"\\xef\\xbb\\xbfmodel.width\""},
        BadIni{
            "[m\xff]\n",
            "run.ini:1: a section name must be letters, digits, '_' or '-' (no nesting), got \"[m\\xff]\""},
        BadIni{"]\n", "run.ini:1: expected \"key = value\", \"[section]\" or a comment, got \"]\""},
        // A comment after a value would become part of it: a file named "r.h5   # results" was written.
        BadIni{"out = r.h5   # results\n",
               "run.ini:1: out: comments are full-line only, and \"r.h5   # results\" would keep this one as "
               "part of the value; put it on a line of its own"},
        BadIni{"[model]\ndepth = 4\t# four\n",
               "run.ini:2: model.depth: comments are full-line only, and \"4\\x09# four\" would keep this "
               "one as part of the value; put it on a line of its own"},
        // Values are verbatim: quotes would be part of a file name.
        BadIni{"out = \"r.h5\"\n", "run.ini:1: out: values are verbatim, without quotes: write r.h5"},
        BadIni{"[model]\nactivation = 'relu'\n",
               "run.ini:2: model.activation: values are verbatim, without quotes: write relu"},
        BadIni{"out = \"\"\n",
               "run.ini:1: out: values are verbatim, without quotes: leave the value empty (out =)"},
        // A NUL or another control byte: the value would be cut at the NUL where it is used as a C string
        // (a trace path "o.h5\\0x" overwrote the results file o.h5).
        BadIni{std::string("chrome_trace = o.h5\0x\n", 22),
               "run.ini:1: control character \\x00 in the line: a config file is text"},
        BadIni{"[model]\ndepth = 4\x1b\n",
               "run.ini:2: control character \\x1b in the line: a config file is text"}));

TEST(IniFile, ApplySetsOriginsWithLineNumbers) {
  sim::Config c;
  apply_ini(parse_ini("\n[model]\ndepth = 3\n", "run.ini"), "run.ini", c);
  EXPECT_EQ(c.raw("model.depth"), "3");
  EXPECT_EQ(c.origin("model.depth"), "run.ini:3");
  EXPECT_TRUE(c.is_explicit("model.depth"));
  apply_ini(parse_ini("[model]\ndepth = 4\n", "d"), "d", c, "default");
  EXPECT_EQ(c.origin("model.depth"), "default");
  EXPECT_FALSE(c.is_explicit("model.depth"));
  // The file is listed once read, the defaults are not a file, and an empty file is one the user gave.
  apply_ini({}, "empty.ini", c);
  EXPECT_EQ(c.files(), (std::vector<std::string>{"run.ini", "empty.ini"}));
}

TEST(IniFile, ReadsFileAndNamesItInErrors) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("spatialsim_ini_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = (dir / "good.ini").string();
  const auto bad = (dir / "bad.ini").string();
  std::ofstream(good) << "[model]\ndepth = 6\n";
  std::ofstream(bad) << "[model]\n\ndepth 6\n";
  const auto entries = read_ini_file(good);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].value, "6");
  try {
    read_ini_file(bad);
    ADD_FAILURE() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              bad + ":3: expected \"key = value\", \"[section]\" or a comment, got \"depth 6\"");
  }
  const auto missing = (dir / "missing.ini").string();
  try {
    read_ini_file(missing);
    ADD_FAILURE() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read config file \"" + missing + "\": no such file; check the path given to --config");
  }
  try {
    read_ini_file(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read config file \"" + dir.string() +
                                         "\": not a regular file; --config takes an INI file");
  }
  // A file that opens but fails while being read (reading /proc/self/mem from offset 0 fails with EIO) is
  // the same kind of error, naming the file: it escaped as "internal error: basic_filebuf::underflow ...".
  try {
    read_ini_file("/proc/self/mem");
    ADD_FAILURE() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read config file \"/proc/self/mem\": reading it failed (Input/output error); --config "
              "takes an INI file");
  }
  std::filesystem::remove_all(dir);
}

TEST(IniFile, EmbeddedDefaultParsesAndHasFrontEndKeys) {
  sim::Config c;
  apply_ini(parse_ini(kEmbeddedDefaultConfig, "default config"), "default config", c, "default");
  EXPECT_EQ(c.raw("check"), "false");
  EXPECT_EQ(c.raw("export_check"), "false");
  EXPECT_EQ(c.raw("trace"), "false");
  EXPECT_EQ(c.raw("chrome_trace"), "");
  EXPECT_EQ(c.raw("sweep.vary"), "");
  EXPECT_EQ(c.raw("sweep.resume"), "false");
  EXPECT_EQ(c.raw("schedule"), "forward,backprop");
}

// A cheap stand-in for the fuzzer: random bytes, biased towards the characters the grammar cares about,
// must either parse or fail with a one-line "SOURCE:LINE: " error, never crash.
TEST(IniFile, ArbitraryBytesParseOrFailCleanly) {
  std::mt19937_64 rng(20240601);
  const std::string alphabet = "[]=#;.\n\r\t ab_-\x01\xff\0";
  std::size_t parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text(rng() % 64, '\0');
    for (auto& ch : text)
      ch = (rng() % 4 == 0) ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    try {
      parse_ini(text, "fuzz");
      ++parsed;
    } catch (const sim::ConfigError& e) {
      const std::string what = e.what();
      ASSERT_EQ(what.rfind("fuzz:", 0), 0u) << what;
      ASSERT_EQ(what.find('\n'), std::string::npos) << what;
      ASSERT_EQ(what.find('\r'), std::string::npos) << what;
    }
  }
  EXPECT_GT(parsed, 0u);  // the generator also produces valid files
}

}  // namespace
}  // namespace spatialsim::cli
