#include "sim/energy_prices.h"

#include <algorithm>
#include <stdexcept>

namespace spatialsim::sim {

const std::vector<EnergyPreset>& energy_presets() {
  // dally2023 (seed 000): 100 fJ/bit/mm on-chip wire at a 0.5 mm tile pitch = 0.05 pJ/bit = 0.4 pJ per
  // byte-hop; 1 pJ per byte of local SRAM; 0.1 pJ per datapath flop.
  // dally2022 (Dally, "On the model of computation", CACM 2022): wire about 30 fJ/bit/mm, so at the same
  // 0.5 mm pitch 0.12 pJ per byte-hop; SRAM and datapath prices kept from dally2023, so the two presets
  // differ only in what distance costs.
  static const std::vector<EnergyPreset> presets = {
      {"dally2023",
       "seed 000: 100 fJ/bit/mm wire at 0.5 mm pitch, 1 pJ/B SRAM, 0.1 pJ/flop",
       {"dally2023", 0.4, 1.0, 0.1}},
      {"dally2022",
       "Dally CACM 2022: 30 fJ/bit/mm wire at 0.5 mm pitch; SRAM and flop as dally2023",
       {"dally2022", 0.12, 1.0, 0.1}},
  };
  return presets;
}

EnergyPrices energy_preset(const std::string& name) {
  for (const auto& p : energy_presets())
    if (p.name == name) return p.prices;
  throw std::out_of_range("unknown energy preset " + name);
}

std::string prices_source(const EnergyPrices& prices) {
  const auto& presets = energy_presets();
  const auto it = std::find_if(presets.begin(), presets.end(),
                               [&](const EnergyPreset& p) { return p.name == prices.preset; });
  if (it == presets.end()) return prices.preset;  // not a preset's name: nothing to compare with
  const EnergyPrices& preset = it->prices;
  std::vector<std::string> set;
  if (prices.hop_pj != preset.hop_pj) set.emplace_back("energy.hop_pj");
  if (prices.sram_pj != preset.sram_pj) set.emplace_back("energy.sram_pj");
  if (prices.flop_pj != preset.flop_pj) set.emplace_back("energy.flop_pj");
  std::string source = prices.preset;
  for (std::size_t i = 0; i < set.size(); ++i)
    source += (i == 0 ? ", " : i + 1 == set.size() ? " and " : ", ") + set[i];
  if (!set.empty()) source += " set";
  return source;
}

}  // namespace spatialsim::sim
