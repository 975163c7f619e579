// The text of `tc -s qdisc show dev IF` and `tc -s class show dev IF`: a capture keeps the root
// qdisc in it (`nicbench collect --script` runs tc on a far end; `inspect --capture` and
// `collect -o` write the facts rtnetlink gave in the same layout), and `--root` reads it back.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "record/facts.h"

namespace nicbench::probes {

// The root qdisc from `tc -s qdisc show dev IF` ("qdisc tbf 8001: root refcnt 2 rate 100Mbit
// burst 32787b lat 50ms overhead 24"): its kind; for tbf its rate, burst and overhead; for htb,
// whose rates are on its classes, the largest "rate" among the htb classes of `classes` (the
// text of `tc -s class show dev IF`, may be empty) and that class's overhead, as the netlink
// reader reports it. tc prints rates rounded to its units ("12345Kbit" for 12345678 bit/s) and
// bursts within 16 bytes ("32Kb"), so a capture taken by tc is that exact; one written by
// nicbench (RenderTcQdisc) is exact. Error when no line is the root qdisc's.
Result<record::Qdisc> ParseTcQdisc(std::string_view qdiscs, std::string_view classes);

// The same texts from a qdisc read with rtnetlink, in tc's layout, rates in whole units only
// when exact ("100Mbit", else "12345678bit") and bursts in bytes, so ParseTcQdisc reads back the
// same values. RenderTcClasses is empty except for htb with a rate (one class holding it).
std::string RenderTcQdisc(const record::Qdisc& qdisc);
std::string RenderTcClasses(const record::Qdisc& qdisc);

}  // namespace nicbench::probes
