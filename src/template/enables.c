/*
 * The `enable` directives a rendered WGSL module needs and lacks, decided as the public loader decides
 * them (docs/loader-semantics.md; read in its bundle, checked by tests/loader/compare.py), on the text with its
 * comments removed:
 *   f16                    the word f16, or a literal with the h suffix (1h, 2.5h, .5e3h, 0x1p4h), and no
 *                          `enable ...f16...;` at the start of a line;
 *   subgroups              a call of a subgroup or quad built-in (subgroupAdd(...), quadSwapX(...)) or a
 *                          subgroup built-in value (@builtin(subgroup_size) ...), and no enable naming it;
 *   subgroup_size_control  an @subgroup_size( attribute, and no enable naming it.
 * Nothing else is inferred (a shader using subgroup matrices writes its own enable line). A name in a
 * comment, or inside a longer identifier (my_f16_buf, subgroup_count), needs nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

static bool word_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool hexdigit(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* The text without // and (nested) block comments; a block comment keeps its newlines. */
static char *strip_comments(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] == '/' && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') i++;
    } else if (s[i] == '/' && s[i + 1] == '*') {
      int depth = 1;
      for (i += 2; i < n && depth > 0;) {
        if (s[i] == '/' && s[i + 1] == '*')
          depth++, i += 2;
        else if (s[i] == '*' && s[i + 1] == '/')
          depth--, i += 2;
        else {
          if (s[i] == '\n') out[o++] = '\n';
          i++;
        }
      }
    } else {
      out[o++] = s[i++];
    }
  }
  out[o] = '\0';
  return out;
}

/* word occurs in [b, e) as a whole word. */
static bool has_word(const char *b, const char *e, const char *word) {
  size_t n = strlen(word);
  for (const char *p = b; p + n <= e; p++)
    if (memcmp(p, word, n) == 0 && (p == b || !word_char(p[-1])) && (p + n == e || !word_char(p[n]))) return true;
  return false;
}

/* Some line starts (after spaces and tabs) with `enable`, whitespace, then text up to a ';' naming word. */
static bool enabled(const char *s, const char *word) {
  for (const char *line = s; line; line = strpbrk(line, "\n\r"), line = line ? line + 1 : NULL) {
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "enable", 6) != 0 || !space(p[6])) continue;
    p += 6;
    while (space(*p)) p++;
    const char *semi = strchr(p, ';');
    if (semi && has_word(p, semi, word)) return true;
  }
  return false;
}

/* A numeric literal with the h (f16) suffix starts at s[i]: the loader's pattern
 * (?:^|[^A-Za-z0-9_.])(?:0[xX]hex*.?hex*[pP][+-]?dec+ | dec+.?dec*(?:[eE][+-]?dec+)? | .dec+(?:[eE][+-]?dec+)?)h\b */
static bool half_literal_at(const char *s, size_t i) {
  if (i > 0 && (word_char(s[i - 1]) || s[i - 1] == '.')) return false;
  const char *p = s + i;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    const char *q = p + 2;
    while (hexdigit(*q)) q++;
    if (*q == '.') q++;
    while (hexdigit(*q)) q++;
    if (*q == 'p' || *q == 'P') {
      q++;
      if (*q == '+' || *q == '-') q++;
      if (digit(*q)) {
        while (digit(*q)) q++;
        if (*q == 'h' && !word_char(q[1])) return true;
      }
    }
  }
  const char *q = p;
  if (digit(*q)) {
    while (digit(*q)) q++;
    if (*q == '.') q++;
    while (digit(*q)) q++;
  } else if (*q == '.' && digit(q[1])) {
    for (q++; digit(*q);) q++;
  } else {
    return false;
  }
  if ((*q == 'e' || *q == 'E') && (digit(q[1]) || ((q[1] == '+' || q[1] == '-') && digit(q[2])))) {
    q += q[1] == '+' || q[1] == '-' ? 2 : 1;
    while (digit(*q)) q++;
  }
  return *q == 'h' && !word_char(q[1]);
}

static bool needs_f16(const char *s) {
  if (has_word(s, s + strlen(s), "f16")) return true;
  for (size_t i = 0; s[i]; i++)
    if ((digit(s[i]) || s[i] == '.') && half_literal_at(s, i)) return true;
  return false;
}

static const char *skip_space(const char *p) {
  while (space(*p)) p++;
  return p;
}

static bool needs_subgroups(const char *s) {
  static const char *const sub[] = {"Add",
                                    "ExclusiveAdd",
                                    "InclusiveAdd",
                                    "Mul",
                                    "ExclusiveMul",
                                    "InclusiveMul",
                                    "And",
                                    "Or",
                                    "Xor",
                                    "Min",
                                    "Max",
                                    "All",
                                    "Any",
                                    "Ballot",
                                    "Elect",
                                    "Broadcast",
                                    "BroadcastFirst",
                                    "Shuffle",
                                    "ShuffleXor",
                                    "ShuffleUp",
                                    "ShuffleDown",
                                    NULL};
  static const char *const quad[] = {"Broadcast", "SwapX", "SwapY", "SwapDiagonal", NULL};
  static const char *const values[] = {"subgroup_invocation_id", "subgroup_size", "subgroup_id", "num_subgroups", NULL};
  for (const char *p = s; *p; p++) {
    /* \b(?:subgroup...|quad...)\s*\( : a word boundary before the name */
    const char *const *names = p > s && word_char(p[-1])        ? NULL
                               : strncmp(p, "subgroup", 8) == 0 ? sub
                               : strncmp(p, "quad", 4) == 0     ? quad
                                                                : NULL;
    if (names) {
      const char *rest = p + (names == sub ? 8 : 4);
      for (size_t k = 0; names[k]; k++) {
        size_t n = strlen(names[k]);
        if (strncmp(rest, names[k], n) == 0 && *skip_space(rest + n) == '(') return true;
      }
    }
    /* @builtin\s*\(\s*(?:subgroup_invocation_id|...)\s*\) : no boundary asked */
    if (strncmp(p, "@builtin", 8) == 0) {
      const char *q = skip_space(p + 8);
      if (*q != '(') continue;
      q = skip_space(q + 1);
      for (size_t k = 0; values[k]; k++) {
        size_t n = strlen(values[k]);
        if (strncmp(q, values[k], n) == 0 && *skip_space(q + n) == ')') return true;
      }
    }
  }
  return false;
}

static bool needs_size_control(const char *s) {
  for (const char *p = strstr(s, "@subgroup_size"); p; p = strstr(p + 1, "@subgroup_size"))
    if (*skip_space(p + 14) == '(') return true;
  return false;
}

unsigned tmpl_wgsl_missing_enables(const char *wgsl) {
  char *s = strip_comments(wgsl);
  if (!s) return WGK_ENABLE_OOM;
  unsigned m = 0;
  if (needs_f16(s) && !enabled(s, "f16")) m |= WGK_ENABLE_F16;
  if (needs_subgroups(s) && !enabled(s, "subgroups")) m |= WGK_ENABLE_SUBGROUPS;
  if (needs_size_control(s) && !enabled(s, "subgroup_size_control")) m |= WGK_ENABLE_SUBGROUP_SIZE_CONTROL;
  free(s);
  return m;
}
