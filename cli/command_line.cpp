#include "cli/command_line.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "cli/ini_file.h"
#include "sim/option_spec.h"
#include "sim/text.h"

namespace spatialsim::cli {

namespace po = boost::program_options;

namespace {

constexpr const char* kDefaultCommand = "run";
// Hidden option that collects stray positional words, so that they can be reported by name.
constexpr const char* kPositional = "positional-argument";

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A word from argv or a file as an error shows it, cut as values are (sim::shown_part: a 5000-byte
// unknown option filled the screen). error_line escapes control bytes.
std::string shown(std::string_view word) {
  const std::string_view part = sim::shown_part(word);
  return std::string(part) + (part.size() < word.size() ? "..." : "");
}

bool is_bool_option(const std::string& key) {
  const auto* spec = sim::OptionTable::find(key);
  return spec != nullptr && spec->unit == "bool";
}

std::string commands_text() {
  const std::string out = sim::joined(CommandRegistry::names());
  return out.empty() ? "(none registered)" : out;
}

// Why `key` cannot be set, in one phrase, with a suggestion. `prefix` is how keys are spelled where the
// key came from: "--" on the command line, "" in a file.
std::string unknown_key_text(const std::string& key, const std::string& shown_as, const std::string& prefix,
                             const sim::Config& defaults, const std::vector<std::string>& settable) {
  if (defaults.has(key))
    return "option " + shown_as + " is in the default configuration but no component of this build reads it";
  // Registered but missing from configs/default.ini: a component author's omission, not the user's typo
  // ("unknown option ... did you mean" sent them looking for another key).
  if (sim::OptionTable::find(key) != nullptr)
    return "option " + shown_as +
           " is registered by a component but has no default in configs/default.ini, so it cannot be set; "
           "add its default there";
  std::string text = "unknown option " + shown_as;  // the caller cuts shown_as (shown())
  const std::string lower = sim::ascii_lower(key);  // MODEL.DEPTH is model.depth in caps
  const auto commands = CommandRegistry::names();
  if (prefix == "--" && std::find(commands.begin(), commands.end(), lower) != commands.end())
    return text + "; " + lower + " is a command: write it first, without dashes (spatialsim " + lower +
           " ...)";
  const auto suggestion = closest_key(key, settable);
  if (!suggestion.empty()) text += "; did you mean " + prefix + suggestion + "?";
  return text;
}

struct CommandLineSetting {
  std::string key;
  std::string value;
  std::string spelling;  // as typed, for "given twice" errors
};

// What the options say, before the layers are built.
struct ParsedOptions {
  bool help = false;
  bool list = false;
  std::vector<std::string> config_files;
  std::vector<CommandLineSetting> settings;
  std::vector<std::string> varies;
};

po::options_description describe_options(const std::vector<std::string>& settable) {
  po::options_description desc;
  desc.add_options()("help,h", "")("list", "")("config", po::value<std::vector<std::string>>(), "")(
      kPositional, po::value<std::vector<std::string>>(), "");
  if (std::binary_search(settable.begin(), settable.end(), "sweep.vary"))
    desc.add_options()("vary", po::value<std::vector<std::string>>(), "");
  auto add_key = [&desc](const std::string& name, bool flag) {
    if (desc.find_nothrow(name, false) != nullptr)
      throw std::logic_error("command line: option --" + name +
                             " is defined twice (a key shadows a front-end option)");
    auto* semantic = po::value<std::string>();
    if (flag) semantic->implicit_value("true");
    desc.add_options()(name.c_str(), semantic, "");
  };
  for (const auto& key : settable) add_key(key, is_bool_option(key));
  for (const auto& alias : option_aliases())
    if (std::binary_search(settable.begin(), settable.end(), alias.key)) add_key(alias.option, alias.is_flag);
  return desc;
}

ParsedOptions read_options(const std::vector<std::string>& args, const sim::Config& defaults,
                           const std::vector<std::string>& settable) {
  const auto desc = describe_options(settable);
  // Boost rejects `--key=` with nothing after '=', but an empty value is valid ("chrome_trace =" means
  // none), so hand it over as `--key ""`.
  std::vector<std::string> tokens;
  for (const auto& a : args) {
    // A bare `--` would end the options in another program; here it was dropped without a word.
    if (a == "--")
      throw sim::ConfigError("",
                             "a bare -- (command line) ends nothing here: every word is an option, or the "
                             "command first; remove it");
    // Boost reads `-model.depth=3` as the short option -m with the value "odel.depth=3", and suggested
    // --out for the -m: say what is wrong instead. -h is help; a word starting -<digit> is a value.
    if (a.size() >= 2 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1])) &&
        a.substr(0, a.find('=')) != "-h") {
      const std::string name = shown(a.substr(0, a.find('=')));
      if (name.size() == 2)  // -m: no option has a one-letter name but -h
        throw sim::ConfigError("", "unknown option " + name +
                                       " (command line): options are spelled --section.key=VALUE, and -h is "
                                       "the only short one (spatialsim --help lists them)");
      throw sim::ConfigError("", "option " + name + " (command line) has one dash; write -" + shown(a));
    }
    // A switch takes no value, not even an empty one (`--help=` read as a stray "" word); Boost read
    // `-h=1` as an unknown -h and suggested --out.
    if (a.starts_with("-h="))
      throw sim::ConfigError("", "option -h (command line) takes no value; write -h alone");
    if (a == "--help=" || a == "--list=")
      throw sim::ConfigError("", "option " + a.substr(0, a.size() - 1) +
                                     " (command line) takes no value; write " + a.substr(0, a.size() - 1) +
                                     " alone");
    // Boost strips every leading '-' of an unknown option, so `---model.depth=3` read as model.depth "not
    // read by any component", and `--=3` as a stray "3": say what is wrong with the spelling instead.
    if (a.starts_with("---"))
      throw sim::ConfigError("", "option " + a.substr(0, a.find('=')) +
                                     " (command line) starts with three dashes; write --" +
                                     a.substr(a.find_first_not_of('-')));
    if (a.starts_with("--=") || a.starts_with("-="))
      throw sim::ConfigError("", "option " + a + " (command line) has no name before '='; write --KEY=VALUE");
    if (a.size() > 3 && a.starts_with("--") && a.find('=') == a.size() - 1) {
      tokens.push_back(a.substr(0, a.size() - 1));
      tokens.emplace_back();
    } else {
      tokens.push_back(a);
    }
  }
  po::positional_options_description positional;
  positional.add(kPositional, -1);
  po::parsed_options parsed(&desc);
  try {
    // No guessing of abbreviations: `--mod` must not silently mean `--model.depth`.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    parsed = po::command_line_parser(tokens)
                 .options(desc)
                 .positional(positional)
                 .style(style)
                 .allow_unregistered()
                 .run();
  } catch (const po::invalid_command_line_syntax& e) {
    // Boost's own words carry neither the origin nor the fix.
    const std::string option = shown(e.get_option_name());
    if (e.kind() == po::invalid_syntax::missing_parameter)
      throw sim::ConfigError(
          "", "option " + option + " (command line) needs a value; write " + option + "=VALUE");
    if (e.kind() == po::invalid_syntax::extra_parameter)
      throw sim::ConfigError(
          "", "option " + option + " (command line) takes no value; write " + option + " alone");
    throw sim::ConfigError("", std::string(e.what()) + " (command line)");
  } catch (const po::error& e) {
    throw sim::ConfigError("", std::string(e.what()) + " (command line)");
  }

