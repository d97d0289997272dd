#include "cli/run_options.h"

#include <algorithm>

#include "analysis/sweep.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/arithmetic.h"
#include "workloads/data.h"
#include "workloads/model_spec.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_options.h"

namespace spatialsim::cli {
namespace {

bool selected(const std::vector<std::string>& schedules, const std::string& name) {
  return std::find(schedules.begin(), schedules.end(), name) != schedules.end();
}

// Given by the user for this run: on the command line, or as a sweep's value for the point.
bool given_for_this_run(const sim::Config& config, const std::string& key) {
  return config.origin(key) == kCommandLineOrigin || config.origin(key) == analysis::kSweepOrigin;
}

}  // namespace

bool sets_values_only(const std::string& key) {
  const sim::OptionSpec* spec = sim::OptionTable::find(key);
  return spec != nullptr && spec->reach == sim::OptionReach::values_only;
}

std::optional<IgnoredOption> why_a_run_ignores(const sim::Config& config,
                                               const std::vector<std::string>& schedules,
                                               const std::string& key) {
  if (!config.has(key)) return std::nullopt;
  // A schedule's options are the keys of the sections it owns. Setting one for a schedule that does not
  // run is almost always a mistake (a typo in `schedule`, or a forgotten one).
  if (const auto dot = key.find('.'); dot != std::string::npos && config.is_explicit(key)) {
    const auto owners = workloads::owners_of_section(key.substr(0, dot));
    if (!owners.empty() &&
        std::none_of(owners.begin(), owners.end(), [&](const auto& o) { return selected(schedules, o); })) {
      const std::string who = owners.size() == 1 ? "schedule " + owners[0] + ", which is not"
                                                 : "schedules " + sim::joined(owners) + ", none of which is";
      return IgnoredOption{"is an option of " + who + " selected (schedule = " + config.raw("schedule") + ")",
                           "add " + owners[0] + " to schedule"};
    }
  }
  if (!given_for_this_run(config, key)) return std::nullopt;
  if (sets_values_only(key) && workloads::arithmetic_from_config(config) == workloads::Arithmetic::none)
    return IgnoredOption{
        "only changes the values computed, and counting mode (sim.arith = none) computes none",
        "set sim.arith=fp32 or fp64"};
  if (key == "check_tolerance" && !config.get_bool("check"))
    return IgnoredOption{"applies only to --check, which is not set", "add --check"};
  if (key == "data.teacher_width" || key == "data.mixture_spread") {
    const bool teacher = workloads::data_from_config(config).task == workloads::Task::teacher;
    if (key == "data.teacher_width" && !teacher)
      return IgnoredOption{"is the teacher task's width, and data.task = mixture", "set data.task=teacher"};
    if (key == "data.mixture_spread" && teacher)
      return IgnoredOption{"is the mixture task's spread, and data.task = teacher", "set data.task=mixture"};
  }
  // The learning rate and the optimizer are read by the update at the end of each step, which only the
  // schedules that train (Schedule::trains) have: forward alone gives the same numbers
  // whatever they are.
  if ((key == "train.lr" || key == "train.optimizer") &&
      std::none_of(schedules.begin(), schedules.end(), [&](const std::string& s) {
        return workloads::ScheduleRegistry::create(s, config)->trains();
      }))
    return IgnoredOption{"is read by the weight update, and schedule = " + config.raw("schedule") +
                             " does not train (no backward pass, no update)",
                         "add a schedule that trains, such as backprop, to schedule"};
  // What to do when a tile holds more than machine.sram_bytes: with no capacity (0) nothing overflows.
  if (key == "machine.on_overflow" && config.get_uint("machine.sram_bytes") == 0)
    return IgnoredOption{
        "says what to do when a tile holds more than machine.sram_bytes, and machine.sram_bytes "
        "= 0 sets no capacity, so no tile overflows",
        "set machine.sram_bytes to the tile's capacity in bytes"};
  // The closed forms are MODEL.md section 4's MLP layer (analysis/theory_side_by_side.h): first, since on a
  // reversible model adding forward or backprop to schedule would not help.
  if (key == "theory_side_by_side" && config.get_bool(key) &&
      workloads::model_kind_from_config(config) != workloads::ModelKind::mlp)
    return IgnoredOption{
        "compares the counters with the closed forms of MODEL.md section 4's MLP, and "
        "model.kind = " +
            config.raw("model.kind"),
        "set model.kind=mlp"};
  // Of the schedules, the side by side compares forward's and backprop's counters; for others it has
  // nothing to print.
  if (key == "theory_side_by_side" && config.get_bool(key) && !selected(schedules, "forward") &&
      !selected(schedules, "backprop"))
    return IgnoredOption{"compares forward's and backprop's counters with the closed forms, and schedule = " +
                             config.raw("schedule") + " runs neither",
                         "add forward or backprop to schedule"};
  return std::nullopt;
}

void refuse_ignored_option(const sim::Config& config, const std::string& key, const IgnoredOption& ignored) {
  // The origin matters most for a file's value: a schedule's option is refused from a config file too, and
  // without FILE:LINE the user would have to search their files for it.
  config.fail(key, ignored.why + "; remove it or " + ignored.fix);
}

}  // namespace spatialsim::cli
