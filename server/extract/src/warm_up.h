#ifndef NEARDUP_EXTRACT_SRC_WARM_UP_H_
#define NEARDUP_EXTRACT_SRC_WARM_UP_H_

namespace neardup::extract::internal {

// A one-page PDF without text: parsing it loads poppler's global state
// (its configuration files) before a sandbox closes the file system.
inline constexpr char kWarmUpPdf[] =
    "%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\n"
    "trailer<</Root 1 0 R>>\n%%EOF\n";

}  // namespace neardup::extract::internal

#endif  // NEARDUP_EXTRACT_SRC_WARM_UP_H_
