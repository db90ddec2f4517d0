// Reads inputs with libspa's SPA-JSON tokenizer exactly as the test's
// LibspaReader does (Tests/PolicyCoreTests/SPAJSONCrossCheckTests.swift), to
// see how a given libspa release reads them without installing it:
// scripts/spajson-harness/run compiles this once per header set.
//
// Input on stdin, one case a line: `name<TAB>hex bytes`. Output, one a line:
// `name<TAB>reading`, the reading written as LibspaReading.description writes
// it, or `reject` when libspa reports an error or the tokens do not pair up.
#include <spa/utils/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out { char *buf; size_t len, cap; };

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->buf = realloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}
static void puts_(struct out *o, const char *s) { put(o, s, strlen(s)); }

// Swift's Float.description: shortest round-trip digits, decimal notation
// from 1e-4 up to 2^25, exponential (`1e+16`) outside.
static void put_float(struct out *o, float v)
{
	char b[64];
	if (isinf(v)) { puts_(o, v < 0 ? "-inf" : "inf"); return; }
	if (isnan(v)) { puts_(o, "nan"); return; }
	int digits;
	for (digits = 1; digits <= 9; digits++) {
		snprintf(b, sizeof b, "%.*e", digits - 1, v);
		if (strtof(b, NULL) == v)
			break;
	}
	float a = fabsf(v);
	if (a != 0 && (a < 1e-4f || a >= 33554432.0f)) {
		// %e already is Swift's form once trailing mantissa zeros go.
		char *e = strchr(b, 'e'), *m = e;
		while (m[-1] == '0') m--;
		if (m[-1] == '.') m--;
		memmove(m, e, strlen(e) + 1);
		puts_(o, b);
		return;
	}
	int exponent = atoi(strchr(b, 'e') + 1);
	int decimals = digits - 1 - exponent;
	if (decimals < 1) decimals = 1;
	snprintf(b, sizeof b, "%.*f", decimals, v);
	puts_(o, b);
}

// Strict UTF-8 (what Swift's String(decoding:) keeps unchanged).
static int valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		int more; unsigned char lo = 0x80, hi = 0xBF;
		if (c < 0x80) { i++; continue; }
		else if (c >= 0xC2 && c <= 0xDF) more = 1;
		else if (c == 0xE0) { more = 2; lo = 0xA0; }
		else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) more = 2;
		else if (c == 0xED) { more = 2; hi = 0x9F; }
		else if (c == 0xF0) { more = 3; lo = 0x90; }
		else if (c >= 0xF1 && c <= 0xF3) more = 3;
		else if (c == 0xF4) { more = 3; hi = 0x8F; }
		else return 0;
		if (i + more >= n) return 0;
		if (s[i + 1] < lo || s[i + 1] > hi) return 0;
		for (int k = 2; k <= more; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
		i += more + 1;
	}
	return 1;
}

// A string or bare token through spa_json_parse_string, up to its NUL.
// Returns 0 for text that is not UTF-8 (written as <invalid UTF-8>).
static int text(struct out *o, const char *token, int len, int quoted)
{
	char *buf = calloc(len + 1, 1);
	spa_json_parse_string(token, len, buf);
	size_t n = strlen(buf);
	int ok = valid_utf8((unsigned char *)buf, n);
	if (!ok) puts_(o, "<invalid UTF-8>");
	else {
		if (quoted) puts_(o, "\"");
		// Control characters as \xNN, to keep one case a line (the Swift
		// test's readings of these cases hold none).
		for (size_t i = 0; i < n; i++) {
			unsigned char c = buf[i];
			char esc[8];
			if (c < 0x20 || c == 0x7F) { snprintf(esc, sizeof esc, "\\x%02X", c); puts_(o, esc); }
			else put(o, (char *)&c, 1);
		}
		if (quoted) puts_(o, "\"");
	}
	free(buf);
	return ok;
}

static int read_object(struct spa_json *it, struct out *o);
static int read_array(struct spa_json *it, struct out *o);

static int read_value(const char *token, int len, struct spa_json *parent, struct out *o)
{
	if (spa_json_is_object(token, len) || spa_json_is_array(token, len)) {
		struct spa_json child;
		spa_json_enter(parent, &child);
		return spa_json_is_object(token, len) ? read_object(&child, o) : read_array(&child, o);
	}
	if (spa_json_is_null(token, len)) { puts_(o, "null"); return 1; }
	if (spa_json_is_true(token, len)) { puts_(o, "true"); return 1; }
	if (spa_json_is_false(token, len)) { puts_(o, "false"); return 1; }
	float f = 0;
	if (spa_json_parse_float(token, len, &f) > 0) { put_float(o, f); return 1; }
	text(o, token, len, 1);
	return 1;
}

static int read_object(struct spa_json *it, struct out *o)
{
	puts_(o, "{");
	for (int first = 1;; first = 0) {
		const char *key, *value;
		int klen = spa_json_next(it, &key);
		if (klen == 0) { puts_(o, "}"); return 1; }
		if (klen < 0 || spa_json_is_container(key, klen)) return 0;
		if (!first) puts_(o, ",");
		if (!text(o, key, klen, 0)) return 0;   // a key must be a Swift String
		puts_(o, ":");
		int vlen = spa_json_next(it, &value);
		if (vlen <= 0 || !read_value(value, vlen, it, o)) return 0;
	}
}

static int read_array(struct spa_json *it, struct out *o)
{
	puts_(o, "[");
	for (int first = 1;; first = 0) {
		const char *value;
		int len = spa_json_next(it, &value);
		if (len == 0) { puts_(o, "]"); return 1; }
		if (!first) puts_(o, ",");
		if (len < 0 || !read_value(value, len, it, o)) return 0;
	}
}

static int read_document(const char *data, size_t size, struct out *o)
{
	struct spa_json outer, top;
	spa_json_init(&outer, data, size);
	if (spa_json_enter_object(&outer, &top) <= 0)
		spa_json_init(&top, data, size);
	return read_object(&top, o);
}

int main(void)
{
	char line[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		char *tab = strchr(line, '\t');
		if (!tab) continue;
		*tab = '\0';
		// The bytes, then a NUL as in a C string (spa_json_parse_float's
		// strspn in 0.3 does not stop at the token's length).
		unsigned char data[1 << 15];
		size_t n = 0;
		for (char *h = tab + 1; h[0] && h[1] && h[0] != '\n'; h += 2) {
			char pair[3] = { h[0], h[1], 0 };
			data[n++] = (unsigned char)strtoul(pair, NULL, 16);
		}
		data[n] = 0;
		struct out o = { 0 };
		int ok = read_document((const char *)data, n, &o);
		printf("%s\t%s\n", line, ok ? o.buf : "reject");
		free(o.buf);
	}
	return 0;
}
