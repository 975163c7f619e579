// Diagnosis: what limits the transfer, with evidence. Pure functions from a finished RunRecord
// (both ends' intervals, host samples and NIC facts) to findings; no I/O, no clock, so the
// same record always yields the same findings. Thread-safe (no shared state).
//
// Call site: after the engine has finished the record and before it is rendered or stored:
//   run.findings = diagnosis::Diagnose(run);
// and, for a job that ran both directions, append DiagnosePair(forward, reverse) to either.
// docs/diagnosis.md lists every rule, its inputs, thresholds and why.
#pragma once

#include <string>
#include <vector>

#include "record/measured.h"
#include "record/run_record.h"

namespace nicbench::diagnosis {

// The numbers the rules compare against. The defaults are the documented ones; tests and
// experiments may tighten them.
struct Thresholds {
  // Goodput at or above this share of the link's theoretical TCP goodput: the link is the limit.
  double link_limited_fraction = 0.90;
  // Goodput below this share of it, with no other finding to explain why: "far below".
  double far_below_fraction = 0.50;
  // A core at or above this busy share (user+nice+system+irq+softirq+steal) is saturated...
  double core_busy_percent = 90.0;
  // ...and an end is CPU-bound when that holds in more than this share of its intervals (so
  // most of them; a competitor must also hold nicbench back in most of them, rules_cpu.cc).
  double saturated_interval_fraction = 0.5;
  // CPU time (percent of one core) used by processes other than nicbench that counts as
  // competition for a saturated core.
  double competitor_percent = 20.0;
  // ...and it counts only when nicbench's own threads waited for a CPU (run-queue delay,
  // summed over its threads) at least this share of the time: the evidence that the
  // competition held this transfer back, not just that the host was busy.
  // A thread that sleeps on its socket is woken ahead of a busy loop (CFS wakeup preemption),
  // so even a starved receiver waits only part of the time: 6-27% per second measured in the
  // pinned-competitor stand scenario, against about 1% for an uncontended end.
  double run_queue_wait_fraction = 0.05;
  // ...or when the wait is at least this share of the time its threads wanted a CPU (waiting
  // plus running) and at least run_queue_wait_floor of the time: a receiver that sleeps on its
  // low-water mark most of a second waits little per second even when each wakeup queues
  // behind the competitor (5-8% measured in that scenario, against 1% uncontended).
  double run_queue_wait_share = 0.15;
  double run_queue_wait_floor = 0.02;
  // Share of the NIC's interrupts taken by one CPU that counts as concentration.
  double irq_concentration_fraction = 0.9;
  // Mean idle of the other CPUs for "while others idle".
  double others_idle_percent = 50.0;
  // Retransmitted segments per segment sent: notice at the first, warning at the second.
  double retransmit_notice_fraction = 0.001;
  double retransmit_warning_fraction = 0.01;
  // UDP datagrams lost per datagram sent for a warning.
  double udp_loss_fraction = 0.01;
  // TCP_INFO: share of the sender's busy time limited by the receive window / send buffer.
  double window_limited_fraction = 0.5;
  // Measurement suspect: nicbench's own CPU use (percent of one core) in most intervals...
  double tool_cpu_percent = 90.0;
  // ...a test shorter than this, or than this many mean RTTs...
  double min_test_seconds = 2.0;
  double min_test_rtts = 50.0;
  // ...or per-interval goodput with a coefficient of variation above this.
  double max_interval_cv = 0.5;
  // Asymmetry: the slower direction below this share of the faster one.
  double asymmetry_fraction = 0.7;
  // Interrupts per Gbit/s differing by this factor between ends or directions.
  double irq_rate_ratio = 2.0;
  // Placement: the NIC's packet work (its softirqs) or nicbench's threads on CPUs outside the
  // NIC's NUMA node for at least this share.
  double far_node_fraction = 0.5;
  // CPU frequency: the busiest core, busy at least this much on average, running below this
  // share of its maximum under a governor other than performance.
  double frequency_busy_percent = 50.0;
  double frequency_low_fraction = 0.8;
};

// Runs every rule on one record and returns the findings, most severe first (rules of equal
// severity keep the order of the rule table). A record with no warning also carries a
// "no-problem-found" info finding so a healthy run says so.
std::vector<record::Finding> Diagnose(const record::RunRecord& run,
                                      const Thresholds& thresholds = {});

// Findings that need both directions of one path: asymmetry and interrupt cost compared across
// directions. `forward` is the record of the client-sends test, `reverse` of the server-sends
// test between the same two hosts. Each record's own findings still come from Diagnose.
std::vector<record::Finding> DiagnosePair(const record::RunRecord& forward,
                                          const record::RunRecord& reverse,
                                          const Thresholds& thresholds = {});

// Adds `more` (e.g. DiagnosePair's findings) to a run's own, most severe first as Diagnose
// orders them (equal severities keep their order, the run's own first); the run's
// "no-problem-found" note goes when `more` holds anything. Nothing changes when `more` is empty.
void AddFindings(std::vector<record::Finding>& findings, std::vector<record::Finding> more);

// "info", "notice", "warning", "critical".
const char* SeverityName(record::Severity severity);

}  // namespace nicbench::diagnosis
