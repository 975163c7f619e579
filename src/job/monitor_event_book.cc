#include <utility>

#include "job/monitor_rules.h"

namespace nicbench::job {
namespace {

std::string Key(std::string_view source, record::EventKind kind, const std::string& subject) {
  return std::string(source) + "\n" + std::string(record::EventKindName(kind)) + "\n" + subject;
}

}  // namespace

std::vector<record::MonitorEvent> EventBook::Update(std::string_view source,
                                                    const std::vector<Condition>& now,
                                                    double at_unix) {
  std::vector<record::MonitorEvent> changes;
  std::map<std::string, const Condition*> holding;
  for (const Condition& c : now) holding[Key(source, c.kind, c.subject)] = &c;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->second.source != source || holding.count(it->first) > 0) {
      ++it;
      continue;
    }
    record::MonitorEvent resolved = std::move(it->second.event);
    resolved.resolved = true;
    resolved.at_unix = at_unix;
    changes.push_back(std::move(resolved));
    it = open_.erase(it);
  }
  for (const auto& [key, c] : holding) {
    if (open_.count(key) > 0) continue;
    record::MonitorEvent e;
    e.monitor = monitor_;
    e.id = next_id_++;
    e.kind = c->kind;
    e.subject = c->subject;
    e.at_unix = e.opened_unix = at_unix;
    e.summary = c->summary;
    e.evidence = c->evidence;
    changes.push_back(e);
    open_[key] = Open{std::string(source), std::move(e)};
  }
  return changes;
}

std::map<std::string, int> EventBook::OpenByKind() const {
  std::map<std::string, int> counts;
  for (record::EventKind kind : record::kEventKinds) counts[std::string(EventKindName(kind))] = 0;
  for (const auto& [key, o] : open_) ++counts[std::string(EventKindName(o.event.kind))];
  return counts;
}

}  // namespace nicbench::job
