// What a schedule moves and computes does not depend on how long moving and computing take (docs/model.md
// section 1): finite links and compute time change when things happen, the makespan and the in-flight
// storage, never a byte-hop, a message, a flop, an SRAM byte or the depth. Every registered schedule, on
// each model kind it accepts, with uneven splits, blocks of several columns and of one row, a torus and
// cross-entropy's scalar chain. A choice made by whichever event came first would break this: checkpoint's
// restart signal was sent by the first column to receive its dL/dY, and with compute time its byte-hops and
// depth changed.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/workloads/network_test_support.h"
#include "workloads/reversible/reversible_model.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim::workloads {
namespace {

using testing_support::run_with;

// The options that vary a schedule's plan, beside its defaults.
std::vector<std::string> plan_variants(const std::string& schedule) {
  if (schedule == "checkpoint") return {"--checkpoint.segment=2", "--checkpoint.segment=3"};
  if (schedule == "revolve") return {"--revolve.slots=2", "--revolve.slots=3"};
  if (schedule == "split-fg") return {"--splitfg.split=1", "--splitfg.split=3"};
  return {};
}

void expect_same_counts(const RunResult& timed, const RunResult& untimed, const std::string& where) {
  EXPECT_EQ(timed.counters.byte_hops.cells, untimed.counters.byte_hops.cells) << where;
  EXPECT_EQ(timed.counters.messages.cells, untimed.counters.messages.cells) << where;
  EXPECT_EQ(timed.counters.flops, untimed.counters.flops) << where;
  EXPECT_EQ(timed.counters.sram_bytes, untimed.counters.sram_bytes) << where;
  EXPECT_EQ(timed.counters.depth, untimed.counters.depth) << where;
  EXPECT_EQ(timed.counters.events, untimed.counters.events) << where;
  EXPECT_GT(timed.counters.makespan_cycles, untimed.counters.makespan_cycles) << where;
}

TEST(TimingIndependence, EveryScheduleCountsTheSameWithFiniteLinksAndComputeTime) {
  const std::vector<std::vector<std::string>> timings = {
      {"--machine.flops_per_cycle=7"},
      {"--machine.link_bytes_per_cycle=5"},
      {"--machine.flops_per_cycle=7", "--machine.link_bytes_per_cycle=3"}};
  std::set<std::string> ran;
  for (const auto& schedule : ScheduleRegistry::names())
    for (const char* kind : {"mlp", "reversible"})
      for (const char* topology : {"mesh", "torus"})
        for (const char* block : {"2x3", "1x3"}) {  // one row: backward passes start while lanes still run
          std::vector<std::string> model = {std::string("--model.kind=") + kind,
                                            std::string("--mapping.block=") + block,
                                            std::string("--machine.topology=") + topology,
                                            "--machine.hop_latency=2",
                                            "--model.loss=cross-entropy",
                                            "--data.task=mixture",
                                            "--step.tokens=8",
                                            "--step.wavefront=2",
                                            "--sim.arith=none"};
          if (std::string(kind) == "mlp") {
            model.push_back("--model.widths=7,11,6,9,5");
          } else {
            model.insert(model.end(),
                         {"--model.depth=2", "--model.width=10", "--model.inputs=7", "--model.outputs=5"});
          }
          try {
            require_schedule_runs_on(setup_from_config(testing_support::config_with(model)).model, schedule);
          } catch (const sim::ConfigError&) {
            continue;  // not a combination that runs (docs/reversible.md)
          }
          std::vector<std::string> variants = plan_variants(schedule);
          variants.insert(variants.begin(), "");
          for (const std::string& variant : variants) {
            std::vector<std::string> base = model;
            if (!variant.empty()) base.push_back(variant);
            const RunResult untimed = run_with(base, schedule);
            for (const auto& timing : timings) {
              std::vector<std::string> overrides = base;
              overrides.insert(overrides.end(), timing.begin(), timing.end());
              expect_same_counts(
                  run_with(overrides, schedule), untimed,
                  schedule + " " + kind + " " + topology + " " + block + " " + variant + " " + timing.back());
              ran.insert(schedule);
            }
          }
        }
  EXPECT_EQ(ran.size(), ScheduleRegistry::names().size());  // each on a model kind it accepts
}

}  // namespace
}  // namespace spatialsim::workloads
