/* SHA-256 and SHA-1 (FIPS 180-4) and base64 (RFC 4648, standard alphabet, padded), wgk's own: package digests and
 * the Hub's content names need nothing else, and linking OpenSSL for them cost every process ~3 ms of loading
 * before main and ~3 ms of its first-use initialization at the first digest (docs/performance.md). */
#ifndef WGK_UTIL_SHA_H
#define WGK_UTIL_SHA_H

#include <stddef.h>
#include <stdint.h>

typedef struct util_sha_ctx {
  uint32_t h[8];
  uint64_t bytes; /* message length so far */
  unsigned char block[64];
  size_t used; /* bytes waiting in block */
  int words;   /* 8: SHA-256, 5: SHA-1 */
} util_sha_ctx;

void util_sha256_init(util_sha_ctx *c);
void util_sha1_init(util_sha_ctx *c);
void util_sha_update(util_sha_ctx *c, const void *data, size_t len);
/* Writes the digest (32 bytes for SHA-256, 20 for SHA-1); c is spent. */
void util_sha_final(util_sha_ctx *c, unsigned char *out);
void util_sha256(const void *data, size_t len, unsigned char out[32]);

/* base64 of n bytes into out (4 * ceil(n / 3) characters and a NUL). */
void util_base64_encode(const unsigned char *in, size_t n, char *out);
/* The bytes of a padded base64 text of len characters (a multiple of 4) into out; their count, or -1 when the text
 * is not base64 (a character outside the alphabet, padding other than at the end). */
long util_base64_decode(const char *in, size_t len, unsigned char *out);

#endif
