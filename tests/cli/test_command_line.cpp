// The command-line front end: layering and origins, unknown keys with suggestions, aliases, --vary,
// boolean flags, --help and --list, and the binary's exit codes and one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/help_text.h"
#include "mappings/activation.h"
#include "sim/blas_kernels.h"
#include "sim/option_spec.h"
#include "sim/registry.h"
#include "tests/cli/binary_run_fixture.h"
#include "workloads/loss.h"

namespace spatialsim::cli {
namespace {

// The bottom layer for these tests: the front end's own keys, test-only keys, and the keys the aliases
// point at. `clitest.unread` is deliberately not registered.
constexpr std::string_view kTestDefaults =
    "schedule = forward\n"
    "out = spatialsim.h5\n"
    "check = false\n"
    "export_check = false\n"
    "trace = false\n"
    "chrome_trace =\n"
    "[clitest]\n"
    "depth = 4\n"
    "flag = false\n"
    "name = alpha\n"
    "unread = 1\n"
    "[mapping]\n"
    "grid = auto\n"
    "[kernel]\n"
    "name = allreduce\n"
    "[sweep]\n"
    "vary =\n"
    "resume = false\n";

const sim::OptionRegistration test_options{
    {"clitest.depth", "layers", "test-only: a count"},
    {"clitest.flag", "bool", "test-only: a switch"},
    {"clitest.name", "choice", "test-only: alpha|beta"},
};

class EchoCommand : public Command {
 public:
  int execute(const sim::Config&) override { return kExitOk; }
};
const CommandRegistry::Registration echo_command{
    "clitest-echo", "test-only: does nothing",
    [](const sim::Config&) { return std::make_unique<EchoCommand>(); }};

// Two registries only the tests have, to see that --list finds any registry by itself.
struct CliTestWidget {
  static constexpr std::string_view kRegistryHeading = "clitest widgets";
  virtual ~CliTestWidget() = default;
};
struct CliTestGadget {
  virtual ~CliTestGadget() = default;
};
const sim::Registry<CliTestWidget>::Registration widget{
    "sprocket", "test-only widget", [](const sim::Config&) { return std::make_unique<CliTestWidget>(); }};
const sim::Registry<CliTestGadget>::Registration gadget{
    "gizmo", "test-only gadget", [](const sim::Config&) { return std::make_unique<CliTestGadget>(); }};

// Keys whose owners register them in production files; registered here only when this build has no owner
// yet, at test time (after static initialisation), so that the two never collide.
std::vector<std::string>& added_at_test_time() {
  static std::vector<std::string> keys;
  return keys;
}

class CommandLine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* key : {"mapping.grid", "kernel.name"})
      if (sim::OptionTable::find(key) == nullptr) {
        sim::OptionTable::add({key, "test", "registered by the test"});
        added_at_test_time().push_back(key);
      }
  }

  static Invocation parse(std::vector<std::string> args, std::string_view defaults = kTestDefaults) {
    return parse_command_line(args, defaults);
  }
  static std::string error_of(std::vector<std::string> args, std::string_view defaults = kTestDefaults) {
    try {
      parse(std::move(args), defaults);
    } catch (const sim::ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  }

  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("spatialsim_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = (m_dir / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path m_dir;
};

TEST_F(CommandLine, DefaultsOnly) {
  const auto inv = parse({"clitest-echo"});
  EXPECT_EQ(inv.action, Invocation::Action::kExecute);
  EXPECT_EQ(inv.command, "clitest-echo");
  EXPECT_EQ(inv.config.raw("clitest.depth"), "4");
  EXPECT_EQ(inv.config.origin("clitest.depth"), "default");
  EXPECT_FALSE(inv.config.is_explicit("clitest.depth"));
  // Unregistered keys of the defaults are still in the config: their owners may read them.
  EXPECT_EQ(inv.config.raw("clitest.unread"), "1");
}

TEST_F(CommandLine, LayersFileThenCommandLineWithOrigins) {
  const auto file = write("run.ini", "# run\n[clitest]\ndepth = 6\nname = beta\n");
  const auto inv = parse({"clitest-echo", "--clitest.depth=9", "--config", file});
  EXPECT_EQ(inv.config.raw("clitest.depth"), "9");  // command line wins whatever the order
  EXPECT_EQ(inv.config.origin("clitest.depth"), "command line");
  EXPECT_EQ(inv.config.raw("clitest.name"), "beta");
  EXPECT_EQ(inv.config.origin("clitest.name"), file + ":4");
  EXPECT_TRUE(inv.config.is_explicit("clitest.name"));
  EXPECT_EQ(inv.config.origin("clitest.flag"), "default");
}

TEST_F(CommandLine, LaterConfigFilesWin) {
  const auto a = write("a.ini", "[clitest]\ndepth = 6\nname = beta\n");
  const auto b = write("b.ini", "[clitest]\ndepth = 7\n");
  const auto inv = parse({"clitest-echo", "--config", a, "--config=" + b});
  EXPECT_EQ(inv.config.raw("clitest.depth"), "7");
  EXPECT_EQ(inv.config.origin("clitest.depth"), b + ":2");
  EXPECT_EQ(inv.config.raw("clitest.name"), "beta");
}

TEST_F(CommandLine, ValueAsSeparateArgumentOrAfterEquals) {
  EXPECT_EQ(parse({"clitest-echo", "--clitest.depth", "5"}).config.raw("clitest.depth"), "5");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.depth=5"}).config.raw("clitest.depth"), "5");
  EXPECT_EQ(parse({"clitest-echo", "--chrome_trace="}).config.raw("chrome_trace"), "");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.name=a=b"}).config.raw("clitest.name"), "a=b");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.depth=-1"}).config.raw("clitest.depth"), "-1");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.depth", "-1"}).config.raw("clitest.depth"), "-1");
  EXPECT_EQ(
      error_of({"clitest-echo", "--out", "--check"}),
      "option --out (command line) needs a value, got option --check (write --out=--check if that is the "
      "value)");
  EXPECT_EQ(parse({"clitest-echo", "--out=--check"}).config.raw("out"), "--check");
  EXPECT_EQ(parse({"clitest-echo", "--check", "--out", "x"}).config.raw("check"), "true");
}

