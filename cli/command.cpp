#include "cli/command.h"

#include "analysis/output_guard.h"
#include "cli/command_line.h"

namespace spatialsim::cli {

bool in_any_section(const std::string& key, std::initializer_list<std::string_view> sections) {
  const std::string_view section = std::string_view(key).substr(0, key.find('.'));
  if (section.size() == key.size()) return false;  // no section
  for (std::string_view s : sections)
    if (section == s) return true;
  return false;
}

bool is_run_only(const std::string& key) {
  for (const char* k : {"check", "export_check", "check_tolerance", "trace", "chrome_trace"})
    if (key == k) return true;
  return false;
}

void reject_unread_options(const Command& command, const std::string& name, const sim::Config& config) {
  for (const std::string& key : config.keys()) {
    // Only the command line: a config file serves several commands (run, theory, sweep) and may set what
    // one of them does not read.
    if (config.origin(key) == kCommandLineOrigin && !command.reads(key)) {
      // Say which commands do read it: the key may be right and the command wrong.
      std::vector<std::string> readers;
      for (const auto& other : CommandRegistry::names())
        if (other != name && CommandRegistry::create(other, config)->reads(key)) readers.push_back(other);
      std::string hint;
      for (std::size_t i = 0; i < readers.size(); ++i)
        hint += (i == 0 ? "" : i + 1 == readers.size() ? " and " : ", ") + readers[i];
      config.fail(
          key,
          "is not read by `spatialsim " + name + "`" +
              (hint.empty() ? "" : " (only " + hint + (readers.size() == 1 ? " reads it)" : " read it)")) +
              "; remove it");
    }
  }
}

void reject_clashing_outputs(const Command& command, const sim::Config& config,
                             const std::vector<std::string>& config_files) {
  // A command that reads an output option writes that file (kernel only when `out` is set explicitly: at
  // worst a --config file named like the default out is refused for it too).
  std::vector<std::string> outputs;
  for (const char* key : {"out", "chrome_trace"})
    if (config.has(key) && !config.raw(key).empty() && command.reads(key)) outputs.emplace_back(key);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& path = config.raw(outputs[i]);
    for (std::size_t j = 0; j < i; ++j) {
      // Both are written under temporary names and renamed into place: the second would replace the first.
      if (analysis::same_file(path, config.raw(outputs[j])))
        config.fail(outputs[i], "names the same file as " + outputs[j] + " = \"" + config.raw(outputs[j]) +
                                    "\", so one would replace the other; give each its own file name");
    }
    for (const std::string& file : config_files) {
      if (analysis::same_file(path, file))
        config.fail(outputs[i], "is the config file " + file +
                                    " (--config), which is read as input; writing " + outputs[i] +
                                    " would replace it: give " + outputs[i] + " another file name");
    }
  }
}

}  // namespace spatialsim::cli
