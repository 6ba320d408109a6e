#ifndef NEARDUP_EXTRACT_SRC_SELF_EXEC_H_
#define NEARDUP_EXTRACT_SRC_SELF_EXEC_H_

#include <string>
#include <vector>

namespace neardup::extract::internal {

// The environment of a parser child: nothing of the parent's, but the
// settings a sanitizer build needs to report.
std::vector<std::string> ChildEnvironment();

// True once MaybeRunPdfChild ran in this program's main: /proc/self/exe
// then runs the PDF and extraction children when asked.
bool SelfExecReady();

}  // namespace neardup::extract::internal

#endif  // NEARDUP_EXTRACT_SRC_SELF_EXEC_H_
