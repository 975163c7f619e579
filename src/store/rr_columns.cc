#include "store/rr_columns.h"

#include <optional>
#include <utility>

namespace nicbench::store {
namespace {

using Figure = std::optional<double> RunSummary::Rr::*;

// Every column but rr_mode, with the member it holds.
const std::vector<std::pair<const char*, Figure>>& Figures() {
  using R = RunSummary::Rr;
  static const std::vector<std::pair<const char*, Figure>> kFigures = {
      {"rr_tps", &R::transactions_per_second},
      {"rr_p50_us", &R::p50_us},
      {"rr_p90_us", &R::p90_us},
      {"rr_p99_us", &R::p99_us},
      {"rr_p999_us", &R::p999_us},
      {"rr_max_us", &R::max_us},
      {"rr_mean_us", &R::mean_us},
      {"rr_connect_p50_us", &R::connect_p50_us},
      {"rr_connect_p99_us", &R::connect_p99_us},
      {"rr_lost", &R::lost},
      {"rr_late", &R::late},
      {"rr_client_us_per_tx", &R::client_process_us_per_transaction},
      {"rr_server_us_per_tx", &R::server_process_us_per_transaction},
      {"rr_client_host_us_per_tx", &R::client_host_us_per_transaction},
      {"rr_server_host_us_per_tx", &R::server_host_us_per_transaction},
  };
  return kFigures;
}

}  // namespace

const std::vector<std::string>& RrColumnNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"rr_mode"};
    for (const auto& [name, member] : Figures()) names.emplace_back(name);
    return names;
  }();
  return kNames;
}

const std::string& RrColumns() {
  static const std::string kColumns = [] {
    std::string text;
    for (const std::string& name : RrColumnNames()) text += (text.empty() ? "" : ", ") + name;
    return text;
  }();
  return kColumns;
}

size_t RrColumnCount() { return RrColumnNames().size(); }

std::vector<std::string> RrColumnDdl() {
  std::vector<std::string> out = {"ALTER TABLE runs ADD COLUMN rr_mode TEXT NOT NULL DEFAULT ''"};
  for (const auto& [name, member] : Figures()) {
    out.push_back(std::string("ALTER TABLE runs ADD COLUMN ") + name + " {real}");
  }
  return out;
}

std::vector<SqlValue> RrColumnValues(const RunSummary& s) {
  // Sized first and filled in place: NULL unless known.
  std::vector<SqlValue> out(RrColumnCount());
  out[0] = s.rr.mode;
  size_t i = 1;
  for (const auto& [name, member] : Figures()) {
    const std::optional<double>& v = s.rr.*member;
    if (v) out[i] = *v;
    ++i;
  }
  return out;
}

RunSummary::Rr RrFromRow(const SqlRow& row, size_t first) {
  RunSummary::Rr rr;
  rr.mode = AsText(row.at(first));
  size_t i = first + 1;
  for (const auto& [name, member] : Figures()) {
    const SqlValue& v = row.at(i++);
    if (!IsNull(v)) rr.*member = AsDouble(v);
  }
  return rr;
}

}  // namespace nicbench::store
