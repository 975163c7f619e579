// Long lines folded to a terminal's width, for people reading on a TTY (piped output keeps
// every line whole, for scripts). Prose folds at spaces with a hanging indent under the line's
// text: after a leading "label: " ("      evidence: ...") or a label set off by two spaces
// ("  Host busy    1.16 CPU-s/GB ..."), else two columns in from the line's own indent. A table
// row (two or more gaps of two spaces after its indent) is kept whole: folding it would break
// its columns. Widths count characters, not bytes. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace nicbench::report {

// `text` with each line wider than `width` folded; width 0 folds nothing.
std::string WrapToWidth(std::string_view text, size_t width);

}  // namespace nicbench::report