  std::map<std::string, std::string> alias_to_key;
  for (const auto& alias : option_aliases()) alias_to_key[alias.option] = alias.key;
  std::map<std::string, std::string> spelled;  // key -> how it was first given on the command line

  ParsedOptions out;
  for (const auto& opt : parsed.options) {
    const std::string& name = opt.string_key;
    const std::string value = opt.value.empty() ? std::string() : opt.value.front();
    if (opt.unregistered) {
      std::string key = name;
      key.erase(0, key.find_first_not_of('-'));
      std::string typed = opt.original_tokens.empty() ? "--" + key : opt.original_tokens.front();
      typed = typed.substr(0, typed.find('='));
      throw sim::ConfigError(
          key, unknown_key_text(key, shown(typed) + " (command line)", "--", defaults, settable));
    }
    if (name == kPositional) {
      throw sim::ConfigError("", "unexpected argument \"" + shown(value) +
                                     "\" (command line): the command must come "
                                     "first, and every other word must belong to an option");
    }
    // Boost takes the next word as the value even when it is an option (`--out --check` would write a
    // file named "--check"); a missing value is far likelier than such a name, which `--out=--check` allows.
    if (opt.original_tokens.size() == 2 && value.starts_with("--"))
      throw sim::ConfigError(name, "option --" + name + " (command line) needs a value, got option " + value +
                                       " (write --" + name + "=" + value + " if that is the value)");
    if (name == "help") {
      out.help = true;
    } else if (name == "list") {
      out.list = true;
    } else if (name == "config") {
      out.config_files.push_back(value);
    } else if (name == "vary") {
      out.varies.push_back(value);
    } else {
      auto alias = alias_to_key.find(name);
      const std::string key = alias == alias_to_key.end() ? name : alias->second;
      // A bare flag has no token value; its implicit value is "true".
      const std::string resolved = opt.value.empty() ? "true" : value;
      const std::string spelling = "--" + name;
      auto [it, inserted] = spelled.emplace(key, spelling);
      if (!inserted)
        throw sim::ConfigError(
            key, key + " is given twice on the command line (" + it->second + " and " + spelling + ")");
      out.settings.push_back({key, resolved, spelling});
    }
  }
  return out;
}