TEST_F(CommandLine, UnknownKeySuggestsClosest) {
  EXPECT_EQ(error_of({"clitest-echo", "--clitest.dpeth=3"}),
            "unknown option --clitest.dpeth (command line); did you mean --clitest.depth?");
  EXPECT_EQ(error_of({"clitest-echo", "--depth", "3"}),
            "unknown option --depth (command line); did you mean --clitest.depth?");
  // No abbreviations: a prefix is not guessed.
  EXPECT_EQ(error_of({"clitest-echo", "--clitest.dep=3"}),
            "unknown option --clitest.dep (command line); did you mean --clitest.depth?");
  const auto file = write("typo.ini", "[clitest]\n\nnmae = beta\n");
  EXPECT_EQ(error_of({"clitest-echo", "--config", file}),
            file + ":3: unknown option clitest.nmae; did you mean clitest.name?");
}

// Keys are lower case: a key typed in capitals is matched as if it were not (--CLITEST.DEPTH suggested an
// unrelated key). A command spelled as an option is pointed at the command (--version suggested
// --fg.seed). -h takes no value, as --help does (-h=1 suggested --out).
TEST_F(CommandLine, SuggestionsForCapitalsCommandsAndTheShortHelp) {
  EXPECT_EQ(error_of({"clitest-echo", "--CLITEST.DEPTH=3"}),
            "unknown option --CLITEST.DEPTH (command line); did you mean --clitest.depth?");
  EXPECT_EQ(error_of({"clitest-echo", "--clitest-echo"}),
            "unknown option --clitest-echo (command line); clitest-echo is a command: write it first, "
            "without dashes (spatialsim clitest-echo ...)");
  EXPECT_EQ(error_of({"clitest-echo", "--CLITEST-ECHO"}),
            "unknown option --CLITEST-ECHO (command line); clitest-echo is a command: write it first, "
            "without dashes (spatialsim clitest-echo ...)");
  EXPECT_EQ(error_of({"clitest-echo", "-h=1"}), "option -h (command line) takes no value; write -h alone");
}

TEST_F(CommandLine, UnknownKeyCarriesTheKey) {
  try {
    parse({"clitest-echo", "--clitest.dpeth=3"});
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(e.key(), "clitest.dpeth");
  }
}

