#include "report/wrap.h"

#include <vector>

namespace nicbench::report {
namespace {

// Characters of UTF-8 text: every byte but a continuation byte starts one.
size_t Columns(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

size_t LeadingSpaces(std::string_view line) {
  const size_t at = line.find_first_not_of(' ');
  return at == std::string_view::npos ? line.size() : at;
}

// The ends of the gaps of two or more spaces after the indent, in order.
std::vector<size_t> GapEnds(std::string_view line) {
  std::vector<size_t> ends;
  for (size_t i = LeadingSpaces(line); i + 1 < line.size(); ++i) {
    if (line[i] != ' ' || line[i + 1] != ' ') continue;
    size_t j = i;
    while (j < line.size() && line[j] == ' ') ++j;
    if (j < line.size()) ends.push_back(j);
    i = j;
  }
  return ends;
}

// Where continuation lines start: under the text after a short label, else just in from the
// indent. A label too long for the width leaves room by falling back to the indent.
size_t HangingIndent(std::string_view line, const std::vector<size_t>& gaps, size_t width) {
  constexpr size_t kLongestLabel = 30;
  const size_t lead = LeadingSpaces(line);
  size_t hang = lead + 2;
  if (!gaps.empty() && gaps[0] <= lead + kLongestLabel) {
    hang = gaps[0];
  } else if (const size_t colon = line.find(": ", lead);
             colon != std::string_view::npos && colon <= lead + kLongestLabel) {
    hang = colon + 2;
  }
  return hang * 2 > width ? lead + 2 : hang;
}

// Greedy folding at spaces; a word wider than the room left stands on its own line.
void Fold(std::string_view line, size_t width, std::string& out) {
  const std::vector<size_t> gaps = GapEnds(line);
  if (Columns(line) <= width || gaps.size() >= 2) {
    out.append(line);
    return;
  }
  const size_t hang = HangingIndent(line, gaps, width);
  const size_t lead = LeadingSpaces(line);
  std::string current(line.substr(0, lead));
  size_t used = lead;
  bool first_word = true;
  size_t i = lead;
  while (i < line.size()) {
    const size_t space = line.find(' ', i);
    const size_t end = space == std::string_view::npos ? line.size() : space;
    // A gap of several spaces (a label's) stays as it is on the first line.
    size_t next = end;
    while (next < line.size() && line[next] == ' ') ++next;
    const std::string_view word = line.substr(i, end - i);
    const size_t w = Columns(word);
    if (!first_word && used + w > width) {
      while (!current.empty() && current.back() == ' ') current.pop_back();
      out += current;
      out += '\n';
      current.assign(hang, ' ');
      used = hang;
    }
    current.append(word);
    used += w;
    const size_t spaces = next - end;
    if (next < line.size()) {
      current.append(spaces, ' ');
      used += spaces;
    }
    first_word = false;
    i = next;
  }
  out += current;
}

}  // namespace

std::string WrapToWidth(std::string_view text, size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    Fold(text.substr(start, end - start), width, out);
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

}  // namespace nicbench::report
