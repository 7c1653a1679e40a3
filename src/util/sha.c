/* SHA-256 and SHA-1 as FIPS 180-4 defines them (big-endian words, one 64-byte block at a time) and base64. */
#include "util/sha.h"

#include <stdbool.h>
#include <string.h>

static uint32_t rotr(uint32_t x, int n) { return x >> n | x << (32 - n); }
static uint32_t rotl(uint32_t x, int n) { return x << n | x >> (32 - n); }

static uint32_t load_be(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static void block256(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = load_be(p + 4 * t);
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int t = 0; t < 64; t++) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[t] + w[t];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

static void block1(uint32_t h[8], const unsigned char *p) {
  uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 16; t++) w[t] = load_be(p + 4 * t);
  for (int t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  for (int t = 0; t < 80; t++) {
    uint32_t f = t < 20   ? ((b & c) | (~b & d)) + 0x5a827999
                 : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1
                 : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
                          : (b ^ c ^ d) + 0xca62c1d6;
    uint32_t tmp = rotl(a, 5) + f + e + w[t];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = tmp;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void util_sha256_init(util_sha_ctx *c) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memset(c, 0, sizeof *c);
  memcpy(c->h, h0, sizeof h0);
  c->words = 8;
}

void util_sha1_init(util_sha_ctx *c) {
  static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  memset(c, 0, sizeof *c);
  memcpy(c->h, h0, sizeof h0);
  c->words = 5;
}

static void compress(util_sha_ctx *c, const unsigned char *p) {
  if (c->words == 8)
    block256(c->h, p);
  else
    block1(c->h, p);
}

void util_sha_update(util_sha_ctx *c, const void *data, size_t len) {
  const unsigned char *p = data;
  c->bytes += len;
  if (c->used) {
    size_t take = len < 64 - c->used ? len : 64 - c->used;
    memcpy(c->block + c->used, p, take);
    c->used += take, p += take, len -= take;
    if (c->used < 64) return;
    compress(c, c->block);
    c->used = 0;
  }
  for (; len >= 64; p += 64, len -= 64) compress(c, p);
  memcpy(c->block, p, len);
  c->used = len;
}

/* Padding: 0x80, zeros to 56 bytes mod 64, the message's bit length big-endian in 8 bytes. */
void util_sha_final(util_sha_ctx *c, unsigned char *out) {
  uint64_t bits = c->bytes * 8;
  c->block[c->used++] = 0x80;
  if (c->used > 56) {
    memset(c->block + c->used, 0, 64 - c->used);
    compress(c, c->block);
    c->used = 0;
  }
  memset(c->block + c->used, 0, 56 - c->used);
  for (int i = 0; i < 8; i++) c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
  compress(c, c->block);
  for (int i = 0; i < c->words; i++)
    for (int k = 0; k < 4; k++) out[4 * i + k] = (unsigned char)(c->h[i] >> (24 - 8 * k));
}

void util_sha256(const void *data, size_t len, unsigned char out[32]) {
  util_sha_ctx c;
  util_sha256_init(&c);
  util_sha_update(&c, data, len);
  util_sha_final(&c, out);
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void util_base64_encode(const unsigned char *in, size_t n, char *out) {
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
    *out++ = B64[v >> 18];
    *out++ = B64[(v >> 12) & 63];
    *out++ = i + 1 < n ? B64[(v >> 6) & 63] : '=';
    *out++ = i + 2 < n ? B64[v & 63] : '=';
  }
  *out = '\0';
}

long util_base64_decode(const char *in, size_t len, unsigned char *out) {
  if (len % 4) return -1;
  long n = 0;
  for (size_t i = 0; i < len; i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      const char *at = in[i + k] ? strchr(B64, in[i + k]) : NULL;
      bool last = i + 4 == len;
      if (in[i + k] == '=' && last && k >= 2 && (k == 3 || in[i + 3] == '=')) {
        pad++;
        v <<= 6;
        continue;
      }
      if (!at || pad) return -1;
      v = v << 6 | (uint32_t)(at - B64);
    }
    out[n++] = (unsigned char)(v >> 16);
    if (pad < 2) out[n++] = (unsigned char)(v >> 8);
    if (pad < 1) out[n++] = (unsigned char)v;
  }
  return n;
}
