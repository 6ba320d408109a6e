// "cjk-icu": ICU's dictionary-based word break iterator.

#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "neardup/core/internal/unicode_props.h"
#include "neardup/core/internal/utf8.h"
#include "neardup/core/tokenizer.h"

namespace neardup {
namespace {

// ICU break iterators are not thread-safe and slow to build, so each thread
// clones one prototype once. A sink that tokenizes again on the same thread
// gets a fresh clone for the nested call.
thread_local std::unique_ptr<icu::BreakIterator> thread_iterator;
thread_local bool thread_iterator_busy = false;

class IteratorLease {
 public:
  explicit IteratorLease(const icu::BreakIterator& prototype) {
    if (thread_iterator_busy) {
      nested_.reset(prototype.clone());
      it_ = nested_.get();
      return;
    }
    if (thread_iterator == nullptr) thread_iterator.reset(prototype.clone());
    thread_iterator_busy = true;
    it_ = thread_iterator.get();
  }
  ~IteratorLease() {
    if (nested_ == nullptr) thread_iterator_busy = false;
  }
  icu::BreakIterator* get() const { return it_; }

 private:
  std::unique_ptr<icu::BreakIterator> nested_;
  icu::BreakIterator* it_;
};

bool HasAlnum(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    i += internal::DecodeUtf8Lenient(s, i, &cp);
    if (internal::WordProps(cp) & internal::kAlnumBit) return true;
  }
  return false;
}

class CjkTokenizer final : public Tokenizer {
 public:
  explicit CjkTokenizer(std::shared_ptr<const icu::BreakIterator> prototype)
      : prototype_(std::move(prototype)) {}

  std::string Name() const override { return "cjk-icu"; }

  void ForEachToken(std::string_view text, TokenSink sink) const override {
    if (text.empty()) return;
    UErrorCode err = U_ZERO_ERROR;
    UText* ut = utext_openUTF8(nullptr, text.data(),
                               static_cast<int64_t>(text.size()), &err);
    if (U_FAILURE(err)) return;
    IteratorLease lease(*prototype_);
    icu::BreakIterator* it = lease.get();
    it->setText(ut, err);
    if (U_SUCCESS(err)) {
      int32_t start = it->first();
      for (int32_t end = it->next(); end != icu::BreakIterator::DONE;
           start = end, end = it->next()) {
        const std::string_view seg = text.substr(start, end - start);
        if (HasAlnum(seg)) sink(seg);
      }
    }
    // Detach the iterator from the UText before closing it.
    UErrorCode ignore = U_ZERO_ERROR;
    UText* empty = utext_openUTF8(nullptr, "", 0, &ignore);
    it->setText(empty, ignore);
    utext_close(ut);
    utext_close(empty);
  }

 private:
  std::shared_ptr<const icu::BreakIterator> prototype_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Tokenizer>> MakeCjkTokenizer() {
  UErrorCode err = U_ZERO_ERROR;
  std::shared_ptr<const icu::BreakIterator> prototype(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), err));
  if (U_FAILURE(err) || prototype == nullptr) {
    return absl::InternalError(absl::StrCat(
        "ICU word break iterator unavailable: ", u_errorName(err)));
  }
  return std::make_unique<CjkTokenizer>(std::move(prototype));
}

}  // namespace neardup
