#pragma once
// Which options a run reads, decided in one place: `run` refuses the others, and `sweep` refuses to vary
// them or to pass them to runs that ignore them (docs/cli.md, "Bad input"), so that nothing a user sets
// is silently ignored.
//
// Usage:
//   if (!workloads::run_reads(key)) ...  // another command's option (sweep.*, theory.*, ...)
//   if (const auto ignored = why_a_run_ignores(config, {"forward"}, "checkpoint.segment"))
//     refuse_ignored_option(config, "checkpoint.segment", *ignored);

#include <optional>
#include <string>
#include <vector>

#include "sim/config.h"

namespace spatialsim::cli {

// Whether `key` changes only the numbers a run computes, never what it counts (the seed, the learning rate,
// the data task, the tangents' distribution, ...): counting mode (sim.arith = none) ignores it. Said where
// the option is registered (sim::OptionReach::values_only); each one's counts are checked the same for two
// values (tests/cli/test_run_options.cpp).
bool sets_values_only(const std::string& key);

// Why a run that reads `key` ignores it with these values, and what would make it apply.
struct IgnoredOption {
  std::string why;  // "is an option of schedule checkpoint, which is not selected (schedule = forward)"
  std::string fix;  // "add checkpoint to schedule"
};

// Contract: the reason a run of `schedules` (each registered) with `config` ignores `key`, which the user
// set, or nullopt when the run reads it or the user did not set it. Set means: for a schedule's options
// (workloads/schedules/schedule_options.h), explicit (a config file too); for the options that apply only
// with another option's value (check_tolerance with --check, data.teacher_width and data.mixture_spread
// with their data.task, theory_side_by_side with model.kind = mlp and forward or backprop, train.lr and
// train.optimizer with a schedule that trains, machine.on_overflow with machine.sram_bytes > 0), given on the
// command line or varied by a sweep, because a config file may keep them for the runs they apply to.
std::optional<IgnoredOption> why_a_run_ignores(const sim::Config& config,
                                               const std::vector<std::string>& schedules,
                                               const std::string& key);

// Throws the error for `key`, which a run ignores: its value and where it came from (sim::Config::fail:
// `fg.tangents = "2" (from run.ini:3): `), then `WHY; remove it or FIX`.
[[noreturn]] void refuse_ignored_option(const sim::Config& config, const std::string& key,
                                        const IgnoredOption& ignored);

}  // namespace spatialsim::cli
