#include "workloads/schedules/revolve_plan.h"

#include <limits>
#include <stdexcept>

namespace spatialsim::workloads {
namespace {

using mappings::XStash;
constexpr std::uint64_t kInfinite = std::numeric_limits<std::uint64_t>::max() / 4;

// cost[n][s]: the fewest layer evaluations to reverse n layers from a checkpoint at their start, with s
// checkpoints in all (that one included), counting advances only (revolve's t(n, s)).
class CostTable {
 public:
  CostTable(std::uint32_t n_max, std::uint32_t s_max)
      : m_s_max(s_max), m_cost((n_max + 1) * (s_max + 1), kInfinite), m_split((n_max + 1) * (s_max + 1), 0) {
    for (std::uint32_t s = 1; s <= s_max; ++s) at(1, s) = 0;
    for (std::uint32_t n = 2; n <= n_max; ++n) {
      at(n, 1) = std::uint64_t{n} * (n - 1) / 2;  // no spare slot: advance from the start for each layer
      for (std::uint32_t s = 2; s <= s_max; ++s) {
        // Advance k layers, checkpoint there, reverse the right part with one slot fewer, then the left part.
        for (std::uint32_t k = 1; k < n; ++k) {
          const std::uint64_t c = k + at(n - k, s - 1) + at(k, s);
          if (c < at(n, s)) {
            at(n, s) = c;
            split(n, s) = k;
          }
        }
      }
    }
  }
  std::uint64_t& at(std::uint32_t n, std::uint32_t s) { return m_cost[n * (m_s_max + 1) + s]; }
  std::uint32_t& split(std::uint32_t n, std::uint32_t s) { return m_split[n * (m_s_max + 1) + s]; }

 private:
  std::uint32_t m_s_max;
  std::vector<std::uint64_t> m_cost;
  std::vector<std::uint32_t> m_split;
};

// Builds the episodes by following the optimal recursion. `open` is the episode being built: it has
// reached layer `start` (restored from a checkpoint or advanced to) and goes on from there.
class Planner {
 public:
  Planner(std::uint32_t layers, std::uint32_t slots) : m_table(layers, slots) {
    m_plan.first_pass.assign(layers, XStash::none);
    m_plan.episodes.resize(layers);
  }

  RevolvePlan run(std::uint32_t layers, std::uint32_t slots) {
    Episode first{0, {}, true};
    reverse(0, layers, slots, first, 1);
    return std::move(m_plan);
  }

 private:
  struct Episode {
    std::uint32_t from = 0;
    std::vector<std::uint32_t> checkpoints_taken;  // layers whose inputs this episode keeps
    bool is_first_pass = false;
  };

  // Reverses layers [start, end) with `slots` checkpoints (the one at `start` included); `held` counts the
  // checkpoints held now, for the peak.
  void reverse(std::uint32_t start, std::uint32_t end, std::uint32_t slots, Episode& open,
               std::uint32_t held) {
    const std::uint32_t n = end - start;
    if (n == 1) {
      close(open, start);
      return;
    }
    if (slots == 1) {
      close(open, end - 1);
      for (std::uint32_t target = end - 1; target-- > start;) {
        Episode again{start, {}, false};
        close(again, target);
      }
      return;
    }
    const std::uint32_t k = start + m_table.split(n, slots);
    open.checkpoints_taken.push_back(k);
    m_plan.max_checkpoints = std::max(m_plan.max_checkpoints, held + 1);
    reverse(k, end, slots - 1, open, held + 1);
    Episode left{start, {}, false};
    reverse(start, k, slots, left, held);
  }

  // The episode ends with `target`'s reversal: it evaluates layers from..target, keeping the checkpoints
  // it takes and the target's full stash.
  void close(const Episode& e, std::uint32_t target) {
    std::vector<XStash> stash(target - e.from + 1, XStash::none);
    for (std::uint32_t c : e.checkpoints_taken)
      if (c < target)
        stash[c - e.from] = XStash::checkpoint;  // one at the target itself would be used at once
    stash.back() = XStash::replicate;
    if (e.is_first_pass) {
      if (e.from == 0 && target > 0) stash.front() = XStash::checkpoint;  // the input: checkpoint 0
      for (std::uint32_t l = 0; l < stash.size(); ++l) m_plan.first_pass[l] = stash[l];
      return;
    }
    m_plan.recomputations += target - e.from + 1;
    // A checkpoint is last used by the reversal of its own layer.
    m_plan.episodes[target] = RecomputeEpisode{e.from, e.from == target, std::move(stash)};
  }

  CostTable m_table;
  RevolvePlan m_plan;
};

std::uint64_t binomial(std::uint64_t n, std::uint64_t k) {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace

RevolvePlan plan_revolve(std::uint32_t layers, std::uint32_t slots) {
  if (layers == 0) throw std::invalid_argument("revolve: needs at least one layer");
  if (slots == 0) throw std::invalid_argument("revolve: needs at least one checkpoint slot");
  RevolvePlan plan = Planner(layers, slots).run(layers, slots);
  plan.max_checkpoints = std::max<std::uint32_t>(plan.max_checkpoints, layers > 1 ? 1 : 0);
  return plan;
}

std::uint64_t revolve_minimal_forward_steps(std::uint64_t l, std::uint64_t s) {
  if (l <= 1) return 0;
  std::uint64_t r = 0;
  while (!(binomial(s + r - 1, s) < l && l <= binomial(s + r, s))) ++r;
  return r * l - binomial(s + r, s + 1);
}

}  // namespace spatialsim::workloads
