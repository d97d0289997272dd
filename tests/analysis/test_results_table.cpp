// The console table: number formats, one column per schedule, ratios to forward ("-" where forward is 0)
// and the setup header.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/results_table.h"
#include "analysis/run_metrics.h"
#include "sim/blas_kernels.h"

namespace spatialsim::analysis {
namespace {

// The whitespace-separated cells of the table line that starts with `metric`; empty if there is none.
std::vector<std::string> row_of(const std::string& table, const std::string& metric) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string w; words >> w;) cells.push_back(w);
    if (!cells.empty() && cells.front() == metric) return cells;
  }
  return {};
}

workloads::RunResult run_with(const std::string& schedule, std::uint64_t forward_lane_hops,
                              std::uint64_t backward_psum_hops, std::uint64_t peak_stash) {
  workloads::RunResult r;
  r.schedule = schedule;
  r.counters.byte_hops.at(sim::Phase::forward, sim::MessageKind::lane) = forward_lane_hops;
  r.counters.byte_hops.at(sim::Phase::backward, sim::MessageKind::psum) = backward_psum_hops;
  r.counters.peak_stash_bytes = peak_stash;
  r.counters.depth = 10;
  return r;
}

const sim::EnergyPrices kPrices{"test", 0.5, 1.0, 0.1};

TEST(FormatNumber, IntegersExactBelowAMillionThenScientific) {
  EXPECT_EQ(format_number(std::uint64_t{0}), "0");
  EXPECT_EQ(format_number(std::uint64_t{999999}), "999999");
  EXPECT_EQ(format_number(std::uint64_t{1000000}), "1e6");
  EXPECT_EQ(format_number(std::uint64_t{1234567}), "1.235e6");
  EXPECT_EQ(format_number(std::uint64_t{1200000000}), "1.2e9");
}

