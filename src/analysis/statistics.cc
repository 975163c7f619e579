#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace nicbench::analysis {
namespace {

// The q-quantile of sorted values, interpolating linearly between order statistics (R type 7,
// numpy's default).
double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// counts[u] = number of the C(n1+n2, n1) orderings of two tie-free samples of sizes n1, n2 in
// which U of the first sample is u. Recurrence on the largest element: it belongs to the first
// sample (adding n2 to U) or to the second: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
std::vector<double> UDistribution(int n1, int n2) {
  // table[n][u] for the current m, built up from m = 0.
  std::vector<std::vector<double>> prev(n2 + 1);
  for (int n = 0; n <= n2; ++n) prev[n] = {1.0};  // m = 0: U is 0 in the one ordering
  for (int m = 1; m <= n1; ++m) {
    std::vector<std::vector<double>> cur(n2 + 1);
    cur[0] = {1.0};  // n = 0: one ordering, U = 0
    for (int n = 1; n <= n2; ++n) {
      cur[n].assign(static_cast<size_t>(m) * static_cast<size_t>(n) + 1, 0.0);
      for (size_t u = 0; u < prev[n].size(); ++u) cur[n][u + n] += prev[n][u];
      for (size_t u = 0; u < cur[n - 1].size(); ++u) cur[n][u] += cur[n - 1][u];
    }
    prev = std::move(cur);
  }
  return prev[n2];
}

double NormalUpperTail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

struct Ranked {
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  bool ties = false;
};

Ranked RankSum(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> all;  // value, from a
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, true);
  for (double y : b) all.emplace_back(y, false);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  Ranked out;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second) out.rank_sum_a += mid_rank;
    }
    if (t > 1) {
      out.ties = true;
      out.tie_term += t * t * t - t;
    }
    i = j;
  }
  return out;
}

}  // namespace

std::optional<Summary> Summarize(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  Summary s;
  s.n = static_cast<int>(values.size());
  s.min = values.front();
  s.max = values.back();
  s.median = Quantile(values, 0.5);
  s.q1 = Quantile(values, 0.25);
  s.q3 = Quantile(values, 0.75);
  return s;
}

UTest MannWhitney(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  const Ranked ranked = RankSum(a, b);
  UTest out;
  out.u = ranked.rank_sum_a - n1 * (n1 + 1) / 2;
  const int m = static_cast<int>(a.size()), n = static_cast<int>(b.size());
  if (!ranked.ties && m <= kExactLimit && n <= kExactLimit) {
    const std::vector<double> counts = UDistribution(m, n);
    double total = 0, below = 0, above = 0;
    const size_t u = static_cast<size_t>(std::lround(out.u));
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k <= u) below += counts[k];
      if (k >= u) above += counts[k];
    }
    out.exact = true;
    out.p = std::min(1.0, 2 * std::min(below, above) / total);
    return out;
  }
  const double total = n1 + n2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((total + 1) - ranked.tie_term / (total * (total - 1)));
  if (!(variance > 0)) return out;  // every value the same: no evidence of a difference
  const double distance = std::max(0.0, std::fabs(out.u - mean) - 0.5);
  out.p = std::min(1.0, 2 * NormalUpperTail(distance / std::sqrt(variance)));
  return out;
}

double SmallestP(int n1, int n2) {
  if (n1 <= 0 || n2 <= 0) return 1;
  // C(n1+n2, n1) as a double; exact enough for what it is compared with.
  double c = 1;
  for (int i = 1; i <= n1; ++i) c = c * (n2 + i) / i;
  return std::min(1.0, 2 / c);
}

Comparison Compare(const std::vector<double>& a, const std::vector<double>& b, double alpha) {
  Comparison out;
  out.a = Summarize(a);
  out.b = Summarize(b);
  if (!out.a || !out.b) return out;
  if (out.a->median != 0) {
    out.change_percent = (out.b->median - out.a->median) / std::fabs(out.a->median) * 100;
  }
  out.test = MannWhitney(a, b);
  const int n1 = static_cast<int>(a.size()), n2 = static_cast<int>(b.size());
  if (SmallestP(n1, n2) >= alpha) {
    out.verdict = Verdict::kTooFew;
  } else {
    out.verdict = out.test->p < alpha ? Verdict::kSignificant : Verdict::kNotSignificant;
  }
  return out;
}

}  // namespace nicbench::analysis
