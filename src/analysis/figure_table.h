// The one table of derived figures: every figure a run is stored, listed, compared and charted
// by, one row each, built the way record/json_schema.h is. A row says the figure's key (the name
// in the store, in history's JSON and CSV and in compare's JSON), its label and unit for people,
// which end it belongs to, the group it shows with, and the function that computes it from the
// record (through analysis's one computation of each figure: figures.h, cost.h, under_load.h).
// The store, history, compare, matrix and the HTML report loop over this table; none of them
// names a figure.
//
// To add a figure: add ONE row to the table in figure_table.cc, with its computation (a short
// function of FigureInputs returning the value or unknown with why). The store keeps it for every
// run stored from then on (a run stored before reads it as unknown, "not computed when the run
// was stored"), history shows it in JSON and CSV, compare and matrix compare it.
//
// Pure; the table is immutable and thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/figures.h"
#include "analysis/under_load.h"
#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::analysis {

// Which end a figure belongs to: one end's (its CPU cost), both ends' together (retransmits over
// every sending stream) or the run's as a whole (goodput of a direction, latency of a
// transaction).
enum class FigureEnd { kRun, kClient, kServer, kBoth };
const char* FigureEndName(FigureEnd end);  // "run", "client", "server", "both"

// The group a figure shows with: bulk figures everywhere; request/response and latency-under-load
// figures only where a run of their kind is (history's "rr" and "under_load" members and their
// prefixed CSV columns).
enum class FigureGroup { kBulk, kRr, kUnderLoad };
// The group's key prefix and history JSON member: "" (top level), "rr", "under_load".
const char* FigureGroupName(FigureGroup group);

// What a row's computation reads: the record and analysis's figures of it, computed once.
struct FigureInputs {
  explicit FigureInputs(const record::RunRecord& r);
  const record::RunRecord& run;
  RunFigures figures;           // ComputeFigures(run)
  UnderLoadFigures under_load;  // ComputeUnderLoad(run); all unknown unless run.under_load
};

struct Figure {
  const char* key;    // "rr_latency_p99_9_us": [a-z0-9_], unit last, group prefix first
  const char* label;  // "latency p99.9" (a per-end figure's end is put before it: MetricName)
  const char* unit;   // "us", "bit/s", "CPU-s/GB", "RPM", ...
  FigureEnd end;
  FigureGroup group;
  // compare and matrix test it; history's totals over both directions are not compared (each
  // direction's goodput is).
  bool compared;
  // Reported per byte moved: meaningless for request/response runs, which compare leaves out.
  bool per_byte;
  record::Measured<double> (*compute)(const FigureInputs&);
  // Why a known value is not the tested setting's alone ("" when it is): set on the per-end
  // packet-work figures of an end that carried other traffic (cost.h EndCost::polluted). compare
  // and matrix leave such a value out of their test and say why. Null: never.
  std::string (*caveat)(const FigureInputs&) = nullptr;
};

// Every figure, in display order: bulk, then request/response, then latency under load.
const std::vector<Figure>& Figures();
// The row with this key, or null.
const Figure* FindFigure(std::string_view key);

// One run's value of every figure, in Figures() order.
class FigureValues {
 public:
  // Every figure unknown (kAbsent) with `why`.
  explicit FigureValues(std::string_view why = "not computed");
  const record::Measured<double>& operator[](const Figure& figure) const;
  record::Measured<double>& operator[](const Figure& figure);
  // REQUIRES: a key of the table.
  const record::Measured<double>& Get(std::string_view key) const;
  record::Measured<double>& Get(std::string_view key);
  // Any figure of the group known.
  bool AnyKnown(FigureGroup group) const;
  // The figure's caveat (Figure::caveat), "" when none.
  const std::string& Caveat(const Figure& figure) const;
  void SetCaveat(const Figure& figure, std::string caveat);

 private:
  std::vector<record::Measured<double>> values_;
  std::vector<std::string> caveats_;
};

FigureValues ComputeFigureValues(const record::RunRecord& run);

// The store's form, the JSON unknown rule (record/json.h): {"key": value | null, ...,
// "unknown": {"key": "not reported: no sender TCP_INFO"}, "caveats": {"key": "why"}} ("caveats"
// only when a figure has one). Reading: a key absent from the
// document is unknown, "not computed when the run was stored" (a figure added later); a
// document that is not an object leaves every figure unknown with that reason.
nlohmann::json FigureValuesToJson(const FigureValues& values);
FigureValues FigureValuesFromJson(const nlohmann::json& doc);

}  // namespace nicbench::analysis
