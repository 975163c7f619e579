// Statistics for comparing two sets of runs: a summary of one sample (median, min-max, IQR, n)
// and a two-sided Mann-Whitney U test, with the judgement benchstat makes: a difference is
// reported only when it is significant, otherwise it is `~`. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <vector>

namespace nicbench::analysis {

struct Summary {
  int n = 0;
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;  // quartiles (linear interpolation between order statistics)
  double Iqr() const { return q3 - q1; }
};
// nullopt for an empty sample.
std::optional<Summary> Summarize(std::vector<double> values);

// The outcome of a two-sided Mann-Whitney U test of samples a and b.
struct UTest {
  double u = 0;        // U of sample a: pairs (x in a, y in b) with x > y, ties counted 1/2
  double p = 1;        // two-sided p-value
  bool exact = false;  // from the enumerated U distribution (no ties, small n)
};
// REQUIRES: both samples non-empty.
// Exact when there are no ties and both n <= kExactLimit: the number of orderings giving each
// U is counted (the recurrence of Mann and Whitney, 1947) and p = 2 * min(P(U <= u),
// P(U >= u)), at most 1. Otherwise the normal approximation with tie correction and a
// continuity correction of 1/2.
inline constexpr int kExactLimit = 50;
UTest MannWhitney(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p-value an exact U test of samples of sizes n1 and n2 can reach
// (both samples entirely apart): 2 / C(n1+n2, n1). With n1 = n2 = 3 it is 0.1, so three runs a
// side can never show a difference at 0.05.
double SmallestP(int n1, int n2);

inline constexpr double kAlpha = 0.05;

enum class Verdict {
  kSignificant,     // p < alpha: the change is reported
  kNotSignificant,  // p >= alpha: `~`
  kTooFew,          // no test at these n can reach p < alpha (or a side is empty): `~`
};
struct Comparison {
  std::optional<Summary> a, b;
  std::optional<UTest> test;  // unset when a side is empty
  Verdict verdict = Verdict::kTooFew;
  // Change of the median from a to b in percent of a's median; unset when a's median is 0 or
  // a side is empty. Rendered only when the verdict is kSignificant.
  std::optional<double> change_percent;
};
Comparison Compare(const std::vector<double>& a, const std::vector<double>& b,
                   double alpha = kAlpha);

}  // namespace nicbench::analysis
