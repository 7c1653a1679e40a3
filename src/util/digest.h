/* SHA-256 digests as metadata.json writes them (standard base64 alphabet, padded: 44 characters), and the
 * package-relative paths they are keyed by. */
#ifndef WGK_UTIL_DIGEST_H
#define WGK_UTIL_DIGEST_H

#include <stdbool.h>
#include <stddef.h>

#define WGK_PKG_DIGEST_B64_LEN 44

/* Writes the base64 SHA-256 of data into out (NUL-terminated); true. */
bool util_pkg_sha256_b64(const void *data, size_t len, char out[WGK_PKG_DIGEST_B64_LEN + 1]);
/* True when s has the shape of a base64 SHA-256: 43 alphabet characters then '='. */
bool util_pkg_digest_well_formed(const char *s);
/* True when relpath is a canonical relative path: no leading '/', no '\\', no empty, '.' or '..' segment, no
 * trailing '/', and no ".." anywhere in it (as the public loader refuses). */
bool util_pkg_relpath_ok(const char *relpath);

#endif
