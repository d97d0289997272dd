// --check and --export-check through the built binary: the tiles' gradients against the dense reference,
// and an export that an independent autograd can verify (here: the dense reference, fed only from the file).
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>

#include "sim/text.h"
#include "tests/cli/binary_run_fixture.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/reference/dense_mlp.h"

namespace spatialsim::cli {
namespace {

using CheckTest = testing::BinaryRunTest;
using testing::BinaryRun;

using analysis::testing::read_matrix;
using analysis::testing::read_vector;

TEST_F(CheckTest, Fp64GradientsPassAndThePerLayerTableIsPrinted) {
  const BinaryRun r =
      run("--schedule=forward,backprop --sim.arith=fp64 --model.widths=13,17,9,5 "
          "--mapping.block=3x2 --step.tokens=11 --step.wavefront=4 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("backprop          layer 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backprop: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("forward: passed"), std::string::npos) << r.out;
  // A row with no bias says so: forward's outputs are one error, not a weight and a measured zero.
  EXPECT_NE(r.out.find("outputs    values  "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("bias 0.000e+00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  bias -\n"), std::string::npos) << r.out;
}

// Only the first step is checked (the reference starts from the initial weights): a run of several steps
// says so, as a loss that overflows in a later step would otherwise sit under a "passed" that never saw it.
TEST_F(CheckTest, ARunOfSeveralStepsSaysItsFirstStepIsTheOneChecked) {
  const BinaryRun several = run("--schedule=backprop --sim.arith=fp64 --train.steps=3 --check");
  ASSERT_EQ(several.exit_code, 0) << several.err;
  EXPECT_NE(several.out.find("check of step 0 of steps 0..2 against the dense reference"), std::string::npos)
      << several.out;
  const BinaryRun one = run("--schedule=backprop --sim.arith=fp64 --check");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("\ncheck against the dense reference (max relative error"), std::string::npos)
      << one.out;
}

// Layers sharing tiles (mapping.stages) keep every value on its own layer: 5 layers on 2 and on 3 stages
// (non-dividing), and a reversible model's 8 dense layers on 3.
TEST_F(CheckTest, PipelineStagesPassEveryScheduleCheck) {
  // Every schedule an mlp runs, from the registry: a schedule added later is checked too.
  const auto schedules = testing_support::schedules_running_on(workloads::ModelKind::mlp);
  for (const char* stages : {"2", "3"}) {
    const BinaryRun r = run("--schedule=" + sim::joined(schedules, ",") +
                            " --sim.arith=fp64 --model.widths=13,17,9,11,6,5 --mapping.block=3x2 "
                            "--step.tokens=11 --step.wavefront=4 --check --mapping.stages=" +
                            stages);
    ASSERT_EQ(r.exit_code, 0) << stages << "\n" << r.err;
    for (const auto& s : schedules)
      EXPECT_NE(r.out.find(s + ": passed"), std::string::npos) << s << "\n" << r.out;
  }
  const BinaryRun rev = run(
      "--model.kind=reversible --schedule=forward,reversible --sim.arith=fp64 --mapping.stages=3 --check");
  ASSERT_EQ(rev.exit_code, 0) << rev.err;
  EXPECT_NE(rev.out.find("reversible: passed"), std::string::npos) << rev.out;
}

TEST_F(CheckTest, AToleranceNoArithmeticMeetsExitsOne) {
  const BinaryRun r = run("--schedule=backprop --sim.arith=fp32 --check --check_tolerance=1e-300");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("backprop: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("check failed"), std::string::npos) << r.err;
}

// Gradients that are NaN fail: std::max dropped the NaN differences, every row measured 0 and the check
// passed (init_gain = 1e12 overflows the forward pass to inf, and inf - inf is NaN).
TEST_F(CheckTest, NanGradientsFail) {
  const BinaryRun r = run("--schedule=backprop --check --model.init_gain=1e12");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("backprop: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("weights nan"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("or is not a number"), std::string::npos) << r.err;
}

// Values that overflow fp64 (init_gain 1e160: inf - inf in the second layer) are NaN, and the NaN must reach
// the loss and the check. relu turned it into 0, so the network trained on as if its weights were 0: the
// final loss was the zero network's (1.72981) and --check passed with error 0.
TEST_F(CheckTest, OverflowedValuesFailTheCheckInsteadOfLookingLikeAZeroNetwork) {
  const BinaryRun r = run("--schedule=backprop --sim.arith=fp64 --check --model.init_gain=1e160");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("backprop: FAILED"), std::string::npos) << r.out;
  const auto row = r.out.find("\nfinal_loss ");
  ASSERT_NE(row, std::string::npos) << r.out;
  const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find(" nan "), std::string::npos) << line;
}

// The errors print to six digits, as the tolerance does, so that a row never reads above a tolerance it
// passed.
TEST_F(CheckTest, ErrorsPrintToTheTolerancesPrecision) {
  const BinaryRun r = run("--schedule=backprop --sim.arith=fp64 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("e-1"), std::string::npos) << r.out;
  const std::size_t at = r.out.find("layer 0    weights ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(at + 19, 11).find('e'), 7u) << r.out;  // d.ddddde-NN
}

TEST_F(CheckTest, CountingModeCannotBeCheckedAndSaysHow) {
  for (const char* flag : {"--check", "--export-check"}) {
    const BinaryRun r = run(std::string("--sim.arith=none ") + flag);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find("set sim.arith=fp32 or fp64"), std::string::npos) << r.err;
    EXPECT_TRUE(dir_entries().empty()) << flag;
  }
}

TEST_F(CheckTest, ExportedRunIsVerifiedByAnIndependentAutogradFromTheFileAlone) {
  const BinaryRun r =
      run("--schedule=backprop --sim.arith=fp64 --model.widths=13,17,9,5 --mapping.block=3x2 "
          "--model.loss=cross-entropy --data.task=mixture --model.activation=gelu "
          "--step.tokens=11 --step.wavefront=4 --export-check --out=e.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const H5::H5File file(path("e.h5"), H5F_ACC_RDONLY);
  const std::string g = "/runs/backprop/check";
  workloads::reference::DenseMlp net;
  net.activation = mappings::Activation::gelu;
  net.loss = workloads::Loss::cross_entropy;
  for (int l = 0; l < 3; ++l) {
    const std::string layer = g + "/layers/" + std::to_string(l);
    net.layers.push_back({read_matrix(file, layer + "/weights"), read_vector(file, layer + "/bias")});
  }
  const auto x = read_matrix(file, g + "/inputs");
  const auto t = read_matrix(file, g + "/targets");
  ASSERT_EQ(x.rows(), 11u);
  const auto expected = workloads::reference::gradients(net, x, t);
  EXPECT_NEAR(read_vector(file, g + "/loss")[0], expected.loss, 1e-12 * expected.loss);
  for (int l = 0; l < 3; ++l) {
    const std::string layer = g + "/layers/" + std::to_string(l);
    const auto got = read_matrix(file, layer + "/grad_weights");
    ASSERT_EQ(got.size(), expected.weights[l].size());
    for (std::size_t k = 0; k < got.size(); ++k)
      EXPECT_NEAR(got.values()[k], expected.weights[l].values()[k], 1e-12)
          << "layer " << l << " weight " << k;
    const auto gb = read_vector(file, layer + "/grad_bias");
    for (std::size_t k = 0; k < gb.size(); ++k) EXPECT_NEAR(gb[k], expected.bias[l][k], 1e-12);
  }
}

// The parameters after the first step's update are exported too, so that the update can be checked from
// the file alone: sgd's w - lr g, and Adam's first step (bias-corrected moments (1 - b) g / (1 - b) = g
// and g^2: w - lr g / (|g| + eps)), written here from the paper, not from the optimizer's code.
TEST_F(CheckTest, ExportedUpdateIsTheOptimizersFirstStepFromTheFileAlone) {
  for (const std::string optimizer : {"sgd", "adam"}) {
    const BinaryRun r =
        run("--schedule=backprop --sim.arith=fp64 --model.widths=7,9,5 --mapping.block=2x3 "
            "--step.tokens=5 --step.wavefront=2 --train.lr=0.3 --train.optimizer=" +
            optimizer + " --export-check --out=u.h5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const H5::H5File file(path("u.h5"), H5F_ACC_RDONLY);
    for (int l = 0; l < 2; ++l) {
      const std::string layer = "/runs/backprop/check/layers/" + std::to_string(l);
      for (const auto& [values, grads, updated] :
           {std::tuple{"/weights", "/grad_weights", "/updated_weights"},
            std::tuple{"/bias", "/grad_bias", "/updated_bias"}}) {
        const auto w = read_vector(file, layer + values);
        const auto g = read_vector(file, layer + grads);
        const auto u = read_vector(file, layer + updated);
        ASSERT_EQ(u.size(), w.size());
        ASSERT_EQ(g.size(), w.size());
        for (std::size_t k = 0; k < w.size(); ++k) {
          const double step = optimizer == "sgd" ? 0.3 * g[k] : 0.3 * g[k] / (std::abs(g[k]) + 1e-8);
          EXPECT_NEAR(u[k], w[k] - step, 1e-15 * (1 + std::abs(w[k])))
              << optimizer << " layer " << l << updated << " " << k;
        }
        // One step: the run's final parameters are the first update's.
        EXPECT_EQ(read_vector(file, layer + "/final" + (updated + 8)), u) << layer << updated;
      }
    }
    std::filesystem::remove(path("u.h5"));
  }
}

TEST_F(CheckTest, ForwardGradientSchedulesCheckEveryDirectionalDerivativeAndTheHead) {
  const BinaryRun r =
      run("--schedule=forward-gradient,split-fg --sim.arith=fp64 --model.widths=13,17,9,5 "
          "--mapping.block=3x2 --step.tokens=11 --step.wavefront=4 --fg.tangents=3 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("forward-gradient: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split-fg: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("d_k"), std::string::npos) << r.out;
}

TEST_F(CheckTest, ExportedTangentsAndScalarsAreVerifiedByAnIndependentJvpFromTheFileAlone) {
  const BinaryRun r =
      run("--schedule=forward-gradient --sim.arith=fp64 --model.widths=13,17,9,5 "
          "--mapping.block=3x2 --model.activation=tanh --step.tokens=11 --step.wavefront=4 "
          "--fg.tangents=3 --export-check --out=fg.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const H5::H5File file(path("fg.h5"), H5F_ACC_RDONLY);
  const std::string g = "/runs/forward-gradient/check";
  workloads::reference::DenseMlp net;
  net.activation = mappings::Activation::tanh;
  net.loss = workloads::Loss::mse;
  for (int l = 0; l < 3; ++l) {
    const std::string layer = g + "/layers/" + std::to_string(l);
    net.layers.push_back({read_matrix(file, layer + "/weights"), read_vector(file, layer + "/bias")});
  }
  const auto x = read_matrix(file, g + "/inputs");
  const auto t = read_matrix(file, g + "/targets");
  const auto d = read_vector(file, g + "/tangent_scalars");
  ASSERT_EQ(d.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    auto v = workloads::reference::zeros_like(net);
    for (int l = 0; l < 3; ++l) {
      const std::string layer = g + "/tangents/" + std::to_string(k) + "/layers/" + std::to_string(l);
      v.weights[l] = read_matrix(file, layer + "/weights");
      v.bias[l] = read_vector(file, layer + "/bias");
    }
    const double expected = workloads::reference::directional_derivative(net, x, t, v);
    EXPECT_NEAR(d[k], expected, 1e-12 * (1 + std::abs(expected))) << "tangent " << k;
  }
}

}  // namespace
}  // namespace spatialsim::cli
