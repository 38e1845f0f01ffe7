// SPDX-License-Identifier: MIT
// Asks the running ICU for its own version and its Unicode version.
#include "text/icu_versions.h"

#include <unicode/uchar.h>
#include <unicode/uversion.h>

namespace simhash {
namespace {

// ICU's own dotted form drops trailing zero fields ("15.0.0.0" -> "15.0"),
// which is the form both ICU and Unicode releases are named by.
std::string dotted(const UVersionInfo version) {
  char text[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(version, text);
  return text;
}

}  // namespace

IcuVersions icu_versions() {
  UVersionInfo icu;
  u_getVersion(icu);
  UVersionInfo unicode;
  u_getUnicodeVersion(unicode);
  return {dotted(icu), dotted(unicode)};
}

}  // namespace simhash
