#include "workloads/data.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/enum_names.h"
#include "sim/matrix_kernels.h"
#include "sim/option_spec.h"
#include "workloads/random.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"data.task", "choice",
     "teacher (regression onto a random teacher MLP) | mixture (Gaussian-mixture classes)",
     sim::OptionReach::values_only},
    {"data.teacher_width", "elements", "hidden width of the teacher MLP", sim::OptionReach::values_only},
    {"data.mixture_spread", "1", "standard deviation of each mixture class around its mean",
     sim::OptionReach::values_only},
};

constexpr sim::EnumNames<Task, 2> kTaskNames{{{{Task::teacher, "teacher"}, {Task::mixture, "mixture"}}}};

constexpr std::uint64_t kTaskStream = 1;
constexpr std::uint64_t kStepStreamBase = 1u << 20;

void softmax_rows(sim::Matrix<double>& m) {
  for (std::uint32_t r = 0; r < m.rows(); ++r) {
    double* row = m.row(r);
    const double top = *std::max_element(row, row + m.cols());
    double sum = 0;
    for (std::uint32_t c = 0; c < m.cols(); ++c) sum += (row[c] = std::exp(row[c] - top));
    for (std::uint32_t c = 0; c < m.cols(); ++c) row[c] /= sum;
  }
}

}  // namespace

DataSpec data_from_config(const sim::Config& config) {
  DataSpec d;
  d.task = kTaskNames.from_config(config, "data.task");
  d.teacher_width = static_cast<std::uint32_t>(config.get_whole_in("data.teacher_width", 1, 0xFFFFFFFFull));
  d.mixture_spread = config.get_nonnegative_double("data.mixture_spread");
  return d;
}

StepData make_step_data(const DataSpec& spec, const ModelSpec& model, std::uint64_t seed, std::uint64_t step,
                        std::uint32_t tokens) {
  const std::uint32_t d_in = model.inputs();
  const std::uint32_t d_out = model.outputs();
  Random task_rng(seed, kTaskStream);
  Random rng(seed, kStepStreamBase + step);
  StepData s{sim::Matrix<double>(tokens, d_in), sim::Matrix<double>(tokens, d_out)};
  if (spec.task == Task::teacher) {
    const std::uint32_t h = spec.teacher_width;
    sim::Matrix<double> w1(d_in, h), w2(h, d_out);
    for (double& w : w1.values()) w = task_rng.normal() / std::sqrt(static_cast<double>(d_in));
    for (double& w : w2.values()) w = task_rng.normal() / std::sqrt(static_cast<double>(h));
    for (double& x : s.inputs.values()) x = rng.normal();
    // targets = tanh(x W1) W2, as whole-matrix products (the data is not what the simulator measures).
    sim::Matrix<double> hidden;
    sim::multiply(s.inputs, w1, hidden);
    for (double& v : hidden.values()) v = std::tanh(v);
    sim::multiply(hidden, w2, s.targets);
    if (model.loss == Loss::cross_entropy) softmax_rows(s.targets);
  } else {
    std::vector<double> means(std::size_t{d_out} * d_in);
    for (double& m : means) m = task_rng.normal();
    for (std::uint32_t t = 0; t < tokens; ++t) {
      const auto cls = static_cast<std::uint32_t>(rng.below(d_out));
      for (std::uint32_t i = 0; i < d_in; ++i)
        s.inputs(t, i) = means[std::size_t{cls} * d_in + i] + spec.mixture_spread * rng.normal();
      s.targets(t, cls) = 1.0;
    }
  }
  return s;
}

}  // namespace spatialsim::workloads
