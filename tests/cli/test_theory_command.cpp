// `spatialsim theory` end to end: on configs/seed-grid.ini the built binary prints seed 000's figures
// (4.9e-3 byte-hops per FLOP; 37 GB, 2.1 GB, 4.6 GB), the theory options change what they should, and bad
// input exits 2 with one line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/binary_run_fixture.h"

namespace spatialsim::cli {
namespace {

using testing::BinaryRun;
using testing::run_binary;

const std::string kSeedGrid = std::string("--config '") + SPATIALSIM_SOURCE_DIR + "/configs/seed-grid.ini'";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TheoryCommand, SeedGridPrintsSeed000sFigures) {
  const BinaryRun r = run_binary("theory " + kSeedGrid);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "GB = 1e9 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "L = 32 layers")) << r.out;
  EXPECT_TRUE(contains(r.out, "d = 4096, k = 16384")) << r.out;
  EXPECT_TRUE(contains(r.out, "n = 256 tiles per layer")) << r.out;
  EXPECT_TRUE(contains(r.out, "T_tau = 256 tokens")) << r.out;
  EXPECT_TRUE(contains(r.out, "hops_per_flop = (d + k) sqrt(n) / (d k) = 4.9e-3 byte-hops per FLOP"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "c = 34 (store-all, transformer): 37 GB (36507222016 bytes)")) << r.out;
  EXPECT_TRUE(contains(r.out, "c = 2 (seed 000's bf16 inputs only): 2.1 GB (2147483648 bytes)")) << r.out;
  EXPECT_TRUE(contains(r.out, "p = 8, c = 34 (store-all): 4.6 GB (4563402752 bytes)")) << r.out;
  EXPECT_TRUE(contains(r.out, "depth = 2 L sqrt(n) = 1024 hops")) << r.out;
  EXPECT_TRUE(contains(r.out, "reuse_threshold = e_sram / e_mac = 10 ")) << r.out;
  EXPECT_TRUE(contains(r.out, "b_w e_sram / (2 e_flop) = 10 (10): the same, since b_w = 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "inflight_pipeline = 1/2 L p T_tau c d (seed 000's 1F1B form")) << r.out;
  // The chains the simulator's depth counter follows: 31 + 16 x 16 + 15 x 31 forward (docs/theory.md).
  EXPECT_TRUE(
      contains(r.out, "placement: forward 752, backprop step 1503 hops; the layers add 16 to 31 hops"))
      << r.out;
  // The exact side: 32 layers of 2 * (4096 + 16384) / 2 * 15 per kind; 31 boundaries of one hop.
  EXPECT_TRUE(contains(r.out, "forward lane = sum_l b_a d_in (c - 1) = 9830400 byte-hops")) << r.out;
  EXPECT_TRUE(contains(r.out, "forward psum = sum_l b_p d_out (r - 1) = 9830400 byte-hops")) << r.out;
  EXPECT_TRUE(contains(r.out, "forward redistribution = 647168 byte-hops (one hop per element")) << r.out;
}

TEST(TheoryCommand, OptionsChangeTheConfiguredFigures) {
  const BinaryRun r = run_binary(
      "theory " + kSeedGrid + " --theory.stash_constant=34 --theory.pipeline_stages=4 --theory.tokens=128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "T_tau = 128 tokens in flight per layer (theory.tokens)")) << r.out;
  // Half the tokens: half of 36.5e9; p = 4: half of 4.56e9 again.
  EXPECT_TRUE(contains(r.out, "c = 34 (configured): 18 GB (18253611008 bytes)")) << r.out;
  EXPECT_TRUE(contains(r.out, "p = 4, c = 34 (configured): 1.1 GB (1140850688 bytes)")) << r.out;
}

// theory prints backprop's backward byte-hops for backprop.xstash, so it reads that schedule option; and
// it reads the grid's topology (routes wrap on a torus). What it does not print is refused
// (test_bad_input.cpp).
TEST(TheoryCommand, ReadsTheStashPolicyAndTheTopology) {
  const BinaryRun r = run_binary("theory --backprop.xstash=rebroadcast");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "backward (backprop, backprop.xstash = rebroadcast)")) << r.out;
  const BinaryRun mesh = run_binary("theory --mapping.placement=rowmajor");
  const BinaryRun torus = run_binary("theory --mapping.placement=rowmajor --machine.topology=torus");
  ASSERT_EQ(torus.exit_code, 0) << torus.err;
  EXPECT_NE(mesh.out, torus.out);
}

// The weight's bytes change the reuse threshold as the simulator counts it, and the cross-entropy loss's
// scalars along the last block's output tiles lengthen the depth: theory reads both.
TEST(TheoryCommand, ReadsTheWeightBytesAndTheLoss) {
  const BinaryRun fp32 = run_binary("theory --machine.weight_bytes=4");
  ASSERT_EQ(fp32.exit_code, 0) << fp32.err;
  EXPECT_TRUE(contains(fp32.out, "b_w e_sram / (2 e_flop) = 20 (20)\n")) << fp32.out;
  const BinaryRun mse = run_binary("theory --mapping.block=4x4 --model.widths=16,16,16");
  const BinaryRun ce =
      run_binary("theory --mapping.block=4x4 --model.widths=16,16,16 --model.loss=cross-entropy");
  ASSERT_EQ(ce.exit_code, 0) << ce.err;
  EXPECT_NE(mse.out, ce.out);
  // The exact block is what a run counts, but for cross-entropy's loss statistics: said, not left silent.
  const std::string left_out =
      "  not in these figures: cross-entropy's loss statistics (kind scalar, reduced and broadcast across "
      "the last layer's output tiles), which a run counts as byte_hops_scalar\n";
  EXPECT_TRUE(contains(ce.out, left_out)) << ce.out;
  EXPECT_FALSE(contains(mse.out, "not in these figures")) << mse.out;
}

TEST(TheoryCommand, DefaultConfigurationRuns) {
  const BinaryRun r = run_binary("theory");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "more stages than layers")) << r.out;  // L = 4 < p = 8: said, not refused
}

// Counts of one read in the singular, as the run header's do: it printed "L = 1 layers", "n = 1 tiles per
// layer", "T_tau = 1 tokens", "p = 1 pipeline stages" and "b_a = 1 bytes".
TEST(TheoryCommand, CountsOfOneAreSingular) {
  const BinaryRun r = run_binary(
      "theory --model.widths=10,10 --mapping.block=1x1 --theory.tokens=1 --theory.pipeline_stages=1 "
      "--theory.stash_constant=1 --machine.act_bytes=1 --machine.psum_bytes=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"  L = 1 layer\n", "  n = 1 tile per layer (", "  T_tau = 1 token in flight per layer (",
        "  c = 1 byte per token-layer-d (", "  p = 1 pipeline stage (",
        "  b_a = 1 byte per activation, b_p = 1 byte per partial sum ("})
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  for (const char* plural : {" 1 layers", " 1 tiles", " 1 tokens", " 1 bytes", " 1 pipeline stages"})
    EXPECT_FALSE(contains(r.out, plural)) << plural << "\n" << r.out;
}

TEST(TheoryCommand, BadInputExitsTwoWithOneLine) {
  const BinaryRun r = run_binary("theory --theory.pipeline_stages=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "theory.pipeline_stages")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Nothing is simulated, so the host's memory does not limit the model: 3 layers of 100000 need 240 GB in
// fp32, which `run` refuses (unless sim.arith=none), and theory refused too, suggesting sim.arith=none,
// which it does not read.
TEST(TheoryCommand, AModelBeyondThisHostsMemoryHasClosedFormsToo) {
  const BinaryRun r = run_binary("theory --model.widths=100000,100000,100000 --mapping.block=4x4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "d = 100000, k = 100000 elements")) << r.out;
}

// A free multiply-add has no reuse threshold: it printed inf, -inf (for -0) or nan (with a free SRAM too).
TEST(TheoryCommand, AFreeFlopHasNoReuseThreshold) {
  for (const char* prices :
       {"--energy.flop_pj=0", "--energy.flop_pj=-0", "--energy.flop_pj=0 --energy.sram_pj=0"}) {
    const BinaryRun r = run_binary(std::string("theory ") + prices);
    ASSERT_EQ(r.exit_code, 0) << prices << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "reuse_threshold = e_sram / e_mac: none, energy.flop_pj = 0")) << r.out;
    for (const char* word : {"= inf", "= -inf", "(inf", "(-inf", "nan"})
      EXPECT_FALSE(contains(r.out, word)) << r.out;
    EXPECT_TRUE(contains(r.out, "forward lane = ")) << r.out;  // the exact figures still follow
  }
}

// A price so small that e_sram / e_mac overflows a double is no threshold either (it printed "= inf").
TEST(TheoryCommand, ANearlyFreeFlopHasNoReuseThreshold) {
  const BinaryRun r = run_binary("theory --energy.flop_pj=1e-320 --energy.sram_pj=1e6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "reuse_threshold = e_sram / e_mac: none, energy.flop_pj = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "costs next to nothing")) << r.out;
  for (const char* word : {"= inf", "(inf", "nan"}) EXPECT_FALSE(contains(r.out, word)) << r.out;
}

// Only the counted form overflowing (b_w e_sram / (2 e_flop) with b_w = 4): seed 000's ratio is still
// printed, and the counted one says it is out of range (the whole threshold was "none").
TEST(TheoryCommand, ACountedThresholdBeyondADoubleLeavesSeed000sRatio) {
  const BinaryRun r =
      run_binary("theory --energy.sram_pj=1e6 --energy.flop_pj=1e-302 --machine.weight_bytes=4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "reuse_threshold = e_sram / e_mac = 1.0e308 inputs per weight read")) << r.out;
  EXPECT_TRUE(contains(r.out, "b_w e_sram / (2 e_flop) = none, beyond a double's range")) << r.out;
}

// Prices set over the preset are named as set, not as the preset's (the header said "of preset dally2023").
TEST(TheoryCommand, PricesSetOverThePresetAreNamed) {
  const BinaryRun set = run_binary("theory --energy.sram_pj=2 --energy.flop_pj=0.25");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_TRUE(contains(set.out,
                       "e_sram = 2 pJ/byte, e_mac = 0.25 pJ (energy.sram_pj and energy.flop_pj; "
                       "prices dally2023, energy.sram_pj and energy.flop_pj set)"))
      << set.out;
  const BinaryRun preset = run_binary("theory --energy.preset=dally2022");
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_TRUE(contains(preset.out, "(energy.sram_pj and energy.flop_pj; prices dally2022)")) << preset.out;
}

// The default widths serve any block: those narrower than it are left out with a note (crossover
// --mapping.block=128x128 was refused over the default's 64); widths the user gives are checked.
TEST(TheoryCommand, CrossoverLeavesOutDefaultWidthsNarrowerThanTheBlock) {
  const BinaryRun r = run_binary("crossover --mapping.block=128x128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "note: the default crossover.widths narrower than the 128x128 block, which has "
                       "no mapping of them, are left out of the table: 64\n"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "\n        64  ")) << r.out;  // no table row for it
  EXPECT_TRUE(contains(r.out, "\n       128  ")) << r.out;
}

// The largest stash constant the refusal suggests is accepted (1.8e304 was suggested, above the limit).
TEST(TheoryCommand, TheSuggestedStashConstantIsAccepted) {
  const BinaryRun refused = run_binary("theory --theory.stash_constant=1e305");
  ASSERT_EQ(refused.exit_code, 2) << refused.err;
  const std::string head = "give at most ";
  const std::size_t at = refused.err.find(head);
  ASSERT_NE(at, std::string::npos) << refused.err;
  const std::string suggested =
      refused.err.substr(at + head.size(), refused.err.find(' ', at + head.size()) - at - head.size());
  const BinaryRun accepted = run_binary("theory --theory.stash_constant=" + suggested);
  EXPECT_EQ(accepted.exit_code, 0) << suggested << ": " << accepted.err;
}

// Byte counts are printed in full, a fraction too: 1 layer of width 1, T_tau = 1 and c = 0.475 stash
// 0.475 bytes (2 (L - l) T_tau c d summed from l = 0: 0.95), which printed as 0 and 1 bytes.
TEST(TheoryCommand, FractionalByteCountsAreNotRounded) {
  const BinaryRun r = run_binary(
      "theory --model.widths=1,1 --mapping.block=1x1 --theory.tokens=1 --theory.stash_constant=0.475");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "c = 0.475 (configured): 4.8e-10 GB (0.475 bytes); exact sums: l = 0..L-1 "
                       "9.5e-10 GB (0.95 bytes)"))
      << r.out;
}

