#pragma once
// The step's wavefronts entering the grid from the host: a wavefront's inputs go to the first block's lane
// entries and its targets to the last block's output tiles, as `host` traffic. Shared by the programs that
// run a chain of blocks (NetworkProgram, reversible::ReversibleProgram); each names its own ports.
//
// Usage:
//   HostInjection injection({.input_port = ..., .target_port = ..., .target_group = last_layer}, b_a,
//                           wavefront_tokens);
//   injection.inject(engine, first_block, last_block, wf, data);   // data: null in counting mode

#include <cstdint>
#include <vector>

#include "mappings/values.h"
#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/data.h"

namespace spatialsim::workloads {

struct HostPorts {
  std::uint32_t input_port = 0;    // delivered to the first block's lane entries (slot: the lane)
  std::uint32_t target_port = 0;   // delivered to the last block's output tiles (slot: the column)
  std::uint32_t target_group = 0;  // message.group of the targets: the last layer
};

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
  HostInjection(HostPorts ports, std::uint32_t activation_bytes, std::vector<std::uint32_t> wavefront_tokens)
      : m_ports(ports), m_activation_bytes(activation_bytes), m_tokens(std::move(wavefront_tokens)) {
    for (std::uint32_t n : m_tokens) {
      m_first_token.push_back(m_total);
      m_total += n;
    }
  }

  std::uint32_t total_tokens() const { return m_total; }

  // Sends wavefront `wf` (its tokens of the step) from the host, now. `data` is null in counting mode: the
  // messages then carry no values.
  template <typename T>
  void inject(sim::Engine& engine, const mappings::WeightStationaryBlock<T>& first,
              const mappings::WeightStationaryBlock<T>& last, std::uint32_t wf, const StepData* data) const {
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
      send(first.lane_entry_tile(i), first.row_ranges()[i], m_ports.input_port, 0, i,
           data ? &data->inputs : nullptr);
    for (std::uint32_t j = 0; j < last.spec().layout.cols; ++j)
      send(last.output_tile(j), last.col_ranges()[j], m_ports.target_port, m_ports.target_group, j,
           data ? &data->targets : nullptr);
  }

 private:
  HostPorts m_ports;
  std::uint32_t m_activation_bytes = 2;
  std::vector<std::uint32_t> m_tokens;       // T_g per wavefront
  std::vector<std::uint32_t> m_first_token;  // per wavefront: its first token in the step
  std::uint32_t m_total = 0;
};

}  // namespace spatialsim::workloads
