#include "util/digest.h"

#include <string.h>

#include "util/sha.h"

bool util_pkg_sha256_b64(const void *data, size_t len, char out[WGK_PKG_DIGEST_B64_LEN + 1]) {
  unsigned char md[32];
  util_sha256(data, len, md);
  util_base64_encode(md, sizeof md, out); /* 4 * ceil(32 / 3) = 44 characters, padded */
  return true;
}

bool util_pkg_digest_well_formed(const char *s) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (!s || strlen(s) != WGK_PKG_DIGEST_B64_LEN || s[43] != '=') return false;
  for (int i = 0; i < 43; i++)
    if (!strchr(alphabet, s[i])) return false;
  return true;
}

bool util_pkg_relpath_ok(const char *relpath) {
  if (!relpath || !*relpath || relpath[0] == '/' || strchr(relpath, '\\')) return false;
  for (const char *p = relpath; *p;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) return false;
    if (!slash) break;
    p = slash + 1;
    if (!*p) return false; /* trailing slash */
  }
  return strstr(relpath, "..") == NULL; /* also refuse ".." inside a name, as the public loader does */
}
