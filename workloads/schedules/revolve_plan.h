#pragma once
// Binomial checkpointing (Griewank and Walther, "Algorithm 799: revolve", ACM TOMS 26(1), 2000) for a chain
// of L layers with m checkpoint slots, turned into the grid's terms: what the first forward pass keeps,
// and before the backward pass enters each layer, which recomputation episode rebuilds its stash.
//
// Counting convention: a "recomputation" is one layer evaluated again in phase `recompute`. The first
// forward pass (all L layers, as every schedule runs it to reach the loss) plays revolve's initial sweep
// plus its last reversal; every later reversal evaluates its layer again. With that, the recomputations
// per wavefront equal revolve's minimal number of forward steps p(L, m) (revolve_minimal_forward_steps).
//
// Usage:
//   RevolvePlan plan = plan_revolve(16, 3);
//   plan.first_pass[l];  plan.episodes[l] (null for the last layer);  plan.recomputations;

#include <cstdint>
#include <optional>
#include <vector>

#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {

struct RevolvePlan {
  std::vector<mappings::XStash> first_pass;               // per layer
  std::vector<std::optional<RecomputeEpisode>> episodes;  // per layer: before its backward pass
  std::uint64_t recomputations = 0;                       // layer evaluations per wavefront
  std::uint32_t max_checkpoints = 0;                      // checkpoints held at once, the input included
};

// Contract: layers >= 1, slots >= 1 (the network's input is one checkpoint); throws std::invalid_argument.
RevolvePlan plan_revolve(std::uint32_t layers, std::uint32_t slots);

// Where revolve splits n >= 2 layers with s >= 2 slots (the checkpoint at their start included): the
// smallest k in [1, n - 1] minimizing k + t(n - k, s - 1) + t(k, s), t being revolve_minimal_forward_steps:
// advance k layers, checkpoint there, reverse the right part with a slot fewer, then the left part. Found
// without a table over every (n, s) (which costs O(L^2 m) time and O(L m) memory: minutes and gigabytes
// from a few thousand layers on). Throws std::invalid_argument for n < 2 or s < 2.
std::uint32_t revolve_split(std::uint32_t n, std::uint32_t s);

// The closed form of the minimal number of forward steps to reverse l steps with s snapshots:
// p(l, s) = r l - C(s + r, s + 1) for the r with C(s + r - 1, s) < l <= C(s + r, s).
// Contract: s >= 1 (throws std::invalid_argument), l < 2^32.
std::uint64_t revolve_minimal_forward_steps(std::uint64_t l, std::uint64_t s);

}  // namespace spatialsim::workloads