TEST_F(CommandLine, KeyInDefaultsButUnregisteredIsRejected) {
  EXPECT_EQ(error_of({"clitest-echo", "--clitest.unread=2"}),
            "option --clitest.unread (command line) is in the default configuration but no component of this "
            "build reads it");
  const auto file = write("u.ini", "[clitest]\nunread = 2\n");
  EXPECT_EQ(error_of({"clitest-echo", "--config", file}),
            file +
                ":2: option clitest.unread is in the default configuration but no component of this build "
                "reads it");
}

TEST_F(CommandLine, RegisteredKeyMissingFromDefaultsIsRejected) {
  // clitest.depth is registered, but these defaults do not have it.
  EXPECT_EQ(error_of({"clitest-echo", "--clitest.depth=3"}, "out = x\n"),
            "option --clitest.depth (command line) is registered by a component but has no default in "
            "configs/default.ini, so it cannot be set; add its default there");
}

TEST_F(CommandLine, Aliases) {
  const auto inv = parse({"clitest-echo", "--grid", "8x4", "--kernel", "ring", "--out", "r.h5", "--schedule",
                          "backprop", "--chrome-trace", "t.json"});
  EXPECT_EQ(inv.config.raw("mapping.grid"), "8x4");
  EXPECT_EQ(inv.config.origin("mapping.grid"), "command line");
  EXPECT_EQ(inv.config.raw("kernel.name"), "ring");
  EXPECT_EQ(inv.config.raw("out"), "r.h5");
  EXPECT_EQ(inv.config.raw("schedule"), "backprop");
  EXPECT_EQ(inv.config.raw("chrome_trace"), "t.json");
}

TEST_F(CommandLine, BoolFlags) {
  auto inv = parse({"clitest-echo", "--check", "--export-check", "--trace", "--clitest.flag"});
  EXPECT_EQ(inv.config.raw("check"), "true");
  EXPECT_EQ(inv.config.raw("export_check"), "true");
  EXPECT_EQ(inv.config.raw("trace"), "true");
  EXPECT_EQ(inv.config.raw("clitest.flag"), "true");
  EXPECT_TRUE(inv.config.get_bool("check"));
  inv = parse({"clitest-echo", "--check=false", "--export-check=no"});
  EXPECT_EQ(inv.config.raw("check"), "false");
  EXPECT_EQ(inv.config.raw("export_check"), "no");
  EXPECT_EQ(inv.config.origin("check"), "command line");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.flag", "false"}).config.raw("clitest.flag"), "false");
  EXPECT_EQ(parse({"clitest-echo", "--check=", "--trace"}).config.raw("check"), "");
  // Not given: the default, not explicit.
  EXPECT_EQ(inv.config.raw("trace"), "false");
  EXPECT_FALSE(inv.config.is_explicit("trace"));
}

TEST_F(CommandLine, AliasNotOfferedWithoutItsKey) {
  // Without export_check and mapping.grid in the defaults, their aliases do not exist.
  constexpr std::string_view kFewDefaults = "out = x\ncheck = false\n";
  EXPECT_EQ(error_of({"clitest-echo", "--export-check"}, kFewDefaults),
            "unknown option --export-check (command line); did you mean --check?");
  EXPECT_EQ(error_of({"clitest-echo", "--grid", "4x4"}, kFewDefaults).rfind("unknown option --grid", 0), 0u);
  EXPECT_EQ(error_of({"clitest-echo", "--vary", "out=a,b"}, kFewDefaults).rfind("unknown option --vary", 0),
            0u);
}

TEST_F(CommandLine, SameKeyTwiceIsAnError) {
  EXPECT_EQ(error_of({"clitest-echo", "--grid", "4x4", "--mapping.grid=8x8"}),
            "mapping.grid is given twice on the command line (--grid and --mapping.grid)");
  EXPECT_EQ(error_of({"clitest-echo", "--out=a", "--out=b"}),
            "out is given twice on the command line (--out and --out)");
}

TEST_F(CommandLine, VaryAccumulates) {
  const auto inv = parse({"clitest-echo", "--vary", "clitest.depth=2,4,8", "--vary=clitest.name=alpha,beta"});
  EXPECT_EQ(inv.config.raw("sweep.vary"), "clitest.depth=2,4,8;clitest.name=alpha,beta");
  EXPECT_EQ(inv.config.origin("sweep.vary"), "command line");
  EXPECT_EQ(parse({"clitest-echo", "--vary", "out=x"}).config.raw("sweep.vary"), "out=x");
}

