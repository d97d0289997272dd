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
    const auto bytes = [&](mappings::Range r) { return std::uint64_t{m_activation_bytes} * tokens * r.size; };
    for (std::uint32_t i = 0; i < first.spec().layout.rows; ++i) {
      const mappings::Range I = first.row_ranges()[i];
      engine.send(sim::Message{.src = sim::kHostTile,
                               .dst = first.lane_entry_tile(i),
                               .bytes = bytes(I),
                               .kind = sim::MessageKind::host,
                               .phase = sim::Phase::forward,
                               .port = m_ports.input_port,
                               .group = 0,
                               .serial = wf,
                               .slot = i},
                  engine.now(), data ? token_slice<T>(data->inputs, m_first_token[wf], tokens, I) : nullptr);
    }
    for (std::uint32_t j = 0; j < last.spec().layout.cols; ++j) {
      const mappings::Range J = last.col_ranges()[j];
      engine.send(sim::Message{.src = sim::kHostTile,
                               .dst = last.output_tile(j),
                               .bytes = bytes(J),
                               .kind = sim::MessageKind::host,
                               .phase = sim::Phase::forward,
                               .port = m_ports.target_port,
                               .group = m_ports.target_group,
                               .serial = wf,
                               .slot = j},
                  engine.now(), data ? token_slice<T>(data->targets, m_first_token[wf], tokens, J) : nullptr);
    }
  }

 private:
  HostPorts m_ports;
  std::uint32_t m_activation_bytes = 2;
  std::vector<std::uint32_t> m_tokens;       // T_g per wavefront
  std::vector<std::uint32_t> m_first_token;  // per wavefront: its first token in the step
  std::uint32_t m_total = 0;
};

}  // namespace spatialsim::workloads
