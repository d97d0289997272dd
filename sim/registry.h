#pragma once
// A registry of named implementations of one interface (schedules, placements, optimizers, kernels, ...).
// Each implementation registers itself from its own file with a static Registration object, under the
// name users write in the config, with a one-line description that `spatialsim --list` prints.
//
// Usage (in the implementation's .cpp):
//   namespace { const sim::Registry<PlacementStrategy>::Registration reg{
//       "rowmajor", "naive: equal cells in row-major order",
//       [](const sim::Config&) { return std::make_unique<RowMajorPlacement>(); }}; }
//   auto p = sim::Registry<PlacementStrategy>::create("rowmajor", cfg);
//
// The heading `spatialsim --list` prints above a registry comes from the interface itself, the kind and,
// in parentheses, the option that picks one (`--help` lists the registered names under that option):
//   class PlacementStrategy { public:
//     static constexpr std::string_view kRegistryHeading = "placements (mapping.placement)"; ... };
// Without it the demangled interface name is used. Every registry that has at least one registration
// appears in sim::registry_catalogue(), so the front end lists them all without knowing their types.

#include <algorithm>
#include <boost/core/demangle.hpp>
#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

namespace spatialsim::sim {

class Config;

// One registry as `spatialsim --list` shows it.
struct CatalogueListing {
  std::string heading;                                     // "schedules", "commands", ...
  std::vector<std::pair<std::string, std::string>> items;  // (name, description), sorted by name
};

namespace detail {
// A registry is recorded by two plain functions, so that the catalogue reads names registered after it.
struct CatalogueSource {
  std::string (*heading)();
  std::vector<std::pair<std::string, std::string>> (*items)();
};
inline std::vector<CatalogueSource>& catalogue_sources() {
  static std::vector<CatalogueSource> sources;  // built on first use: safe during static init
  return sources;
}
}  // namespace detail

// Every registry with at least one registration, sorted by heading.
inline std::vector<CatalogueListing> registry_catalogue() {
  std::vector<CatalogueListing> out;
  for (const auto& source : detail::catalogue_sources()) out.push_back({source.heading(), source.items()});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.heading < b.heading; });
  return out;
}

template <typename Interface>
std::string registry_heading() {
  if constexpr (requires {
                  { Interface::kRegistryHeading } -> std::convertible_to<std::string_view>;
                }) {
    return std::string(std::string_view(Interface::kRegistryHeading));
  } else {
    return boost::core::demangle(typeid(Interface).name());
  }
}

template <typename Interface>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(const Config&)>;
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  struct Registration {
    Registration(std::string name, std::string description, Factory factory) {
      auto& e = entries();
      if (e.count(name) != 0) throw std::logic_error("registry: duplicate name " + name);
      // The first registration makes this registry visible to `--list`.
      if (e.empty()) detail::catalogue_sources().push_back({&registry_heading<Interface>, &listing});
      e.emplace(name, Entry{name, std::move(description), std::move(factory)});
    }
  };

  static bool contains(const std::string& name) { return entries().count(name) != 0; }
  static std::unique_ptr<Interface> create(const std::string& name, const Config& config) {
    auto it = entries().find(name);
    if (it == entries().end()) throw std::out_of_range("registry: no implementation named " + name);
    return it->second.factory(config);
  }
  static std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& [n, _] : entries()) out.push_back(n);
    return out;
  }
  static const std::map<std::string, Entry>& all() { return entries(); }

 private:
  static std::vector<std::pair<std::string, std::string>> listing() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [n, e] : entries()) out.emplace_back(n, e.description);
    return out;
  }
  static std::map<std::string, Entry>& entries() {
    static std::map<std::string, Entry> table;  // built on first use: safe during static init
    return table;
  }
};

}  // namespace spatialsim::sim
