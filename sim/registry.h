#pragma once
// A registry of named implementations of one interface (schedules, placements, activations, ...).
// Each implementation registers itself from its own file with a static Registration object, under the
// name users write in the config, with a one-line description that `spatialsim --list` prints.
//
// Usage (in the implementation's .cpp):
//   namespace { const sim::Registry<Schedule>::Registration reg{
//       "backprop", "exact reverse pass; stashes every layer's inputs",
//       [](const sim::Config& cfg) { return std::make_unique<Backprop>(cfg); }}; }
//   auto s = sim::Registry<Schedule>::create("backprop", cfg);

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spatialsim::sim {

class Config;

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
  static std::map<std::string, Entry>& entries() {
    static std::map<std::string, Entry> table;  // built on first use: safe during static init
    return table;
  }
};

}  // namespace spatialsim::sim