// theory routes redistribution on the placement, so mapping.stages reaches its exact figures: 4 layers of
// width 23 on one 3x4 stage send each element from output column j(e) back to lane entry i(e) of the same
// block, (2 - i) + j hops; with 23 split 8, 8, 7 and 6, 6, 6, 5 that is 24 + 33 = 57 element-hops per
// transfer, 3 transfers of 2 bytes: 342 byte-hops per token.
TEST(TheoryCommand, ReadsPipelineStagesAndRoutesInsideAStage) {
  const BinaryRun r =
      run_binary("theory --model.widths=23,23,23,23,23 --mapping.block=3x4 --mapping.stages=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "forward redistribution = 342 byte-hops\n")) << r.out;
  const BinaryRun square =
      run_binary("theory --model.widths=24,24,24 --mapping.block=4x4 --mapping.stages=1");
  ASSERT_EQ(square.exit_code, 0) << square.err;
  EXPECT_FALSE(contains(square.out, "one hop per element")) << square.out;  // partitions match, stages do not
}

// With mapping.stages the closed form is also printed for that p, and the exact part sums the stash as 1F1B
// holds it on those stages: 8 relu layers of 64 on 4 stages of 2, T_tau = 8, rebroadcast s_l = b_a 64 (X)
// + b_a 64 (Z, not the last layer): 8 x (4 x 512 + 3 x 512 + 2 x 512 + 1 x (256 + 128)) = 39936 bytes.
TEST(TheoryCommand, PrintsThePipelineFormsForTheMappedStages) {
  const BinaryRun r = run_binary("theory --model.widths=64,64,64,64,64,64,64,64,64 --mapping.stages=4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "p = 4 (mapping.stages), c = 2 (configured): ")) << r.out;
  EXPECT_TRUE(contains(r.out, "rebroadcast 4.0e-5 GB (39936 bytes)")) << r.out;
  const BinaryRun spatial = run_binary("theory --model.widths=64,64,64");
  EXPECT_FALSE(contains(spatial.out, "(mapping.stages), c =")) << spatial.out;
  EXPECT_FALSE(contains(spatial.out, "in-flight storage on the mapping.stages")) << spatial.out;
}

// crossover models one fully spatial layer: a config file's pipeline stages (for the runs it also serves)
// neither change nor refuse it.
TEST(TheoryCommand, CrossoverIgnoresAConfigFilesPipelineStages) {
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "stages.ini";
  std::ofstream(file) << "[mapping]\nstages = 3\n";
  const BinaryRun staged = run_binary("crossover --config '" + file.string() + "'");
  const BinaryRun plain = run_binary("crossover");
  ASSERT_EQ(staged.exit_code, 0) << staged.err;
  EXPECT_EQ(staged.out, plain.out);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace spatialsim::cli