// "--vary model.depth=2,4,8" entries -> "model.depth=2,4,8;step.tokens=64,128" after checking each.
std::string joined_varies(const std::vector<std::string>& varies, const sim::Config& defaults,
                          const std::vector<std::string>& settable) {
  std::string joined;
  std::set<std::string> seen;
  for (const auto& v : varies) {
    const auto eq = v.find('=');
    // Blanks around the key are not part of it, as in --sweep.vary and an INI file's vary line.
    const std::string key(sim::trim_blanks(std::string_view(v).substr(0, eq)));
    const std::string values = eq == std::string::npos ? std::string() : v.substr(eq + 1);
    auto bad = [&](const std::string& what) {
      throw sim::ConfigError("sweep.vary", "--vary \"" + v + "\" (command line): " + what);
    };
    if (eq == std::string::npos || key.empty()) bad("must be KEY=V1,V2,... (for example model.depth=2,4,8)");
    if (key.rfind("sweep.", 0) == 0) bad("the sweep's own options cannot be varied");
    if (!std::binary_search(settable.begin(), settable.end(), key))
      bad(unknown_key_text(key, key, "", defaults, settable));
    if (!seen.insert(key).second)
      bad(key + " is varied twice; give all its values in one --vary " + key + "=V1,V2");
    if (values.find(';') != std::string::npos) bad("values must not contain ';'");
    sim::Config probe;
    probe.set("sweep.vary", values, kCommandLineOrigin);
    bool ok = !values.empty();
    if (ok) {
      try {
        ok = !probe.get_string_list("sweep.vary").empty();
      } catch (const sim::ConfigError&) {
        ok = false;
      }
    }
    if (!ok) bad("must list at least one value after '=', comma-separated, without empty values");
    joined += (joined.empty() ? "" : ";") + v;
  }
  return joined;
}

}  // namespace

