#pragma once
// Least-squares fit of a power law y = a x^k on log-log axes: the exponent k is how a sweep reports how a
// quantity scales with the varied key (MODEL.md section 6: backprop's stash grows as L^2, so k ~ 2).
//
// Usage:
//   std::vector<double> x{4, 8, 16}, y{48, 192, 768};       // y = 3 x^2
//   std::optional<PowerLawFit> f = fit_power_law(x, y);    // f->slope == 2, f->points == 3
//   if (!f) { /* fewer than two usable points, or every usable x equal */ }

#include <cstddef>
#include <optional>
#include <span>

namespace spatialsim::analysis {

struct PowerLawFit {
  double slope = 0;        // k: d log y / d log x
  double intercept = 0;    // log(a), natural logarithm
  std::size_t points = 0;  // pairs that entered the fit
};

// Contract: x and y have the same length. Only pairs with x > 0 and y > 0 (finite) enter the fit: a
// logarithm needs them, and a zero (a schedule that stashes nothing) carries no scaling information.
// Returns nullopt when fewer than two pairs remain or their x are all equal (no slope is defined).
std::optional<PowerLawFit> fit_power_law(std::span<const double> x, std::span<const double> y);

}  // namespace spatialsim::analysis
