/* util_sha256, util_sha1 and base64 against OpenSSL's (an independent implementation, linked by this test only) on
 * random messages of every length around the block and padding edges and a few of megabytes, fed whole and in
 * random pieces; the FIPS 180-4 examples; base64 texts that are not base64 refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "util/sha.h"

static void reference(const EVP_MD *md, const unsigned char *p, size_t n, unsigned char *out) {
  unsigned int len = 0;
  assert_true(EVP_Digest(p, n, out, &len, md, NULL));
}

/* data in random pieces (the block buffer's every path: a piece within it, across it, several blocks at once) */
static void pieces(util_sha_ctx *c, const unsigned char *p, size_t n) {
  while (n) {
    size_t k = (size_t)rand() % 150;
    k = k > n ? n : k;
    util_sha_update(c, p, k);
    p += k, n -= k;
  }
}

static void check_one(const unsigned char *p, size_t n) {
  unsigned char want[32], got[32], want1[20], got1[20];
  util_sha_ctx c;
  reference(EVP_sha256(), p, n, want);
  util_sha256(p, n, got);
  assert_memory_equal(got, want, 32);
  util_sha256_init(&c);
  pieces(&c, p, n);
  memset(got, 0xA5, sizeof got); /* poisoned */
  util_sha_final(&c, got);
  assert_memory_equal(got, want, 32);
  reference(EVP_sha1(), p, n, want1);
  util_sha1_init(&c);
  pieces(&c, p, n);
  memset(got1, 0xA5, sizeof got1);
  util_sha_final(&c, got1);
  assert_memory_equal(got1, want1, 20);
  /* base64 of the digest and of the message's first bytes, both ways */
  size_t m = n < 100 ? n : 100;
  char text[200], ref[200];
  unsigned char back[160];
  util_base64_encode(p, m, text);
  assert_int_equal(EVP_EncodeBlock((unsigned char *)ref, p, (int)m), (int)strlen(text));
  assert_string_equal(text, ref);
  assert_int_equal(util_base64_decode(text, strlen(text), back), (long)m);
  assert_memory_equal(back, p, m);
}

static void against_openssl(void **state) {
  (void)state;
  size_t big = (size_t)3 << 20;
  unsigned char *buf = malloc(big);
  assert_non_null(buf);
  assert_int_equal(RAND_bytes(buf, (int)big), 1); /* fresh each run */
  srand((unsigned)buf[0] << 8 | buf[1]);
  for (size_t n = 0; n <= 300; n++) check_one(buf + n, n); /* 55, 56, 63, 64, 119, 120 ...: the padding edges */
  for (int i = 0; i < 20; i++) check_one(buf, (size_t)rand() % 100000);
  check_one(buf, big);
  free(buf);
}

static void fips_examples(void **state) {
  (void)state;
  static const unsigned char abc256[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                           0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                           0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  static const unsigned char abc1[20] = {0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                         0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d};
  unsigned char got[32];
  util_sha_ctx c;
  util_sha256("abc", 3, got);
  assert_memory_equal(got, abc256, 32);
  util_sha1_init(&c);
  util_sha_update(&c, "abc", 3);
  util_sha_final(&c, got);
  assert_memory_equal(got, abc1, 20);
}

static void base64_refusals(void **state) {
  (void)state;
  unsigned char out[64];
  assert_int_equal(util_base64_decode("", 0, out), 0);
  assert_int_equal(util_base64_decode("QUJD", 4, out), 3);
  assert_memory_equal(out, "ABC", 3);
  assert_int_equal(util_base64_decode("QUI=", 4, out), 2);
  assert_int_equal(util_base64_decode("QQ==", 4, out), 1);
  assert_int_equal(util_base64_decode("QUJ", 3, out), -1);      /* not a multiple of 4 */
  assert_int_equal(util_base64_decode("QU*D", 4, out), -1);     /* outside the alphabet */
  assert_int_equal(util_base64_decode("Q===", 4, out), -1);     /* three pads */
  assert_int_equal(util_base64_decode("QQ=A", 4, out), -1);     /* a pad inside */
  assert_int_equal(util_base64_decode("QQ==QUJD", 8, out), -1); /* padding before the end */
  assert_int_equal(util_base64_decode("QU\0D", 4, out), -1);    /* a NUL */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(against_openssl),
      cmocka_unit_test(fips_examples),
      cmocka_unit_test(base64_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
