/*
 * The expression lexer: a pure function from (text, position, previous token) to the next token.
 * Bytes are classified once by a table (SQLite's tokenize.c habit): one lookup replaces a chain of
 * comparisons and keeps the decision of "what can start here" in one place.
 */
#include "expr/expr_int.h"

#include <string.h>

enum { C_OTHER, C_SPACE, C_DIGIT, C_WORD, C_QUOTE, C_PUNCT };

/* The oracle's character classes are JavaScript regex \s, [0-9] and \w: ASCII only. */
static const unsigned char byte_class[256] = {
    ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\v'] = C_SPACE, ['\f'] = C_SPACE, ['\r'] = C_SPACE, [' '] = C_SPACE,
    ['0'] = C_DIGIT,  ['1'] = C_DIGIT,  ['2'] = C_DIGIT,  ['3'] = C_DIGIT,  ['4'] = C_DIGIT,  ['5'] = C_DIGIT,
    ['6'] = C_DIGIT,  ['7'] = C_DIGIT,  ['8'] = C_DIGIT,  ['9'] = C_DIGIT,  ['_'] = C_WORD,   ['A'] = C_WORD,
    ['B'] = C_WORD,   ['C'] = C_WORD,   ['D'] = C_WORD,   ['E'] = C_WORD,   ['F'] = C_WORD,   ['G'] = C_WORD,
    ['H'] = C_WORD,   ['I'] = C_WORD,   ['J'] = C_WORD,   ['K'] = C_WORD,   ['L'] = C_WORD,   ['M'] = C_WORD,
    ['N'] = C_WORD,   ['O'] = C_WORD,   ['P'] = C_WORD,   ['Q'] = C_WORD,   ['R'] = C_WORD,   ['S'] = C_WORD,
    ['T'] = C_WORD,   ['U'] = C_WORD,   ['V'] = C_WORD,   ['W'] = C_WORD,   ['X'] = C_WORD,   ['Y'] = C_WORD,
    ['Z'] = C_WORD,   ['a'] = C_WORD,   ['b'] = C_WORD,   ['c'] = C_WORD,   ['d'] = C_WORD,   ['e'] = C_WORD,
    ['f'] = C_WORD,   ['g'] = C_WORD,   ['h'] = C_WORD,   ['i'] = C_WORD,   ['j'] = C_WORD,   ['k'] = C_WORD,
    ['l'] = C_WORD,   ['m'] = C_WORD,   ['n'] = C_WORD,   ['o'] = C_WORD,   ['p'] = C_WORD,   ['q'] = C_WORD,
    ['r'] = C_WORD,   ['s'] = C_WORD,   ['t'] = C_WORD,   ['u'] = C_WORD,   ['v'] = C_WORD,   ['w'] = C_WORD,
    ['x'] = C_WORD,   ['y'] = C_WORD,   ['z'] = C_WORD,   ['\''] = C_QUOTE, ['"'] = C_QUOTE,  ['('] = C_PUNCT,
    [')'] = C_PUNCT,  ['['] = C_PUNCT,  [']'] = C_PUNCT,  ['{'] = C_PUNCT,  ['}'] = C_PUNCT,  [','] = C_PUNCT,
    ['.'] = C_PUNCT,  [':'] = C_PUNCT,  ['|'] = C_PUNCT,  ['='] = C_PUNCT,  ['!'] = C_PUNCT,  ['<'] = C_PUNCT,
    ['>'] = C_PUNCT,  ['+'] = C_PUNCT,  ['-'] = C_PUNCT,  ['~'] = C_PUNCT,  ['*'] = C_PUNCT,  ['/'] = C_PUNCT,
    ['%'] = C_PUNCT,
};

static expr_token make(expr_tok kind, size_t start, size_t len) { return (expr_token){kind, start, len}; }

static size_t digits(const char *s, size_t len, size_t i) {
  while (i < len && byte_class[(unsigned char)s[i]] == C_DIGIT) i++;
  return i;
}

/* Digits, then ".digits" unless the number follows a dot (so a.0.1 is two members). */
static expr_token number(const char *s, size_t len, size_t start, size_t from, expr_tok prev) {
  size_t i = digits(s, len, from);
  if (prev != WGK_TK_DOT && i + 1 < len && s[i] == '.' && byte_class[(unsigned char)s[i + 1]] == C_DIGIT)
    return make(WGK_TK_FLOAT, start, digits(s, len, i + 1) - start);
  return make(WGK_TK_INT, start, i - start);
}