// Blanks around the key are trimmed, as they are in --sweep.vary and in an INI file's vary line: the key
// " clitest.depth" was refused as unknown, with the suggestion clitest.depth, which looked the same.
TEST_F(CommandLine, VaryTrimsBlanksAroundTheKey) {
  EXPECT_EQ(parse({"clitest-echo", "--vary", " clitest.depth =2,4"}).config.raw("sweep.vary"),
            " clitest.depth =2,4");
  EXPECT_EQ(
      error_of({"clitest-echo", "--vary", "clitest.depth=1", "--vary", "\tclitest.depth=2"}),
      "--vary \"\tclitest.depth=2\" (command line): clitest.depth is varied twice; give all its values in "
      "one --vary clitest.depth=V1,V2");
  EXPECT_EQ(error_of({"clitest-echo", "--vary", " =1,2"}),
            "--vary \" =1,2\" (command line): must be KEY=V1,V2,... (for example model.depth=2,4,8)");
}

struct BadVary {
  std::vector<std::string> args;
  std::string message;
};

void PrintTo(const BadVary& c, std::ostream* os) {
  for (std::size_t i = 0; i < c.args.size(); ++i) *os << (i ? " " : "") << c.args[i];
}

class CommandLineBadVary : public CommandLine, public ::testing::WithParamInterface<BadVary> {};

