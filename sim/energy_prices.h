#pragma once
// Energy prices: picojoules per byte-hop, per SRAM byte, per flop. Named presets come from published
// figures; any price can be overridden in the config (energy.hop_pj and so on), and outputs record the
// preset name together with the three prices actually used.

#include <string>
#include <vector>

namespace spatialsim::sim {

struct EnergyPrices {
  std::string preset;  // the preset the prices started from
  double hop_pj = 0;   // per byte moved one hop
  double sram_pj = 0;  // per byte read or written in a tile's local memory
  double flop_pj = 0;  // per flop (2 per multiply-add)
};

struct EnergyPreset {
  std::string name;
  std::string source;  // where the numbers come from, for --list and docs
  EnergyPrices prices;
};

const std::vector<EnergyPreset>& energy_presets();
// Throws std::out_of_range for an unknown name.
EnergyPrices energy_preset(const std::string& name);

// Where the prices come from, for printed headers: the preset's name, and the prices set over it
// ("dally2023, energy.hop_pj and energy.flop_pj set"), so a 0 pJ/byte-hop is not read as the preset's.
std::string prices_source(const EnergyPrices& prices);

}  // namespace spatialsim::sim
