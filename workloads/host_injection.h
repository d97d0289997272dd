#pragma once
// The step's wavefronts entering the grid from the host: a wavefront's inputs go to the first block's lane
// entries and its targets to the last block's output tiles, as `host` traffic, on the chain ports
// (chain_ports.h). Shared by the programs that run a chain of blocks (NetworkProgram,
// reversible::ReversibleProgram).
//
// Usage:
//   HostInjection injection(setup, /*target_group=*/last_layer);
//   injection.schedule(engine, first_block);   // each step: one ChainPort::inject timer per wavefront
//   injection.inject(engine, first_block, last_block, wf, data);   // on each; data: null in counting mode

#include <cstdint>
#include <vector>

#include "mappings/values.h"
#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/chain_ports.h"
#include "workloads/data.h"
#include "workloads/network_setup.h"

namespace spatialsim::workloads {

// Rows [first_token, first_token + tokens) and columns `cols` of `m`, as T values.
template <typename T>
mappings::ValuesPtr<T> token_slice(const sim::Matrix<double>& m, std::uint32_t first_token,
                                   std::uint32_t tokens, mappings::Range cols) {
  sim::Matrix<T> out(tokens, cols.size);
  for (std::uint32_t t = 0; t < tokens; ++t)
    for (std::uint32_t k = 0; k < cols.size; ++k)
      out(t, k) = static_cast<T>(m(first_token + t, cols.begin + k));
  return mappings::make_values(std::move(out));
}

class HostInjection {
 public:
  HostInjection() = default;
  // `target_group`: message.group of the targets, the last layer.
  HostInjection(const NetworkSetup& setup, std::uint32_t target_group)
      : m_target_group(target_group),
        m_activation_bytes(setup.bytes.activation),
        m_interval(setup.injection_interval),
        m_tokens(setup.wavefront_tokens) {
    for (std::uint32_t n : m_tokens) {
      m_first_token.push_back(m_total);
      m_total += n;
    }
  }

  std::uint32_t total_tokens() const { return m_total; }

  // Posts the step's wavefronts from now, the setup's injection interval apart: a ChainPort::inject timer
  // each (serial: the wavefront) on the first block's first lane entry, for the program to pass to inject().
  template <typename T>
  void schedule(sim::Engine& engine, const mappings::WeightStationaryBlock<T>& first) const {
    for (std::uint32_t wf = 0; wf < m_tokens.size(); ++wf) {
      engine.post_local(
          sim::Message{.dst = first.lane_entry_tile(0), .port = port_id(ChainPort::inject), .serial = wf},
          engine.now() + wf * m_interval);
    }
  }

  // Sends wavefront `wf` (its tokens of the step) from the host, now. `data` is null in counting mode: the
  // messages then carry no values. Out of line: it runs once per wavefront, and inlined into a program's
  // flattened message handler it takes registers from the per-message paths.
  template <typename T>
  [[gnu::noinline]] void inject(sim::Engine& engine, const mappings::WeightStationaryBlock<T>& first,
                                const mappings::WeightStationaryBlock<T>& last, std::uint32_t wf,
                                const StepData* data) const {
    const std::uint32_t tokens = m_tokens[wf];
    // One host message into `dst` per lane (inputs) or output column (targets), carrying the wavefront's
    // tokens of `features` (columns `r` of the step's matrix) when there are values.
    const auto send = [&](sim::TileId dst, mappings::Range r, std::uint32_t port, std::uint32_t group,
                          std::uint32_t slot, const sim::Matrix<double>* features) {
      engine.send(sim::Message{.src = sim::kHostTile,
                               .dst = dst,
                               .bytes = std::uint64_t{m_activation_bytes} * tokens * r.size,
                               .kind = sim::MessageKind::host,
                               .phase = sim::Phase::forward,
                               .port = port,
                               .group = group,
                               .serial = wf,
                               .slot = slot},
                  engine.now(), features ? token_slice<T>(*features, m_first_token[wf], tokens, r) : nullptr);
    };
    for (std::uint32_t i = 0; i < first.spec().layout.rows; ++i)
      send(first.lane_entry_tile(i), first.row_ranges()[i], port_id(ChainPort::host_input), 0, i,
           data ? &data->inputs : nullptr);
    for (std::uint32_t j = 0; j < last.spec().layout.cols; ++j)
      send(last.output_tile(j), last.col_ranges()[j], port_id(ChainPort::host_target), m_target_group, j,
           data ? &data->targets : nullptr);
  }

 private:
  std::uint32_t m_target_group = 0;
  std::uint32_t m_activation_bytes = 2;
  sim::Cycle m_interval = 1;
  std::vector<std::uint32_t> m_tokens;       // T_g per wavefront
  std::vector<std::uint32_t> m_first_token;  // per wavefront: its first token in the step
  std::uint32_t m_total = 0;
};

}  // namespace spatialsim::workloads