TEST_P(CommandLineBadVary, Rejected) {
  auto args = GetParam().args;
  args.insert(args.begin(), "clitest-echo");
  EXPECT_EQ(error_of(args), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CommandLineBadVary,
    ::testing::Values(
        BadVary{
            {"--vary", "clitest.depth"},
            "--vary \"clitest.depth\" (command line): must be KEY=V1,V2,... (for example model.depth=2,4,8)"},
        BadVary{{"--vary", "=1,2"},
                "--vary \"=1,2\" (command line): must be KEY=V1,V2,... (for example model.depth=2,4,8)"},
        BadVary{{"--vary", "clitest.dpth=1"},
                "--vary \"clitest.dpth=1\" (command line): unknown option clitest.dpth; did you mean "
                "clitest.depth?"},
        BadVary{{"--vary", "clitest.depth="},
                "--vary \"clitest.depth=\" (command line): must list at least one value after '=', "
                "comma-separated, "
                "without empty values"},
        BadVary{{"--vary", "clitest.depth=1,,2"},
                "--vary \"clitest.depth=1,,2\" (command line): must list at least one value after '=', "
                "comma-separated, without empty values"},
        BadVary{{"--vary", "clitest.depth=1;2"},
                "--vary \"clitest.depth=1;2\" (command line): values must not contain ';'"},
        BadVary{{"--vary", "clitest.depth=1", "--vary", "clitest.depth=2"},
                "--vary \"clitest.depth=2\" (command line): clitest.depth is varied twice; give all its "
                "values in "
                "one --vary clitest.depth=V1,V2"},
        BadVary{
            {"--vary", "sweep.resume=true,false"},
            "--vary \"sweep.resume=true,false\" (command line): the sweep's own options cannot be varied"},
        BadVary{{"--vary", "clitest.depth=1", "--sweep.vary=out=a"},
                "--vary and --sweep.vary cannot be combined; use one"}));

TEST_F(CommandLine, CommandSelection) {
  // No command, or an option first: the default command `run`.
  if (CommandRegistry::contains("run")) {
    EXPECT_EQ(parse({}).command, "run");
    EXPECT_EQ(parse({"--check"}).command, "run");
  } else {
    EXPECT_EQ(error_of({"--check"}).rfind("unknown command \"run\"; commands: ", 0), 0u);
  }
  const auto message = error_of({"frobnicate", "--check"});
  EXPECT_EQ(message.rfind("unknown command \"frobnicate\"; commands: ", 0), 0u) << message;
  EXPECT_NE(message.find("clitest-echo"), std::string::npos) << message;
  EXPECT_NE(message.find("version"), std::string::npos) << message;
}

TEST_F(CommandLine, StrayWordsAreErrors) {
  EXPECT_EQ(error_of({"clitest-echo", "--check", "--out", "a", "run"}),
            "unexpected argument \"run\" (command line): the command must come first, and every other word "
            "must belong to an option");
}

TEST_F(CommandLine, HelpAndList) {
  auto inv = parse({"--help"});
  EXPECT_EQ(inv.action, Invocation::Action::kHelp);
  EXPECT_EQ(inv.command, "");
  inv = parse({"clitest-echo", "-h"});
  EXPECT_EQ(inv.action, Invocation::Action::kHelp);
  EXPECT_EQ(inv.command, "clitest-echo");
  EXPECT_EQ(parse({"--list"}).action, Invocation::Action::kList);
  EXPECT_EQ(error_of({"clitest-echo", "--list"}), "--list takes no command; run `spatialsim --list` alone");
}

TEST_F(CommandLine, HelpPrintsEveryRegisteredOptionWithDefaultAndUnit) {
  std::ostringstream out;
  print_help(out, "", kTestDefaults);
  const auto text = out.str();
  for (const auto& spec : sim::OptionTable::all()) {
    EXPECT_NE(text.find("--" + spec.key + " <" + spec.unit + ">"), std::string::npos) << spec.key;
    EXPECT_NE(text.find(spec.help), std::string::npos) << spec.key;
    // A value-only option says so on the line after its help; no other option does.
    const auto at = text.find("--" + spec.key + " <");
    const auto next_line = text.find(spec.help + '\n', at) + spec.help.size() + 1;
    const std::string line = text.substr(next_line, text.find('\n', next_line) - next_line);
    const bool marked = line.find_first_not_of(' ') == line.find("changes values only") &&
                        line.find("changes values only") != std::string::npos;
    EXPECT_EQ(marked, spec.reach == sim::OptionReach::values_only) << spec.key;
  }
  EXPECT_NE(text.find("--clitest.depth <layers>     default 4"), std::string::npos) << text;
  EXPECT_NE(text.find("[clitest]:"), std::string::npos);
  EXPECT_NE(text.find("clitest-echo"), std::string::npos);
  EXPECT_NE(text.find("--grid VALUE"), std::string::npos);
  EXPECT_NE(text.find("--vary KEY=V1,V2"), std::string::npos);
  // Top-level options come before any section.
  EXPECT_LT(text.find("top-level options:"), text.find("[clitest]:"));
}

TEST_F(CommandLine, ListPrintsEveryRegistryAndEnergyPresets) {
  std::ostringstream out;
  print_list(out);
  const auto text = out.str();
  EXPECT_EQ(text.rfind("commands:\n", 0), 0u) << text;
  EXPECT_NE(text.find("clitest widgets:\n  sprocket"), std::string::npos) << text;
  EXPECT_NE(text.find("CliTestGadget:\n  gizmo"), std::string::npos) << text;
  EXPECT_NE(text.find("energy presets (energy.preset):\n  dally2023"), std::string::npos) << text;
}

TEST(RegistryCatalogue, ListsRegistriesByHeading) {
  const auto catalogue = sim::registry_catalogue();
  bool found = false;
  for (const auto& listing : catalogue)
    if (listing.heading == "clitest widgets") {
      found = true;
      ASSERT_EQ(listing.items.size(), 1u);
      EXPECT_EQ(listing.items[0].first, "sprocket");
      EXPECT_EQ(listing.items[0].second, "test-only widget");
    }
  EXPECT_TRUE(found);
  EXPECT_TRUE(std::is_sorted(catalogue.begin(), catalogue.end(),
                             [](const auto& a, const auto& b) { return a.heading < b.heading; }));
}

TEST(ClosestKey, EditDistanceAndSectionlessNames) {
  const std::vector<std::string> keys = {"model.depth", "model.width", "machine.topology", "out"};
  EXPECT_EQ(closest_key("model.dpeth", keys), "model.depth");
  EXPECT_EQ(closest_key("width", keys), "model.width");
  EXPECT_EQ(closest_key("topolgy", keys), "machine.topology");
  EXPECT_EQ(closest_key("ot", keys), "out");
  EXPECT_EQ(closest_key("x", {}), "");
}

TEST(ErrorLine, IsOneLine) {
  EXPECT_EQ(error_line("a\nb\r\nc"), "spatialsim: error: a b  c");
}

// No raw control byte reaches the terminal, wherever it came from (an ESC in a file name or a command).
TEST(ErrorLine, EscapesControlBytes) {
  EXPECT_EQ(error_line("fr\x1bob\t\x7f"), "spatialsim: error: fr\\x1bob\\x09\\x7f");
}

// And bytes that are no UTF-8 (a value of 0xFF, half a character), so that the line is valid text;
// characters that are UTF-8 stay as they are.
TEST(ErrorLine, EscapesBytesThatAreNoUtf8) {
  EXPECT_EQ(error_line("a\xff b\xc3\"c \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc0\xaf"),
            "spatialsim: error: a\\xff b\\xc3\"c \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\xc0\\xaf");
}

// Sequences that only look like UTF-8 are bytes too: a UTF-16 surrogate (ED A0 80), an overlong form of
// '/' in three bytes (E0 80 AF), a code point past U+10FFFF (F4 90 80 80, F5 ...).
TEST(ErrorLine, EscapesSequencesThatAreNotUtf8Characters) {
  EXPECT_EQ(
      error_line("a\xed\xa0\x80 b\xe0\x80\xaf c\xf4\x90\x80\x80 d\xf5\x80\x80\x80 \xf4\x8f\xbf\xbf"),
      "spatialsim: error: a\\xed\\xa0\\x80 b\\xe0\\x80\\xaf c\\xf4\\x90\\x80\\x80 d\\xf5\\x80\\x80\\x80 "
      "\xf4\x8f\xbf\xbf");
}

// Characters a terminal shows as nothing or as a plain space are named by their code point, so that a
// value copied with a zero-width space, a no-break space or a byte order mark is not reported as
// `"backprop" is not a schedule`; C1 controls (U+009B is a terminal's CSI) and the bidirectional
// overrides (U+202E reorders the rest of the line) cannot act on the terminal. Visible characters stay.
TEST(ErrorLine, NamesInvisibleCharactersByCodePoint) {
  EXPECT_EQ(error_line("backprop\u200b 4\u00a0 \ufeffx \u009b31m \u202eab \u3000 \u00ad \U000e0041 \u2003"),
            "spatialsim: error: backprop\\u200b 4\\u00a0 \\ufeffx \\u009b31m \\u202eab \\u3000 \\u00ad "
            "\\U000e0041 \\u2003");
  EXPECT_EQ(error_line("caf\u00e9 \u2192 \u00d7 \u4e2d \U0001f600 a\u0301"),
            "spatialsim: error: caf\u00e9 \u2192 \u00d7 \u4e2d \U0001f600 a\u0301");
}

// Misspellings Boost read its own way, each told what is wrong: -model.depth was the short option -m and
// suggested --out; `--` was dropped; `--help=` was a stray "" word; a missing value had no origin.
TEST_F(CommandLine, SpellingsBoostMisreadAreNamed) {
  EXPECT_EQ(error_of({"clitest-echo", "-clitest.depth=3"}),
            "option -clitest.depth (command line) has one dash; write --clitest.depth=3");
  EXPECT_EQ(error_of({"clitest-echo", "-m", "3"}),
            "unknown option -m (command line): options are spelled --section.key=VALUE, and -h is the only "
            "short one (spatialsim --help lists them)");
  EXPECT_EQ(error_of({"clitest-echo", "--"}),
            "a bare -- (command line) ends nothing here: every word is an option, or the command first; "
            "remove it");
  EXPECT_EQ(error_of({"--help="}), "option --help (command line) takes no value; write --help alone");
  EXPECT_EQ(error_of({"--help=1"}), "option --help (command line) takes no value; write --help alone");
  EXPECT_EQ(error_of({"clitest-echo", "--out"}),
            "option --out (command line) needs a value; write --out=VALUE");
  EXPECT_EQ(parse({"clitest-echo", "--clitest.depth", "-3"}).config.raw("clitest.depth"), "-3");  // a value
}

// Words from argv and files are cut to 80 bytes in errors, at a character boundary.
TEST_F(CommandLine, LongWordsAreCutInErrors) {
  const std::string key(5000, 'k');
  const std::string error = error_of({"clitest-echo", "--" + key + "=1"});
  EXPECT_LT(error.size(), 300u) << error;
  EXPECT_NE(error.find("--" + std::string(78, 'k') + "... (command line)"), std::string::npos) << error;
  const std::string command = std::string(79, 'c') + "\xc3\xa9";  // the 80th byte starts a character
  EXPECT_EQ(error_of({command}).find("\xc3\""), std::string::npos);
  EXPECT_NE(error_of({command}).find(std::string(79, 'c') + "...\""), std::string::npos)
      << error_of({command});
}

TEST(FrontEndOptions, RegisteredWithDefaults) {
  const auto defaults = default_config();
  for (const char* key :
       {"schedule", "out", "check", "export_check", "trace", "chrome_trace", "sweep.vary", "sweep.resume"}) {
    EXPECT_NE(sim::OptionTable::find(key), nullptr) << key;
    EXPECT_TRUE(defaults.has(key)) << key;
  }
  // Every option registered by the program (not by this test) has a default in configs/default.ini.
  for (const auto& spec : sim::OptionTable::all()) {
    if (spec.key.rfind("clitest.", 0) == 0) continue;
    if (std::find(added_at_test_time().begin(), added_at_test_time().end(), spec.key) !=
        added_at_test_time().end())
      continue;
    EXPECT_TRUE(defaults.has(spec.key)) << spec.key << " is registered but has no default";
  }
}

// ---- the binary, end to end ----

using Run = testing::BinaryRun;
using testing::run_binary;

TEST(Binary, VersionExitsZero) {
  const auto r = run_binary("version");
  EXPECT_EQ(r.exit_code, 0);
  // The version, then the BLAS and the kernels it chose (and a note when OPENBLAS_CORETYPE would help).
  const std::string blas_line = "blas    " + sim::blas_configuration() + "\n";
  EXPECT_TRUE(r.out.starts_with("spatialsim " + std::string(kProgramVersion) + "\n" + blas_line)) << r.out;
  EXPECT_EQ(r.out.find("note    ") != std::string::npos, !sim::blas_advice().empty()) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(Binary, BadInputExitsTwoWithOneErrorLine) {
  const auto r = run_binary("version --chek");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "spatialsim: error: unknown option --chek (command line); did you mean --check?\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(run_binary("no-such-command").exit_code, 2);
}

TEST(Binary, HelpAndListExitZero) {
  const auto help = run_binary("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--sweep.resume <bool>"), std::string::npos);
  // An option whose values are a registry's names, the activations, the losses or the presets lists them
  // from where they are registered, under its help line.
  // The names are compared as a set, so that registering another one (docs/extending.md) breaks nothing.
  const auto registered = [&help](const std::string& key) {
    const auto at = help.out.find("--" + key + " <");
    if (at == std::string::npos) return std::vector<std::string>{};
    const auto next = help.out.find("\n  --", at + 1);
    const std::string entry = help.out.substr(at, next - at);
    const auto list = entry.find("registered: ");
    if (list == std::string::npos) return std::vector<std::string>{};
    const auto begin = list + std::string_view("registered: ").size();
    std::vector<std::string> names;
    std::istringstream in(entry.substr(begin, entry.find('\n', begin) - begin));
    for (std::string name; std::getline(in >> std::ws, name, ',');) names.push_back(name);
    return names;
  };
  for (const char* key : {"mapping.placement", "train.optimizer", "schedule", "kernel.name",
                          "model.activation", "model.loss", "energy.preset"})
    EXPECT_FALSE(registered(key).empty()) << key << " lists no registered names";
  const auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const char* placement : {"rowmajor", "zigzag"})
    EXPECT_TRUE(has(registered("mapping.placement"), placement)) << placement;
  for (const char* preset : {"dally2023", "dally2022"})
    EXPECT_TRUE(has(registered("energy.preset"), preset)) << preset;
  const auto list = run_binary("--list");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("\n  version "), std::string::npos) << list.out;
}

// Every activation and loss is listed with what it computes, as every registered component is: a bare name
// leaves the user to guess, say, which gelu or which mean.
TEST(Binary, ListSaysWhatEachActivationAndLossComputes) {
  const auto list = run_binary("--list");
  ASSERT_EQ(list.exit_code, 0);
  const auto expect_described = [&list](const std::string& name) {
    const auto row = list.out.find("\n  " + name + " ");
    ASSERT_NE(row, std::string::npos) << name << "\n" << list.out;
    const std::string line = list.out.substr(row + 1, list.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find_first_not_of(' ', 2 + name.size()), std::string::npos) << "no description: " << line;
  };
  for (const std::string& name : mappings::activation_names()) expect_described(name);
  for (const std::string& name : workloads::loss_names()) expect_described(name);
  EXPECT_NE(list.out.find("z Phi(z)"), std::string::npos) << list.out;  // the exact gelu, not tanh's
}

}  // namespace
}  // namespace spatialsim::cli
