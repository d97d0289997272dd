#pragma once
// Shared by the sweep tests: a small, fast base configuration (counting mode, 16 wide, 2x2 blocks) and a
// comparison of rows that leaves out the two wall-clock figures, which are measurements of the host.
//
// Usage:
//   sim::Config c = small_sweep_config("model.depth=2,4", "forward,backprop");
//   expect_same_results(a.metrics, b.metrics);

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "cli/command_line.h"
#include "sim/config.h"

namespace spatialsim::analysis::testing {

inline sim::Config small_sweep_config(const std::string& vary, const std::string& schedules) {
  sim::Config c = cli::default_config();
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{{"sim.arith", "none"},
                                                                                   {"model.inputs", "16"},
                                                                                   {"model.width", "16"},
                                                                                   {"model.outputs", "16"},
                                                                                   {"mapping.block", "2x2"},
                                                                                   {"step.wavefront", "4"}})
    c.set(key, value, "test");
  c.set("sweep.vary", vary, "test");
  c.set("schedule", schedules, "test");
  return c;
}

inline bool is_wall_clock(const std::string& metric) {
  return metric == "wall_seconds" || metric == "events_per_second";
}

inline void expect_same_results(const std::vector<Metric>& a, const std::vector<Metric>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t m = 0; m < a.size(); ++m) {
    ASSERT_EQ(a[m].name, b[m].name);
    if (is_wall_clock(a[m].name)) continue;
    // Exactly: same type, same bits (a NaN, such as final_loss in counting mode, equals a NaN).
    ASSERT_EQ(a[m].value.index(), b[m].value.index()) << a[m].name;
    if (std::holds_alternative<double>(a[m].value) && std::isnan(std::get<double>(a[m].value))) {
      EXPECT_TRUE(std::isnan(std::get<double>(b[m].value))) << a[m].name;
      continue;
    }
    EXPECT_EQ(a[m].value, b[m].value) << a[m].name;
  }
}

}  // namespace spatialsim::analysis::testing
