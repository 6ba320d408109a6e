#ifndef NEARDUP_EXTRACT_SRC_SELF_EXEC_H_
#define NEARDUP_EXTRACT_SRC_SELF_EXEC_H_

namespace neardup::extract::internal {

// True once MaybeRunPdfChild ran in this program's main: /proc/self/exe
// then runs the PDF and extraction children when asked.
bool SelfExecReady();

}  // namespace neardup::extract::internal

#endif  // NEARDUP_EXTRACT_SRC_SELF_EXEC_H_
