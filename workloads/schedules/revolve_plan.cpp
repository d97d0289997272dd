#include "workloads/schedules/revolve_plan.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace spatialsim::workloads {
namespace {

using mappings::XStash;

// C(n, k), or UINT64_MAX where it does not fit (the planner only compares it with a layer count).
std::uint64_t binomial(std::uint64_t n, std::uint64_t k) {
  if (k > n) return 0;
  k = std::min(k, n - k);
  __extension__ typedef unsigned __int128 Wide;  // r * (n - k + i) fits before the division
  Wide r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    r = r * (n - k + i) / i;  // exact: r is C(n - k + i, i) after each step
    if (r > std::numeric_limits<std::uint64_t>::max()) return std::numeric_limits<std::uint64_t>::max();
  }
  return static_cast<std::uint64_t>(r);
}

// t(n, s): the fewest layer evaluations to reverse n layers from a checkpoint at their start, with s
// checkpoints in all (that one included), counting advances only. Revolve's recursion
//   t(n, s) = min_k [k + t(n - k, s - 1) + t(k, s)],  t(1, s) = 0,  t(n, 1) = n (n - 1) / 2
// has the closed form revolve_minimal_forward_steps.
std::uint64_t cost(std::uint32_t n, std::uint32_t s) {
  return revolve_minimal_forward_steps(n, s);
}

// Builds the episodes by following the optimal recursion: reversing layers [start, end) with s slots
// advances to the split k (one more checkpoint in the open episode), reverses [k, end) with s - 1 slots
// continuing that episode, then [start, k) with s slots in a new episode from `start`. Written as a loop
// over a stack of waiting left parts, in the recursion's order, because the chain of right parts is as long
// as the slots (up to the layer count) and would nest that deep.
class Planner {
 public:
  explicit Planner(std::uint32_t layers) {
    m_plan.first_pass.assign(layers, XStash::none);
    m_plan.episodes.resize(layers);
  }

  RevolvePlan run(std::uint32_t layers, std::uint32_t slots) {
    std::vector<Part> waiting;
    waiting.push_back({0, layers, slots, 1, Episode{0, {}, true}});
    while (!waiting.empty()) {
      Part part = std::move(waiting.back());
      waiting.pop_back();
      while (!reverse_directly(part)) {
        const std::uint32_t k = part.start + revolve_split(part.end - part.start, part.slots);
        part.episode.checkpoints_taken.push_back(k);
        m_plan.max_checkpoints = std::max(m_plan.max_checkpoints, part.held + 1);
        waiting.push_back({part.start, k, part.slots, part.held, Episode{part.start, {}, false}});
        part.start = k;  // the right part, with one slot fewer, in the same episode
        part.slots -= 1;
        part.held += 1;
      }
    }
    return std::move(m_plan);
  }

 private:
  struct Episode {
    std::uint32_t from = 0;
    std::vector<std::uint32_t> checkpoints_taken;  // layers whose inputs this episode keeps
    bool is_first_pass = false;
  };

  // Layers [start, end) to reverse with `slots` checkpoints (the one at `start` included) in `episode`,
  // which has reached `start` (restored from a checkpoint or advanced to); `held` counts the checkpoints
  // held now, for the peak.
  struct Part {
    std::uint32_t start = 0, end = 0, slots = 0, held = 0;
    Episode episode;
  };

  // Reverses a part that needs no split (one layer, or one slot: advance from the start for each layer);
  // false for one that does.
  bool reverse_directly(Part& part) {
    if (part.end - part.start == 1) {
      close(part.episode, part.start);
      return true;
    }
    if (part.slots > 1) return false;
    close(part.episode, part.end - 1);
    for (std::uint32_t target = part.end - 1; target-- > part.start;)
      close(Episode{part.start, {}, false}, target);
    return true;
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

  RevolvePlan m_plan;
};

}  // namespace

std::uint32_t revolve_split(std::uint32_t n, std::uint32_t s) {
  if (n < 2 || s < 2) throw std::invalid_argument("revolve_split: needs 2 or more layers and slots");
  // t(., s) is convex in n (piecewise linear, its slope r growing with n), so f is convex and its
  // differences f(k + 1) - f(k) never decrease: the smallest minimizer is the first k whose difference is
  // not negative, found by bisection.
  const auto f = [&](std::uint32_t k) { return k + cost(n - k, s - 1) + cost(k, s); };
  std::uint32_t lo = 1, hi = n - 1;  // the answer is in [lo, hi]
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (f(mid + 1) >= f(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

RevolvePlan plan_revolve(std::uint32_t layers, std::uint32_t slots) {
  if (layers == 0) throw std::invalid_argument("revolve: needs at least one layer");
  if (slots == 0) throw std::invalid_argument("revolve: needs at least one checkpoint slot");
  RevolvePlan plan = Planner(layers).run(layers, slots);
  plan.max_checkpoints = std::max<std::uint32_t>(plan.max_checkpoints, layers > 1 ? 1 : 0);
  return plan;
}

std::uint64_t revolve_minimal_forward_steps(std::uint64_t l, std::uint64_t s) {
  if (s == 0) throw std::invalid_argument("revolve: needs at least one checkpoint slot");
  if (l <= 1) return 0;
  if (s == 1) return l * (l - 1) / 2;  // r = l - 1: the search below would take l steps
  std::uint64_t r = 0;
  while (!(binomial(s + r - 1, s) < l && l <= binomial(s + r, s))) ++r;
  return r * l - binomial(s + r, s + 1);
}

}  // namespace spatialsim::workloads
