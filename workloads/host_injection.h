#pragma once
// A wavefront entering the grid from the host: its inputs to the first block's lane entries, its targets to
// the last block's output tiles, as `host` traffic. Shared by the programs that run a chain of blocks
// (NetworkProgram, reversible::ReversibleProgram); each names its own ports for the two deliveries.
//
// Usage:
//   const HostInjection injection{.input_port = ..., .target_port = ..., .target_group = last_layer,
//                                 .activation_bytes = b_a};
//   inject_from_host(engine, injection, first_block, last_block, wf, first_token, tokens, data);

#include <cstdint>

#include "mappings/values.h"
#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/data.h"

namespace spatialsim::workloads {

struct HostInjection {
  std::uint32_t input_port = 0;    // delivered to the first block's lane entries (slot: the lane)
  std::uint32_t target_port = 0;   // delivered to the last block's output tiles (slot: the column)
  std::uint32_t target_group = 0;  // message.group of the targets: the last layer
  std::uint32_t activation_bytes = 2;
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

// Sends wavefront `wf` (tokens [first_token, first_token + tokens) of the step) from the host, now. `data`
// is null in counting mode: the messages then carry no values.
template <typename T>
void inject_from_host(sim::Engine& engine, const HostInjection& injection,
                      const mappings::WeightStationaryBlock<T>& first,
                      const mappings::WeightStationaryBlock<T>& last, std::uint32_t wf,
                      std::uint32_t first_token, std::uint32_t tokens, const StepData* data) {
  const auto bytes = [&](mappings::Range r) {
    return std::uint64_t{injection.activation_bytes} * tokens * r.size;
  };
  for (std::uint32_t i = 0; i < first.spec().layout.rows; ++i) {
    const mappings::Range I = first.row_ranges()[i];
    engine.send(
        sim::Message{.src = sim::kHostTile,
                     .dst = first.lane_entry_tile(i),
                     .bytes = bytes(I),
                     .kind = sim::MessageKind::host,
                     .phase = sim::Phase::forward,
                     .port = injection.input_port,
                     .group = 0,
                     .serial = wf,
                     .slot = i,
                     .payload = data ? token_slice<T>(data->inputs, first_token, tokens, I) : nullptr},
        engine.now());
  }
  for (std::uint32_t j = 0; j < last.spec().layout.cols; ++j) {
    const mappings::Range J = last.col_ranges()[j];
    engine.send(
        sim::Message{.src = sim::kHostTile,
                     .dst = last.output_tile(j),
                     .bytes = bytes(J),
                     .kind = sim::MessageKind::host,
                     .phase = sim::Phase::forward,
                     .port = injection.target_port,
                     .group = injection.target_group,
                     .serial = wf,
                     .slot = j,
                     .payload = data ? token_slice<T>(data->targets, first_token, tokens, J) : nullptr},
        engine.now());
  }
}

}  // namespace spatialsim::workloads
