#include "analysis/slope_fit.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace spatialsim::analysis {

std::optional<PowerLawFit> fit_power_law(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("fit_power_law: x and y differ in length");
  std::vector<double> lx;
  std::vector<double> ly;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] > 0 && y[i] > 0 && std::isfinite(x[i]) && std::isfinite(y[i])) {
      lx.push_back(std::log(x[i]));
      ly.push_back(std::log(y[i]));
    }
  }
  if (lx.size() < 2) return std::nullopt;
  // Centred sums: the textbook sum(x^2) - n mean^2 form loses digits when log x is far from zero.
  const auto n = static_cast<double>(lx.size());
  double mx = 0;
  double my = 0;
  for (std::size_t i = 0; i < lx.size(); ++i) {
    mx += lx[i];
    my += ly[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0;
  double sxy = 0;
  for (std::size_t i = 0; i < lx.size(); ++i) {
    sxx += (lx[i] - mx) * (lx[i] - mx);
    sxy += (lx[i] - mx) * (ly[i] - my);
  }
  if (sxx == 0) return std::nullopt;
  PowerLawFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  fit.points = lx.size();
  return fit;
}

}  // namespace spatialsim::analysis
