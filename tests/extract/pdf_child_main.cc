#include <cstring>

#include "neardup/extract/pdf.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], neardup::extract::kPdfChildFlag) == 0) {
    return neardup::extract::PdfChildMain(argc, argv);
  }
  return 2;
}