/* A quoted string; escapes are checked by the parser. Unterminated: ILLEGAL spanning the rest. */
static expr_token string(const char *s, size_t len, size_t start) {
  char q = s[start];
  for (size_t i = start + 1; i < len; i++) {
    if (s[i] == '\\') {
      i++;
      continue;
    }
    if (s[i] == q) return make(WGK_TK_STRING, start, i + 1 - start);
  }
  return make(WGK_TK_ILLEGAL, start, len - start);
}

static bool value_before(expr_tok prev) {
  return prev == WGK_TK_NAME || prev == WGK_TK_INT || prev == WGK_TK_FLOAT || prev == WGK_TK_STRING ||
         prev == WGK_TK_RPAREN || prev == WGK_TK_RBRACKET;
}

static expr_token punct(const char *s, size_t len, size_t i, int brace_depth, bool block_ends) {
  char c = s[i], d = i + 1 < len ? s[i + 1] : '\0';
  if (block_ends && c == '%' && d == '}') return make(WGK_TK_BLOCK_END, i, 2);
  if (block_ends && c == '}' && d == '}' && brace_depth <= 0) return make(WGK_TK_BLOCK_END, i, 2);
  switch (c) {
  case '(':
    return make(WGK_TK_LPAREN, i, 1);
  case ')':
    return make(WGK_TK_RPAREN, i, 1);
  case '[':
    return make(WGK_TK_LBRACKET, i, 1);
  case ']':
    return make(WGK_TK_RBRACKET, i, 1);
  case '{':
    return make(WGK_TK_LBRACE, i, 1);
  case '}':
    return make(WGK_TK_RBRACE, i, 1);
  case ',':
    return make(WGK_TK_COMMA, i, 1);
  case '.':
    return make(WGK_TK_DOT, i, 1);
  case ':':
    return make(WGK_TK_COLON, i, 1);
  case '|':
    return make(WGK_TK_PIPE, i, 1);
  case '<':
    return d == '=' ? make(WGK_TK_LE, i, 2) : make(WGK_TK_LT, i, 1);
  case '>':
    return d == '=' ? make(WGK_TK_GE, i, 2) : make(WGK_TK_GT, i, 1);
  case '=':
    return d == '=' ? make(WGK_TK_EQ, i, 2) : make(WGK_TK_ASSIGN, i, 1);
  case '!':
    return d == '=' ? make(WGK_TK_NE, i, 2) : make(WGK_TK_ILLEGAL, i, 1);
  case '+':
    return make(WGK_TK_PLUS, i, 1);
  case '-':
    return make(WGK_TK_MINUS, i, 1);
  case '~':
    return make(WGK_TK_TILDE, i, 1);
  case '*':
    return d == '*' ? make(WGK_TK_POW, i, 2) : make(WGK_TK_STAR, i, 1);
  case '/':
    return d == '/' ? make(WGK_TK_DSLASH, i, 2) : make(WGK_TK_SLASH, i, 1);
  case '%':
    return make(WGK_TK_PERCENT, i, 1);
  default:
    return make(WGK_TK_ILLEGAL, i, 1);
  }
}

expr_token expr_lex(const char *s, size_t len, size_t pos, expr_tok prev, int brace_depth, bool block_ends) {
  size_t i = pos;
  while (i < len && byte_class[(unsigned char)s[i]] == C_SPACE) i++;
  if (i >= len) return make(WGK_TK_EOF, len, 0);
  char c = s[i], d = i + 1 < len ? s[i + 1] : '\0';
  if (block_ends && c == '-' && i + 2 < len && ((d == '%' && s[i + 2] == '}') || (d == '}' && s[i + 2] == '}')))
    return make(WGK_TK_BLOCK_END, i, 3);
  if ((c == '-' || c == '+') && !value_before(prev)) {
    if (byte_class[(unsigned char)d] == C_DIGIT) return number(s, len, i, i + 1, prev);
    return make(c == '-' ? WGK_TK_UMINUS : WGK_TK_UPLUS, i, 1);
  }
  switch (byte_class[(unsigned char)c]) {
  case C_DIGIT:
    return number(s, len, i, i, prev);
  case C_WORD: {
    size_t j = i;
    while (j < len && (byte_class[(unsigned char)s[j]] == C_WORD || byte_class[(unsigned char)s[j]] == C_DIGIT)) j++;
    return make(WGK_TK_NAME, i, j - i);
  }
  case C_QUOTE:
    return string(s, len, i);
  case C_PUNCT:
    return punct(s, len, i, brace_depth, block_ends);
  default:
    return make(WGK_TK_ILLEGAL, i, 1);
  }
}
