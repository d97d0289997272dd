// The log-log least-squares fit behind the sweep's slope table.
#include "analysis/slope_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace spatialsim::analysis {
namespace {

TEST(SlopeFit, PowerLawIsRecoveredExactly) {
  const std::vector<double> x{4, 8, 16, 32, 64};
  std::vector<double> y;
  for (double v : x) y.push_back(3 * v * v);
  const auto fit = fit_power_law(x, y);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->slope, 2.0, 1e-12);
  EXPECT_NEAR(std::exp(fit->intercept), 3.0, 1e-12);
  EXPECT_EQ(fit->points, 5u);
}

TEST(SlopeFit, NonPositiveValuesAreLeftOut) {
  const std::vector<double> x{0, 1, 2, 4, 8};
  const std::vector<double> y{5, 0, 2, 4, 8};  // (0, 5) has no log x; (1, 0) has no log y
  const auto fit = fit_power_law(x, y);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->slope, 1.0, 1e-12);
  EXPECT_EQ(fit->points, 3u);
  // Nor has a value past a double's range (a count that overflowed to inf): it would make the slope NaN.
  const auto with_inf =
      fit_power_law(std::vector<double>{1, 2, 4, 8}, std::vector<double>{1, 4, INFINITY, 64});
  ASSERT_TRUE(with_inf);
  EXPECT_NEAR(with_inf->slope, 2.0, 1e-12);
  EXPECT_EQ(with_inf->points, 3u);
}

TEST(SlopeFit, LeastSquaresOffTheLine) {
  // log y = 1 + 2 log x, with the last point 0.4 above the line. Centred sums: sxx = 5,
  // sxy = 2 * 5 + sum (lx - 1.5) e = 10 + 1.5 * 0.4, so slope = 2.12 and intercept = 4.1 - 2.12 * 1.5 = 0.92.
  const std::vector<double> lx{0, 1, 2, 3};
  const std::vector<double> e{0, 0, 0, 0.4};
  std::vector<double> x, y;
  for (std::size_t i = 0; i < lx.size(); ++i) {
    x.push_back(std::exp(lx[i]));
    y.push_back(std::exp(1 + 2 * lx[i] + e[i]));
  }
  const auto fit = fit_power_law(x, y);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->slope, 2.12, 1e-12);
  EXPECT_NEAR(fit->intercept, 0.92, 1e-12);
}

TEST(SlopeFit, UndefinedWithoutTwoDistinctUsableX) {
  EXPECT_FALSE(fit_power_law(std::vector<double>{}, std::vector<double>{}));
  EXPECT_FALSE(fit_power_law(std::vector<double>{4}, std::vector<double>{1}));
  EXPECT_FALSE(fit_power_law(std::vector<double>{4, 4}, std::vector<double>{1, 2}));
  EXPECT_FALSE(fit_power_law(std::vector<double>{4, 8}, std::vector<double>{0, 0}));
  EXPECT_THROW(fit_power_law(std::vector<double>{4, 8}, std::vector<double>{1}), std::invalid_argument);
}

}  // namespace
}  // namespace spatialsim::analysis
