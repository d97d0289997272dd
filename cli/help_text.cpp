#include "cli/help_text.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include "cli/command.h"
#include "cli/command_line.h"
#include "mappings/activation.h"
#include "sim/energy_prices.h"
#include "sim/option_spec.h"
#include "sim/registry.h"
#include "sim/text.h"
#include "workloads/loss.h"

namespace spatialsim::cli {

namespace {

constexpr int kNameColumn = 28;

void print_row(std::ostream& out, const std::string& name, const std::string& text) {
  out << "  " << std::left << std::setw(kNameColumn) << name;
  if (name.size() >= static_cast<std::size_t>(kNameColumn)) out << "\n  " << std::string(kNameColumn, ' ');
  out << ' ' << text << '\n';
}

std::string section_of(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

// The names an option accepts when they come from a registry (whose heading ends in "(key)"), the
// activations, the losses or the energy presets, so that no help line lists them by hand; empty for other
// options.
std::string registered_names(const std::string& key, const std::vector<sim::CatalogueListing>& catalogue) {
  std::vector<std::string> names;
  const std::string suffix = "(" + key + ")";
  for (const auto& listing : catalogue)
    if (listing.heading.size() > suffix.size() && listing.heading.ends_with(suffix))
      for (const auto& item : listing.items) names.push_back(item.first);
  if (key == "energy.preset")
    for (const auto& preset : sim::energy_presets()) names.push_back(preset.name);
  if (key == "model.activation") names = mappings::activation_names();
  if (key == "model.loss") names = workloads::loss_names();
  return sim::joined(names);
}

}  // namespace

void print_help(std::ostream& out, const std::string& command, std::string_view default_ini) {
  out << "usage: spatialsim [COMMAND] [--config FILE]... [--section.key=VALUE]... [--help] [--list]\n"
      << "  COMMAND defaults to run. Values come from the built-in defaults, then each --config FILE in\n"
      << "  order, then the command line. `--key VALUE` works too; `--key=` sets an empty value.\n"
      << "  A bool option given bare (--check) means true; write --check=false otherwise.\n\n";

  out << "commands:\n";
  for (const auto& [name, entry] : CommandRegistry::all())
    print_row(out, name + (name == command ? " *" : ""), entry.description);
  if (CommandRegistry::all().empty()) out << "  (none registered)\n";

  const sim::Config defaults = default_config(default_ini);
  const auto settable = settable_keys(defaults);
  out << "\nfront-end options:\n";
  print_row(out, "--config FILE", "read FILE (INI) over the defaults; may repeat, later files win");
  print_row(out, "--help, -h", "print this help");
  print_row(out, "--list", "print every registry: commands, implementations, energy presets");
  if (std::binary_search(settable.begin(), settable.end(), "sweep.vary"))
    print_row(out, "--vary KEY=V1,V2", "sweep KEY over the values; may repeat (sets sweep.vary)");
  for (const auto& alias : option_aliases())
    if (std::binary_search(settable.begin(), settable.end(), alias.key))
      print_row(out, "--" + alias.option + (alias.is_flag ? "" : " VALUE"), "same as --" + alias.key);

  // Top-level options first, then one group per section in alphabetical order.
  const auto catalogue = sim::registry_catalogue();
  std::map<std::string, std::vector<const sim::OptionSpec*>> by_section;
  for (const auto& spec : sim::OptionTable::all()) by_section[section_of(spec.key)].push_back(&spec);
  for (const auto& [section, specs] : by_section) {
    out << '\n' << (section.empty() ? std::string("top-level options") : "[" + section + "]") << ":\n";
    for (const auto* spec : specs) {
      std::string shown_default = "(not in the default configuration: cannot be set)";
      if (defaults.has(spec->key)) {
        const auto& v = defaults.raw(spec->key);
        shown_default = v.empty() ? "(empty)" : v;
      }
      print_row(out, "--" + spec->key + " <" + spec->unit + ">", "default " + shown_default);
      out << "  " << std::string(kNameColumn, ' ') << ' ' << spec->help << '\n';
      if (spec->reach == sim::OptionReach::values_only)
        out << "  " << std::string(kNameColumn, ' ')
            << " changes values only, never a count: refused on the command line or in a sweep with "
               "sim.arith=none\n";
      if (const std::string names = registered_names(spec->key, catalogue); !names.empty())
        out << "  " << std::string(kNameColumn, ' ') << " registered: " << names << '\n';
    }
  }
}

void print_list(std::ostream& out) {
  auto print_listing = [&out](const sim::CatalogueListing& listing) {
    out << listing.heading << ":\n";
    for (const auto& [name, description] : listing.items) print_row(out, name, description);
    out << '\n';
  };
  const auto catalogue = sim::registry_catalogue();
  // Commands first: they are what a user types first.
  for (const auto& listing : catalogue)
    if (listing.heading == Command::kRegistryHeading) print_listing(listing);
  for (const auto& listing : catalogue)
    if (listing.heading != Command::kRegistryHeading) print_listing(listing);

  out << "activations (model.activation):\n";
  for (const auto& name : mappings::activation_names())
    print_row(out, name, std::string(mappings::description(mappings::parse_activation(name))));
  out << "\nlosses (model.loss):\n";
  for (const auto& name : workloads::loss_names())
    print_row(out, name, std::string(workloads::description(workloads::parse_loss(name))));
  out << "\nenergy presets (energy.preset):\n";
  for (const auto& preset : sim::energy_presets()) {
    std::ostringstream prices;
    prices << preset.prices.hop_pj << " pJ/byte-hop, " << preset.prices.sram_pj << " pJ/SRAM byte, "
           << preset.prices.flop_pj << " pJ/flop; " << preset.source;
    print_row(out, preset.name, prices.str());
  }
}

}  // namespace spatialsim::cli
