// The Fleet over one PostgreSQL connection: each method is one of fleet_rows.h's queries.
#include "store/fleet.h"

#include <fmt/format.h>

#include "store/backends.h"
#include "store/fleet_rows.h"
#include "store/sql_store.h"

namespace nicbench::store {
namespace {

class SqlFleet final : public Fleet {
 public:
  explicit SqlFleet(std::unique_ptr<Connection> c) : c_(std::move(c)) {}

  std::string Describe() const override { return c_->Describe(); }
  Status Heartbeat(const FleetHost& host, double now) override {
    return fleet::Heartbeat(*c_, host, now);
  }
  Result<std::vector<FleetHost>> Hosts() override { return fleet::Hosts(*c_); }
  Result<int64_t> CreateMesh(const MeshSpec& spec, double now) override {
    return fleet::CreateMesh(*c_, spec, now);
  }
  Result<std::vector<Mesh>> Meshes() override { return fleet::Meshes(*c_, ""); }
  Result<std::optional<Mesh>> FindMesh(std::string_view name) override {
    auto meshes = fleet::Meshes(*c_, name);
    if (!meshes) return tl::unexpected(meshes.error());
    if (meshes->empty()) return std::optional<Mesh>();
    return std::optional<Mesh>(std::move(meshes->front()));
  }
  Status SetMeshState(std::string_view name, std::string_view state, double now) override {
    return fleet::SetMeshState(*c_, name, state, now);
  }
  Status DeleteMesh(std::string_view name) override { return fleet::DeleteMesh(*c_, name); }
  Result<int> Schedule(double now, const LeaseTerms& terms) override {
    return fleet::Schedule(*c_, now, terms);
  }
  Result<int> ExpireLeases(double now, const LeaseTerms& terms) override {
    return fleet::ExpireLeases(*c_, now, terms);
  }
  Result<std::optional<FleetJob>> Claim(std::string_view agent, double now,
                                        const LeaseTerms& terms) override {
    return fleet::Claim(*c_, agent, now, terms);
  }
  Status Renew(const FleetJob& job, double now, const LeaseTerms& terms) override {
    return fleet::Renew(*c_, job, now, terms);
  }
  Result<int64_t> Finish(const FleetJob& job, const record::RunRecord& run, const Labels& labels,
                         double now) override {
    return fleet::Finish(*c_, job, run, labels, now);
  }
  Status FailJob(const FleetJob& job, std::string_view reason, double now) override {
    return fleet::FailJob(*c_, job, reason, now);
  }
  Status Release(const FleetJob& job, std::string_view reason, double now) override {
    return fleet::Release(*c_, job, reason, now);
  }
  Result<std::vector<FleetJob>> Jobs(int64_t mesh_id, size_t limit) override {
    return fleet::Jobs(*c_, mesh_id, limit);
  }
  Result<std::vector<FleetAttempt>> Attempts(int64_t mesh_id) override {
    return fleet::Attempts(*c_, mesh_id);
  }
  Result<std::vector<PairResult>> Grid(int64_t mesh_id) override {
    return fleet::Grid(*c_, mesh_id);
  }

 private:
  std::unique_ptr<Connection> c_;
};

}  // namespace

Result<std::unique_ptr<Fleet>> Fleet::Open(std::string_view url,
                                           std::chrono::milliseconds timeout) {
  if (!IsPostgresUrl(url)) {
    return Fail(fmt::format(
        "{}: the fleet needs a PostgreSQL database (postgresql://...): its queue claims jobs "
        "with SELECT ... FOR UPDATE SKIP LOCKED",
        url));
  }
  auto connection = OpenPostgres(std::string(url), timeout);
  if (!connection) return tl::unexpected(connection.error());
  if (auto s = Migrate(**connection); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Fleet>(std::make_unique<SqlFleet>(std::move(*connection)));
}

}  // namespace nicbench::store
