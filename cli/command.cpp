#include "cli/command.h"

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
    if (config.origin(key) == "command line" && !command.reads(key))
      config.fail(key, "is not read by `spatialsim " + name + "`; remove it");
  }
}

}  // namespace spatialsim::cli
