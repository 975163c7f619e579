// Text from elsewhere made safe to print on a terminal: a peer's host name, kernel and software
// strings, iperf3's server_output_text, labels and hosts read back from a store. Any of them
// can hold escape sequences (an `ESC ] 0;...BEL` retitles the terminal, others move the cursor
// or rewrite what was printed), so every text renderer passes what it did not write itself
// through here. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace nicbench::report {

// One line: every C0 control (newline and tab too), DEL and C1 control (U+0080-U+009F) becomes
// a visible escape ("\x1b", "\u009b"), and so does each byte that is not part of valid UTF-8;
// other UTF-8 characters are kept as they are. A backslash stays a backslash (the text is for
// people to read, not to parse back).
std::string TerminalSafe(std::string_view text);

// The same for text of several lines: newlines and tabs are kept.
std::string TerminalSafeLines(std::string_view text);

}  // namespace nicbench::report