const std::vector<OptionAlias>& option_aliases() {
  static const std::vector<OptionAlias> aliases = {
      {"kernel", "kernel.name", false},       {"grid", "mapping.grid", false},
      {"export-check", "export_check", true}, {"chrome-trace", "chrome_trace", false},
      {"resume", "sweep.resume", true},
  };
  return aliases;
}

sim::Config default_config(std::string_view default_ini) {
  sim::Config config;
  apply_ini(parse_ini(default_ini, "default config"), "default config", config, "default");
  return config;
}

std::vector<std::string> settable_keys(const sim::Config& defaults) {
  std::vector<std::string> out;
  for (const auto& key : defaults.keys())
    if (sim::OptionTable::find(key) != nullptr) out.push_back(key);
  return out;
}

std::string closest_key(const std::string& unknown, const std::vector<std::string>& candidates) {
  const std::string typed = sim::ascii_lower(unknown);
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(typed, c);
    const auto dot = c.find('.');
    // "depth" is one step from "model.depth": the section was left out.
    if (dot != std::string::npos)
      d = std::min(d, edit_distance(typed, std::string_view(c).substr(dot + 1)) + 1);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// One line of valid UTF-8, and no raw control byte for the terminal (an ESC in a file name reached it):
// line breaks as spaces, other control bytes and bytes that are no UTF-8 (a 0xFF value) as \xNN.
std::string error_line(std::string_view message) {
  return "spatialsim: error: " + sim::one_line(message);
}

Invocation parse_command_line(const std::vector<std::string>& args, std::string_view default_ini) {
  Invocation inv;
  std::vector<std::string> rest = args;
  bool command_given = false;
  if (!rest.empty() && !rest.front().empty() && rest.front().front() != '-') {
    inv.command = rest.front();
    rest.erase(rest.begin());
    command_given = true;
  } else {
    inv.command = kDefaultCommand;
  }

  const sim::Config defaults = default_config(default_ini);
  const auto settable = settable_keys(defaults);
  const ParsedOptions options = read_options(rest, defaults, settable);

  if (options.list && !command_given) {
    inv.action = Invocation::Action::kList;
    return inv;
  }
  if (command_given && !CommandRegistry::contains(inv.command))
    throw sim::ConfigError("",
                           "unknown command \"" + shown(inv.command) + "\"; commands: " + commands_text());
  if (options.help) {
    inv.action = Invocation::Action::kHelp;
    if (!command_given) inv.command.clear();
    return inv;
  }
  if (options.list) throw sim::ConfigError("", "--list takes no command; run `spatialsim --list` alone");

  inv.config = defaults;
  for (const auto& file : options.config_files) {
    const auto entries = read_ini_file(file);
    for (const auto& e : entries)
      if (!std::binary_search(settable.begin(), settable.end(), e.key))
        throw sim::ConfigError(e.key, shown(file) + ":" + std::to_string(e.line) + ": " +
                                          unknown_key_text(e.key, shown(e.key), "", defaults, settable));
    apply_ini(entries, file, inv.config);
  }
  inv.config_files = options.config_files;
  for (const auto& s : options.settings) inv.config.set(s.key, s.value, kCommandLineOrigin);
  if (!options.varies.empty()) {
    for (const auto& s : options.settings)
      if (s.key == "sweep.vary")
        throw sim::ConfigError("sweep.vary", "--vary and --sweep.vary cannot be combined; use one");
    inv.config.set("sweep.vary", joined_varies(options.varies, defaults, settable), kCommandLineOrigin);
  }
  if (!CommandRegistry::contains(inv.command))
    throw sim::ConfigError("", "unknown command \"" + inv.command + "\"; commands: " + commands_text());
  return inv;
}

Invocation parse_command_line(int argc, const char* const* argv, std::string_view default_ini) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_command_line(args, default_ini);
}

}  // namespace spatialsim::cli