TEST(FormatNumber, Doubles) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(0.125), "0.125");
  EXPECT_EQ(format_number(1234.5), "1234.5");
  EXPECT_EQ(format_number(2.5e-4), "2.5e-4");
  EXPECT_EQ(format_number(-3.0e7), "-3e7");
  EXPECT_EQ(format_number(999999.9), "1e6");  // rounds up to the next form, not "1e+06"
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(FormatLoss, AMeasuredNanIsNanNotTheNoValueDash) {
  EXPECT_EQ(format_loss(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_loss(-std::numeric_limits<double>::quiet_NaN()), "nan");  // not "-nan"
  EXPECT_EQ(format_loss(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_loss(2.07223), "2.07223");
}

// Before the first update (step 0) only the initial weights (and the mixture task's spread) can overflow;
// after it the learning rate can too; with the step unknown (a sweep keeps the last loss) every lever is
// named.
TEST(FiniteValuesFix, NamesWhatCanHaveOverflowedByTheStep) {
  workloads::RunSetup setup;
  setup.steps = 4;
  setup.data.task = workloads::Task::teacher;
  EXPECT_EQ(finite_values_fix(setup, 0), "a smaller model.init_gain");
  EXPECT_EQ(finite_values_fix(setup, 2), "a smaller train.lr or model.init_gain");
  EXPECT_EQ(finite_values_fix(setup, std::nullopt), "a smaller train.lr or model.init_gain");
  setup.data.task = workloads::Task::mixture;
  EXPECT_EQ(finite_values_fix(setup, 0), "a smaller model.init_gain or data.mixture_spread");
  EXPECT_EQ(finite_values_fix(setup, 1), "a smaller train.lr or model.init_gain");
  EXPECT_EQ(finite_values_fix(setup, std::nullopt),
            "a smaller train.lr, model.init_gain or data.mixture_spread");
  setup.steps = 1;  // a one-step run never updates before its only loss
  EXPECT_EQ(finite_values_fix(setup, std::nullopt), "a smaller model.init_gain or data.mixture_spread");
}

TEST(FormatRatio, SignificantDigitsAndUndefined) {
  EXPECT_EQ(format_ratio(280, 100), "2.8");
  EXPECT_EQ(format_ratio(100, 100), "1");
  EXPECT_EQ(format_ratio(1, 3), "0.3333");
  EXPECT_EQ(format_ratio(0, 5), "0");
  EXPECT_EQ(format_ratio(5, 0), "-");
  EXPECT_EQ(format_ratio(0, 0), "-");
  EXPECT_EQ(format_ratio(1, std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(format_ratio(123456, 2), "6.173e4");
}

// The one definition behind the table's "-" and the HDF5 file's NaN.
TEST(RatioToForward, DefinedOnlyOverAFiniteNonZeroForward) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ratio_to_forward(280, 100), 2.8);
  EXPECT_EQ(ratio_to_forward(0, 7), 0.0);
  EXPECT_TRUE(std::isnan(ratio_to_forward(5, 0)));
  EXPECT_TRUE(std::isnan(ratio_to_forward(5, inf)));
  EXPECT_TRUE(std::isnan(ratio_to_forward(inf, 5)));
  EXPECT_TRUE(std::isnan(ratio_to_forward(5, std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(format_ratio(inf, 5), "-");
}

TEST(ResultsTable, RatiosToForward) {
  const std::vector<workloads::RunResult> runs = {run_with("forward", 400, 0, 0),
                                                  run_with("backprop", 500, 300, 64),
                                                  run_with("checkpoint", 600, 200, 32)};
  std::ostringstream out;
  write_results_table(out, runs, &runs[0], kPrices);
  const std::string table = out.str();

  EXPECT_EQ(row_of(table, "metric"),
            (std::vector<std::string>{"metric", "unit", "forward", "backprop", "checkpoint",
                                      "backprop/forward", "checkpoint/forward"}));
  // Forward traffic: 400, 500, 600 -> 1.25, 1.5.
  EXPECT_EQ(row_of(table, "byte_hops_forward"),
            (std::vector<std::string>{"byte_hops_forward", "byte-hops", "400", "500", "600", "1.25", "1.5"}));
  // Totals include the backward traffic: 400, 800, 800 -> 2, 2.
  EXPECT_EQ(row_of(table, "byte_hops"),
            (std::vector<std::string>{"byte_hops", "byte-hops", "400", "800", "800", "2", "2"}));
  // Forward has no backward traffic and no stash: the ratio is not defined.
  EXPECT_EQ(row_of(table, "byte_hops_backward"),
            (std::vector<std::string>{"byte_hops_backward", "byte-hops", "0", "300", "200", "-", "-"}));
  EXPECT_EQ(row_of(table, "peak_stash_bytes"),
            (std::vector<std::string>{"peak_stash_bytes", "bytes", "0", "64", "32", "-", "-"}));
  EXPECT_EQ(row_of(table, "depth"), (std::vector<std::string>{"depth", "hops", "10", "10", "10", "1", "1"}));
  // Energy follows the prices: 400 byte-hops x 0.5 pJ.
  EXPECT_EQ(row_of(table, "energy_hop_pj"),
            (std::vector<std::string>{"energy_hop_pj", "pJ", "200", "400", "400", "2", "2"}));
  // No loss in counting mode.
  EXPECT_EQ(row_of(table, "final_loss"),
            (std::vector<std::string>{"final_loss", "1", "-", "-", "-", "-", "-"}));
  // The (phase, kind) cells are left to the file.
  EXPECT_TRUE(row_of(table, "byte_hops_forward_lane").empty());
  for (const auto& name : default_table_rows()) EXPECT_FALSE(row_of(table, name).empty()) << name;
}

// A loss that is NaN where values were computed is a measured NaN (the values overflowed), not the "-" of
// counting mode, which computes no loss; an infinite loss prints as such.
TEST(ResultsTable, AMeasuredNanLossIsNotTheNoValueDash) {
  std::vector<workloads::RunResult> runs = {run_with("forward", 400, 0, 0),
                                            run_with("backprop", 500, 300, 64),
                                            run_with("checkpoint", 600, 200, 32)};
  runs[0].loss_per_step = {0.5};
  runs[1].loss_per_step = {0.5, std::numeric_limits<double>::quiet_NaN()};
  runs[2].loss_per_step = {std::numeric_limits<double>::infinity()};
  std::ostringstream out;
  write_results_table(out, runs, &runs[0], kPrices);
  EXPECT_EQ(row_of(out.str(), "final_loss"),
            (std::vector<std::string>{"final_loss", "1", "0.5", "nan", "inf", "-", "-"}));
}

TEST(ResultsTable, ForwardNeedNotComeFirst) {
  const std::vector<workloads::RunResult> runs = {run_with("backprop", 300, 300, 64),
                                                  run_with("forward", 200, 0, 0)};
  std::ostringstream out;
  write_results_table(out, runs, find_run(runs, "forward"), kPrices);
  EXPECT_EQ(row_of(out.str(), "byte_hops"),
            (std::vector<std::string>{"byte_hops", "byte-hops", "600", "200", "3"}));
}

// A forward run that is not one of the columns (counted for the ratios alone) gives every column a ratio;
// the simulator's own figures (wall time, event rate) and the loss get none.
TEST(ResultsTable, RatiosToABaselineForwardThatIsNotAColumn) {
  const std::vector<workloads::RunResult> runs = {run_with("backprop", 300, 300, 64)};
  workloads::RunResult forward = run_with("forward", 200, 0, 0);
  forward.wall_seconds = 1;
  std::ostringstream out;
  write_results_table(out, runs, &forward, kPrices);
  const std::string table = out.str();
  EXPECT_EQ(row_of(table, "metric"),
            (std::vector<std::string>{"metric", "unit", "backprop", "backprop/forward"}));
  EXPECT_EQ(row_of(table, "byte_hops"), (std::vector<std::string>{"byte_hops", "byte-hops", "600", "3"}));
  EXPECT_EQ(row_of(table, "wall_seconds").back(), "-");
  EXPECT_EQ(row_of(table, "events_per_second").back(), "-");
  EXPECT_EQ(find_run(runs, "forward"), nullptr);
}

TEST(ResultsTable, NoRatiosWithoutForwardAndUnknownRowsSkipped) {
  const std::vector<workloads::RunResult> runs = {run_with("backprop", 300, 300, 64)};
  std::ostringstream out;
  write_results_table(out, runs, nullptr, kPrices, {"byte_hops", "no_such_metric", "depth"});
  EXPECT_EQ(out.str(),
            "metric     unit       backprop\n"
            "byte_hops  byte-hops       600\n"
            "depth      hops             10\n");
}

// Two runs of one configuration print the same table but for their timings: the widths do not depend on
// them (a run's table was laid out again when its wall time printed wider, and a diff of two runs showed
// every line).
TEST(ResultsTable, TimingsDoNotMoveTheOtherLines) {
  const auto table = [](double seconds) {
    std::vector<workloads::RunResult> runs = {run_with("forward", 400, 0, 0),
                                              run_with("backprop", 500, 300, 64)};
    for (auto& r : runs) {
      r.wall_seconds = seconds;
      r.counters.events = 1234567;
    }
    std::ostringstream out;
    write_results_table(out, runs, &runs[0], kPrices,
                        {"byte_hops", "wall_seconds", "events_per_second", "depth"});
    std::istringstream in(out.str());
    std::string kept;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("wall_seconds", 0) != 0 && line.rfind("events_per_second", 0) != 0) kept += line + "\n";
    return std::pair{kept, out.str()};
  };
  const auto [fast, fast_all] = table(1e-4);
  const auto [slow, slow_all] = table(0.00123457);  // the widest a timing prints: 10 characters
  EXPECT_EQ(fast, slow);
  EXPECT_NE(fast_all, slow_all);
  EXPECT_NE(slow_all.find("wall_seconds       s          0.00123457  0.00123457"), std::string::npos)
      << slow_all;
}

// The timing flag is what keeps those rows out of the widths: exactly the simulator's own measurements.
TEST(ResultsTable, OnlyTheSimulatorsOwnMeasurementsAreTimings) {
  std::vector<std::string> timings;
  for (const Metric& m : run_metrics(run_with("backprop", 500, 300, 64), kPrices))
    if (m.timing) timings.push_back(m.name);
  EXPECT_EQ(timings, (std::vector<std::string>{"wall_seconds", "events_per_second"}));
}

// What the header tests start from: 32 -> 64 -> 10 on 2x2 blocks in a 4x2 grid, 64 tokens in wavefronts of
// 8, counting mode.
workloads::RunSetup header_setup() {
  workloads::RunSetup s;
  s.model.widths = {32, 64, 10};
  s.grid_width = 4;
  s.grid_height = 2;
  s.placement_name = "zigzag";
  s.placement.blocks = {mappings::BlockLayout{.rows = 2, .cols = 2},
                        mappings::BlockLayout{.rows = 2, .cols = 2}};
  s.tokens = 64;
  s.tokens_per_wavefront = 8;
  s.injection_interval = 3;
  s.arithmetic = workloads::Arithmetic::none;
  s.prices = {"dally2023", 0.4, 1.0, 0.1};
  return s;
}

TEST(ResultsTable, SetupHeader) {
  workloads::RunSetup s = header_setup();
  std::ostringstream out;
  write_setup_header(out, s);
  const std::string h = out.str();
  EXPECT_NE(h.find("widths 32,64,10 (2 layers)"), std::string::npos) << h;
  EXPECT_NE(h.find("4x2 mesh; block 2x2 per layer, placement zigzag"), std::string::npos) << h;
  EXPECT_NE(h.find("64 tokens in 8 wavefronts of 8"), std::string::npos) << h;
  {  // T + T_g past 2^32 must not wrap the count to 0
    workloads::RunSetup large = s;
    large.tokens = 4294967295u;
    large.tokens_per_wavefront = 2147483648u;
    std::ostringstream o;
    write_setup_header(o, large);
    EXPECT_NE(o.str().find("4294967295 tokens in 2 wavefronts of 2147483648"), std::string::npos) << o.str();
  }
  EXPECT_NE(h.find("arith   none"), std::string::npos) << h;
  EXPECT_NE(h.find("energy  dally2023: 0.4 pJ/byte-hop, 1 pJ/SRAM byte, 0.1 pJ/flop"), std::string::npos)
      << h;
  // A price set over the preset is named: "dally2023: 0 pJ/byte-hop" read as the preset's price.
  s.prices.hop_pj = 0;
  std::ostringstream priced;
  write_setup_header(priced, s);
  EXPECT_NE(priced.str().find("energy  dally2023, energy.hop_pj set: 0 pJ/byte-hop, 1 pJ/SRAM byte"),
            std::string::npos)
      << priced.str();
  s.prices.hop_pj = 0.4;
  // Prices under a name no preset has (a caller's own) are shown by that name, not refused.
  s.prices.preset = "measured";
  std::ostringstream own;
  write_setup_header(own, s);
  EXPECT_NE(own.str().find("energy  measured: 0.4 pJ/byte-hop"), std::string::npos) << own.str();
  s.prices.preset = "dally2023";
  EXPECT_EQ(h.find("stage"), std::string::npos) << h;     // fully spatial: nothing said
  EXPECT_EQ(h.find("OpenBLAS"), std::string::npos) << h;  // counting mode multiplies nothing

  // Arithmetic: the BLAS kernels, which round the products, and a note when a faster set is available.
  s.arithmetic = workloads::Arithmetic::fp32;
  s.seed = 7;
  std::ostringstream arith;
  write_setup_header(arith, s);
  EXPECT_NE(arith.str().find("arith   fp32, seed 7, OpenBLAS " + sim::blas_kernels() + " kernels\n"),
            std::string::npos)
      << arith.str();
  EXPECT_EQ(arith.str().find("\nnote    ") != std::string::npos, !sim::blas_advice().empty()) << arith.str();
  s.arithmetic = workloads::Arithmetic::none;

  // Pipeline stages: both layers on one stage's block; one layer per stage is the fully spatial mapping.
  auto header_with_stages = [&](std::uint32_t stages) {
    s.placement.stages = stages;
    std::ostringstream o;
    write_setup_header(o, s);
    return o.str();
  };
  EXPECT_NE(
      header_with_stages(1).find("placement zigzag, 1 pipeline stage (layers sharing a stage's block)\n"),
      std::string::npos);
  EXPECT_NE(
      header_with_stages(2).find("placement zigzag, 2 pipeline stages of one layer each (fully spatial)\n"),
      std::string::npos);

  // A reversible model's widths are its stages (entry, one per coupling block, exit), not its layers: 3
  // coupling blocks make 2 * 3 + 2 dense layers.
  s.model.kind = workloads::ModelKind::reversible;
  s.model.widths = {12, 8, 8, 8, 8, 5};
  std::ostringstream reversible;
  write_setup_header(reversible, s);
  EXPECT_NE(reversible.str().find("widths 12,8,8,8,8,5 (3 coupling blocks: 8 dense layers)\n"),
            std::string::npos)
      << reversible.str();
}

// Counts of one read in the singular: "1 layers" or "1 wavefronts" reads as a misprint of another count.
TEST(ResultsTable, SetupHeaderCountsOfOneAreSingular) {
  workloads::RunSetup s = header_setup();
  s.model.widths = {32, 10};
  s.placement.blocks.resize(1);
  s.placement.stages = 1;
  s.tokens = 8;
  std::ostringstream one;
  write_setup_header(one, s);
  EXPECT_NE(one.str().find("widths 32,10 (1 layer)\n"), std::string::npos) << one.str();
  EXPECT_NE(one.str().find("1 pipeline stage of one layer (fully spatial)\n"), std::string::npos)
      << one.str();
  EXPECT_NE(one.str().find("8 tokens in 1 wavefront of 8, injected every 3 cycles; 1 step\n"),
            std::string::npos)
      << one.str();

  s.tokens = 1;
  s.tokens_per_wavefront = 1;
  s.injection_interval = 1;
  std::ostringstream token;
  write_setup_header(token, s);
  EXPECT_NE(token.str().find("1 token in 1 wavefront of 1, injected every 1 cycle; 1 step\n"),
            std::string::npos)
      << token.str();

  s.model.kind = workloads::ModelKind::reversible;
  s.model.widths = {12, 8, 8, 5};  // inputs, the entry layer's outputs, one per coupling block, outputs
  std::ostringstream reversible;
  write_setup_header(reversible, s);
  EXPECT_NE(reversible.str().find("widths 12,8,8,5 (1 coupling block: 4 dense layers)\n"), std::string::npos)
      << reversible.str();
}

}  // namespace
}  // namespace spatialsim::analysis
