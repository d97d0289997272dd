// The overhead of simulating (docs/performance.md): one fp32 backprop step of an MLP with d = 1024, 8
// layers and 512 tokens, simulated on the grid (run_schedule, train.steps = 1), against the same step's
// matrix products computed as whole-matrix cblas_sgemm calls in this process (8 forward GEMMs, 16 backward:
// dX = dY W^T and dW = X^T dY per layer). The target is a ratio of at most 2 for one step: the marginal
// step below. The one-step run also draws 8.4 M fp64 Gaussian weights and loads them (0.12 to 0.19 s on
// this project's machine, most of it glibc's sincos), which no step does; its ratio is printed too.
//
// Usage:
//   build/bench_step_vs_gemm [--block=4x4] [--wavefront=128] [--repetitions=5]
// Also prints the marginal cost of one more step (steps = 3 minus steps = 1, halved), without the set-up,
// and the one-step run that also keeps what the gradient checks read (the initial weights and the first
// step's gradients as whole fp64 matrices), as `spatialsim run --check` or `--export-check` does
// (RunOptions::for_checks; a plain run does not).
// Prints the medians and their ratios. Both sides run in the process the simulator's own main prepares
// (sim::prepare_process: OpenBLAS on one thread, freed memory kept for reuse), set before anything runs.
// OPENBLAS_CORETYPE picks the kernels for both (sim/blas_kernels.h).

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "sim/process_settings.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace {

using namespace spatialsim;
constexpr int kWidth = 1024;
constexpr int kLayers = 8;
constexpr int kTokens = 512;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <typename Fn>
double seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct StepTiming {
  double wall_seconds = 0;
  std::uint64_t events = 0;
};

StepTiming simulated_run(const std::string& block, const std::string& wavefront, int steps, bool for_checks) {
  sim::Config config = cli::default_config();
  std::string widths = std::to_string(kWidth);
  for (int l = 0; l < kLayers; ++l) {
    widths += ',';
    widths += std::to_string(kWidth);
  }
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"model.widths", widths},
                                                        {"step.tokens", std::to_string(kTokens)},
                                                        {"step.wavefront", wavefront},
                                                        {"mapping.block", block},
                                                        {"train.steps", std::to_string(steps)},
                                                        {"sim.arith", "fp32"}})
    config.set(key, value, "bench");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  StepTiming t;
  const workloads::RunOptions options{.for_checks = for_checks};
  t.wall_seconds = seconds(
      [&] { t.events = workloads::run_schedule(setup, config, "backprop", options).counters.events; });
  return t;
}

// Forward Y_l = X_l W_l; backward dX_l = dY_l W_l^T and dW_l = X_l^T dY_l, all row-major T x d by d x d.
double gemm_step(std::vector<std::vector<float>>& w, std::vector<std::vector<float>>& act,
                 std::vector<float>& grad, std::vector<float>& grad_next, std::vector<float>& dw) {
  return seconds([&] {
    for (int l = 0; l < kLayers; ++l)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kTokens, kWidth, kWidth, 1.0f, act[l].data(),
                  kWidth, w[l].data(), kWidth, 0.0f, act[l + 1].data(), kWidth);
    for (int l = kLayers - 1; l >= 0; --l) {
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kWidth, kWidth, kTokens, 1.0f, act[l].data(),
                  kWidth, grad.data(), kWidth, 0.0f, dw.data(), kWidth);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, kTokens, kWidth, kWidth, 1.0f, grad.data(), kWidth,
                  w[l].data(), kWidth, 0.0f, grad_next.data(), kWidth);
      std::swap(grad, grad_next);
    }
  });
}

std::string option(int argc, char** argv, const std::string& name, const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], prefix.c_str(), prefix.size()) == 0) return argv[k] + prefix.size();
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  spatialsim::sim::prepare_process();
  const std::string block = option(argc, argv, "block", "4x4");
  const std::string wavefront = option(argc, argv, "wavefront", "128");
  const int repetitions = std::stoi(option(argc, argv, "repetitions", "5"));

  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f / 32.0f);
  auto random_matrix = [&](std::size_t n) {
    std::vector<float> m(n);
    for (float& x : m) x = normal(rng);
    return m;
  };
  std::vector<std::vector<float>> w, act;
  for (int l = 0; l < kLayers; ++l) w.push_back(random_matrix(std::size_t{kWidth} * kWidth));
  for (int l = 0; l <= kLayers; ++l) act.push_back(random_matrix(std::size_t{kTokens} * kWidth));
  std::vector<float> grad = random_matrix(std::size_t{kTokens} * kWidth), grad_next(grad.size()),
                     dw(std::size_t{kWidth} * kWidth);

  gemm_step(w, act, grad, grad_next, dw);  // warm-up: OpenBLAS buffers
  // sim_s: run_schedule with train.steps = 1, everything included (building the blocks, drawing the
  // weights and the data, the step, the update), as a run without checks does it. marginal_s: (steps = 3)
  // - (steps = 1), halved: what one more step costs once the run is set up (its data, the step and the
  // update). checked_s: sim_s keeping the fp64 weights and gradients, as a run with --check does it.
  std::vector<double> sim_s, marginal_s, checked_s, gemm_s;
  std::uint64_t events = 0;
  for (int r = 0; r < repetitions; ++r) {  // interleaved, so that a load change hits all alike
    const StepTiming t = simulated_run(block, wavefront, 1, false);
    sim_s.push_back(t.wall_seconds);
    events = t.events;
    gemm_s.push_back(gemm_step(w, act, grad, grad_next, dw));
    marginal_s.push_back(0.5 * (simulated_run(block, wavefront, 3, false).wall_seconds - t.wall_seconds));
    checked_s.push_back(simulated_run(block, wavefront, 1, true).wall_seconds);
  }
  const double s = median(sim_s), m = median(marginal_s), c = median(checked_s), g = median(gemm_s);
  const double flops = 3.0 * 2.0 * kLayers * double{kTokens} * kWidth * kWidth;
  std::printf("block %s, wavefront %s tokens (%d wavefronts), %d repetitions\n", block.c_str(),
              wavefront.c_str(), kTokens / std::stoi(wavefront), repetitions);
  std::printf("simulated step: median %.4f s (%llu events, %.3g events/s)\n", s,
              static_cast<unsigned long long>(events), static_cast<double>(events) / s);
  std::printf("whole-matrix GEMMs: median %.4f s (%.1f GFLOP/s)\n", g, flops / g * 1e-9);
  std::printf("one more simulated step (steps=3 minus steps=1, halved): median %.4f s\n", m);
  std::printf("simulated step keeping the fp64 weights and gradients (as --check): median %.4f s\n", c);
  std::printf(
      "ratio simulated / GEMM: %.3f (the run's set-up included: the weights drawn, the blocks built)\n",
      s / g);
  std::printf("ratio marginal step / GEMM: %.3f (target <= 2: one step)\n", m / g);
  std::printf("ratio simulated as --check / GEMM: %.3f\n", c / g);
  return 0;
}
