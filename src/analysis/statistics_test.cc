#include "analysis/statistics.h"

#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::analysis {
namespace {

std::vector<double> Range(double from, int n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// Samples of sizes n, n (values 1..2n, no ties) whose U is exactly `u`: start from every a
// below every b (U = 0) and swap an adjacent "a b" pair u times, each swap adding 1 to U.
void WithU(int n, int u, std::vector<double>& a, std::vector<double>& b) {
  std::vector<bool> from_a(2 * n, false);
  for (int i = 0; i < n; ++i) from_a[i] = true;
  for (int k = 0; k < u; ++k) {
    for (int i = 2 * n - 2; i >= 0; --i) {
      if (from_a[i] && !from_a[i + 1]) {
        from_a[i] = false, from_a[i + 1] = true;
        break;
      }
    }
  }
  a.clear(), b.clear();
  for (int i = 0; i < 2 * n; ++i) (from_a[i] ? a : b).push_back(i + 1);
}

TEST(Summarize, MedianQuartilesAndRange) {
  auto s = Summarize({5, 1, 4, 2, 3});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 5);
  EXPECT_DOUBLE_EQ(s->median, 3);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 5);
  EXPECT_DOUBLE_EQ(s->q1, 2);
  EXPECT_DOUBLE_EQ(s->q3, 4);
  auto even = Summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even->median, 2.5);
  EXPECT_DOUBLE_EQ(even->q1, 1.75);
  EXPECT_DOUBLE_EQ(even->Iqr(), 1.5);
  EXPECT_FALSE(Summarize({}));
}

TEST(MannWhitney, ThreeAgainstThreeCannotGoBelowOneTenth) {
  UTest t = MannWhitney({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 0);
  EXPECT_NEAR(t.p, 0.1, 1e-12);  // 2 / C(6,3)
  EXPECT_NEAR(SmallestP(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MannWhitney({4, 5, 6}, {1, 2, 3}).p, 0.1, 1e-12);  // U = 9, the other tail
}

// Critical values of U for a two-sided test at 0.05 (tables of Mann and Whitney 1947 as
// reprinted in e.g. Siegel, Nonparametric Statistics, table K): U <= c is significant, U = c + 1
// is not.
TEST(MannWhitney, ExactPMatchesPublishedCriticalValues) {
  const std::pair<int, int> table[] = {{5, 2}, {6, 5}, {7, 8}, {8, 13}, {10, 23}, {20, 127}};
  for (const auto& [n, critical] : table) {
    std::vector<double> a, b;
    WithU(n, critical, a, b);
    UTest at = MannWhitney(a, b);
    EXPECT_TRUE(at.exact);
    EXPECT_DOUBLE_EQ(at.u, critical) << n;
    EXPECT_LT(at.p, 0.05) << "n=" << n << " U=" << critical;
    WithU(n, critical + 1, a, b);
    UTest above = MannWhitney(a, b);
    EXPECT_DOUBLE_EQ(above.u, critical + 1) << n;
    EXPECT_GE(above.p, 0.05) << "n=" << n << " U=" << critical + 1;
  }
}

TEST(MannWhitney, ExactValuesForFiveAndFive) {
  std::vector<double> a, b;
  WithU(5, 2, a, b);
  EXPECT_NEAR(MannWhitney(a, b).p, 8.0 / 252, 1e-12);  // 2 * (1 + 1 + 2) / C(10,5)
  WithU(5, 3, a, b);
  EXPECT_NEAR(MannWhitney(a, b).p, 14.0 / 252, 1e-12);  // 2 * (1 + 1 + 2 + 3) / 252
  EXPECT_NEAR(MannWhitney(Range(1, 5), Range(6, 5)).p, 2.0 / 252, 1e-12);
  // Identical distributions side by side: U at the centre, p = 1.
  EXPECT_DOUBLE_EQ(MannWhitney({1, 4, 5, 8}, {2, 3, 6, 7}).p, 1.0);
}

TEST(MannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  std::vector<double> a, b;
  for (int i = 0; i < 5; ++i) {
    for (double x : {1, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9}) a.push_back(x);
    for (double y : {3, 4, 5, 5, 6, 7, 8, 9, 9, 10, 11, 12}) b.push_back(y);
  }
  UTest t = MannWhitney(a, b);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 762.5);
  // mean 1800, variance 60*60/12 * (121 - sum(t^3-t)/(120*119)), continuity 1/2.
  EXPECT_NEAR(t.p, 4.3795e-08, 1e-11);
  // All values equal: no evidence at all.
  EXPECT_DOUBLE_EQ(MannWhitney({1, 1, 1}, {1, 1, 1}).p, 1.0);
}

TEST(MannWhitney, NormalApproximationIsCloseToExactForLargerSamples) {
  // Without ties beyond the exact limit the approximation is used; check it against the exact
  // p for n = 20 (0.0491 at the critical U = 127) by adding one tie to force the approximation.
  std::vector<double> a, b;
  WithU(20, 127, a, b);
  const double exact = MannWhitney(a, b).p;
  EXPECT_NEAR(exact, 0.04909, 1e-5);
  a[0] = a[1];  // a tie inside a: U unchanged
  UTest approx = MannWhitney(a, b);
  EXPECT_FALSE(approx.exact);
  EXPECT_NEAR(approx.p, exact, 0.003);
}

TEST(Compare, TooFewRunsIsNeverAResult) {
  Comparison c = Compare({1, 2, 3}, {10, 11, 12});
  EXPECT_EQ(c.verdict, Verdict::kTooFew);
  ASSERT_TRUE(c.change_percent);
  EXPECT_NEAR(*c.change_percent, 450, 1e-9);
  EXPECT_EQ(Compare({1}, {}).verdict, Verdict::kTooFew);
  EXPECT_FALSE(Compare({1}, {}).test);
}

TEST(Compare, SignificantAndNotSignificant) {
  Comparison sig = Compare({10, 11, 12, 13, 14}, {20, 21, 22, 23, 24});
  EXPECT_EQ(sig.verdict, Verdict::kSignificant);
  EXPECT_NEAR(*sig.change_percent, 83.3333, 1e-3);
  Comparison noise = Compare({10, 12, 14, 16, 18}, {11, 13, 15, 17, 19});
  EXPECT_EQ(noise.verdict, Verdict::kNotSignificant);
  EXPECT_FALSE(Compare({0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}).change_percent);
}

}  // namespace
}  // namespace nicbench::analysis
