/*
 * erase_config.c - makedumpfile.conf(5) text -> struct erase_config
 * (erase_config.h).
 */
#include "filter/erase_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define EC_MAX_TOKENS 8
#define EC_MAX_ITEMS 10000

struct ec_tok {
	const char *s;
	size_t n;
};

static bool ec_is(const struct ec_tok *t, const char *word)
{
	return t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

static bool ec_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static enum mdf_status ec_bad(struct mdf_err *err, unsigned line, const char *what,
			      const struct ec_tok *t)
{
	if (t)
		return mdf_err_set(err, MDF_ERR_FORMAT, "line %u: %s '%.*s'", line, what,
				   (int)(t->n > 64 ? 64 : t->n), t->s);
	return mdf_err_set(err, MDF_ERR_FORMAT, "line %u: %s", line, what);
}

/* An identifier: [A-Za-z0-9_]+, shorter than ERASE_NAME_MAX. */
static bool ec_name(const char *s, size_t n, char out[ERASE_NAME_MAX])
{
	if (n == 0 || n >= ERASE_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ec_ident_char(s[i]))
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

static enum mdf_status ec_expr(const struct ec_tok *t, unsigned line, struct erase_expr *e,
			       struct mdf_err *err)
{
	size_t i = 0;

	memset(e, 0, sizeof(*e));
	if (t->n >= sizeof(e->text))
		return ec_bad(err, line, "expression too long:", t);
	memcpy(e->text, t->s, t->n);
	while (i <= t->n) {
		size_t j = i;

		while (j < t->n && t->s[j] != '.')
			j++;
		if (e->nparts == ERASE_EXPR_PARTS)
			return ec_bad(err, line, "too many members in", t);
		if (!ec_name(t->s + i, j - i, e->parts[e->nparts]))
			return ec_bad(err, line, "bad symbol expression", t);
		e->nparts++;
		i = j + 1;
	}
	return MDF_OK;
}

/* N, NK or NM (the suffix in either case), N > 0. */
static bool ec_size_value(const struct ec_tok *t, uint64_t *ret)
{
	char buf[32];
	uint64_t mult = 1, v;
	size_t n = t->n;

	if (n == 0 || n >= sizeof(buf) || t->s[0] < '0' || t->s[0] > '9')
		return false;
	memcpy(buf, t->s, n);
	buf[n] = '\0';
	if (buf[n - 1] == 'K' || buf[n - 1] == 'k')
		mult = 1024;
	else if (buf[n - 1] == 'M' || buf[n - 1] == 'm')
		mult = 1024 * 1024;
	if (mult != 1)
		buf[--n] = '\0';
	if (!util_parse_u64_base(buf, 10, &v) || v == 0 || v > UINT64_MAX / mult)
		return false;
	*ret = v * mult;
	return true;
}

/* Room for one more item in *@arr (@n used, *@cap allocated). */
static enum mdf_status ec_grow(void **arr, size_t n, size_t *cap, size_t elem,
			       struct mdf_err *err)
{
	void *p;

	if (n >= EC_MAX_ITEMS)
		return mdf_err_set(err, MDF_ERR_FORMAT, "more than %u commands", EC_MAX_ITEMS);
	if (n < *cap)
		return MDF_OK;
	p = realloc(*arr, (*cap ? 2 * *cap : 4) * elem);
	if (!p)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	*arr = p;
	*cap = *cap ? 2 * *cap : 4;
	return MDF_OK;
}

/* erase EXPR [size N|size EXPR|nullify] */
static enum mdf_status ec_erase(struct erase_config *cfg, const struct ec_tok *t, size_t nt,
				unsigned line, int loop, const char *module, struct mdf_err *err)
{
	struct erase_cmd *c;
	enum mdf_status st;

	if (nt < 2)
		return ec_bad(err, line, "erase needs a symbol", NULL);
	st = ec_grow((void **)&cfg->cmds, cfg->ncmds, &cfg->cap_cmds, sizeof(*cfg->cmds), err);
	if (st != MDF_OK)
		return st;
	c = &cfg->cmds[cfg->ncmds];
	memset(c, 0, sizeof(*c));
	c->line = line;
	c->loop = loop;
	strcpy(c->module, module);
	st = ec_expr(&t[1], line, &c->target, err);
	if (st != MDF_OK)
		return st;
	if (loop >= 0 && strcmp(c->target.parts[0], cfg->loops[loop].id))
		return ec_bad(err, line, "inside the loop, erase names its ID, not", &t[1]);
	if (nt == 2) {
		c->kind = ERASE_SIZE_TYPE;
	} else if (nt == 3 && ec_is(&t[2], "nullify")) {
		c->kind = ERASE_NULLIFY;
	} else if (nt == 4 && ec_is(&t[2], "size")) {
		if (ec_size_value(&t[3], &c->size)) {
			c->kind = ERASE_SIZE_VALUE;
		} else if (t[3].s[0] >= '0' && t[3].s[0] <= '9') {
			return ec_bad(err, line, "bad size", &t[3]);
		} else {
			c->kind = ERASE_SIZE_EXPR;
			st = ec_expr(&t[3], line, &c->size_expr, err);
			if (st != MDF_OK)
				return st;
		}
	} else {
		return ec_bad(err, line, "expected 'size VALUE', 'size SYMBOL' or 'nullify' after",
			      &t[1]);
	}
	cfg->ncmds++;
	return MDF_OK;
}

/* for ID in EXPR [via MEMBER | within STRUCT:MEMBER] */
static enum mdf_status ec_for(struct erase_config *cfg, const struct ec_tok *t, size_t nt,
			      unsigned line, struct mdf_err *err)
{
	struct erase_loop *l;
	enum mdf_status st;

	if (nt != 4 && nt != 6)
		return ec_bad(err, line,
			      "usage: for ID in ARRAY | STRUCT via MEMBER | LIST within STRUCT:MEMBER",
			      NULL);
	if (!ec_is(&t[2], "in"))
		return ec_bad(err, line, "expected 'in', got", &t[2]);
	st = ec_grow((void **)&cfg->loops, cfg->nloops, &cfg->cap_loops, sizeof(*cfg->loops), err);
	if (st != MDF_OK)
		return st;
	l = &cfg->loops[cfg->nloops];
	memset(l, 0, sizeof(*l));
	l->line = line;
	if (!ec_name(t[1].s, t[1].n, l->id))
		return ec_bad(err, line, "bad loop ID", &t[1]);
	st = ec_expr(&t[3], line, &l->list, err);
	if (st != MDF_OK)
		return st;
	l->kind = ERASE_LOOP_ARRAY;
	if (nt == 6 && ec_is(&t[4], "via")) {
		l->kind = ERASE_LOOP_VIA;
		if (!ec_name(t[5].s, t[5].n, l->member))
			return ec_bad(err, line, "bad member", &t[5]);
	} else if (nt == 6 && ec_is(&t[4], "within")) {
		const char *colon = memchr(t[5].s, ':', t[5].n);

		l->kind = ERASE_LOOP_WITHIN;
		if (!colon || !ec_name(t[5].s, (size_t)(colon - t[5].s), l->struct_name) ||
		    !ec_name(colon + 1, t[5].n - (size_t)(colon - t[5].s) - 1, l->member))
			return ec_bad(err, line, "expected STRUCT:MEMBER after 'within', got", &t[5]);
	} else if (nt == 6) {
		return ec_bad(err, line, "expected 'via' or 'within', got", &t[4]);
	}
	cfg->nloops++;
	return MDF_OK;
}

enum mdf_status erase_config_parse(const char *text, size_t len, struct erase_config *cfg,
				   struct mdf_err *err)
{
	const char *p = text, *end = text + len;
	char module[ERASE_NAME_MAX] = "";
	int loop = -1;
	unsigned line = 0;
	enum mdf_status st = MDF_OK;

	memset(cfg, 0, sizeof(*cfg));
	if (!text && len)
		return mdf_err_set(err, MDF_ERR_ARG, "no text but length %zu", len);
	while (p < end && st == MDF_OK) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct ec_tok t[EC_MAX_TOKENS + 1];
		size_t nt = 0;

		line++;
		if (memchr(p, '\0', (size_t)(le - p))) {
			st = ec_bad(err, line, "NUL byte in the text", NULL);
			break;
		}
		for (const char *q = p; q < le;) {
			while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
				q++;
			if (q == le)
				break;
			if (nt == EC_MAX_TOKENS + 1) {
				st = ec_bad(err, line, "too many words", NULL);
				break;
			}
			t[nt].s = q;
			while (q < le && *q != ' ' && *q != '\t' && *q != '\r')
				q++;
			t[nt].n = (size_t)(q - t[nt].s);
			nt++;
		}
		p = nl ? nl + 1 : end;
		if (st != MDF_OK || nt == 0 || t[0].s[0] == '#')
			continue;
		if (t[0].s[0] == '[') {
			char name[ERASE_NAME_MAX];

			if (nt != 1 || t[0].n < 3 || t[0].s[t[0].n - 1] != ']' ||
			    !ec_name(t[0].s + 1, t[0].n - 2, name)) {
				st = ec_bad(err, line, "bad section header", &t[0]);
			} else if (loop >= 0) {
				st = ec_bad(err, line, "section inside a for loop (no endfor)", &t[0]);
			} else if (strcmp(name, "vmlinux") == 0) {
				module[0] = '\0';
			} else {
				strcpy(module, name);
				cfg->module_sections++;
			}
			continue;
		}
		if (ec_is(&t[0], "endfor")) {
			if (nt != 1)
				st = ec_bad(err, line, "endfor takes nothing, got", &t[1]);
			else if (loop < 0)
				st = ec_bad(err, line, "endfor without for", NULL);
			loop = -1;
			continue;
		}
		if (ec_is(&t[0], "erase")) {
			st = ec_erase(cfg, t, nt, line, loop, module, err);
		} else if (ec_is(&t[0], "for")) {
			if (loop >= 0)
				st = ec_bad(err, line, "nested for loops are not allowed", NULL);
			else if ((st = ec_for(cfg, t, nt, line, err)) == MDF_OK)
				loop = (int)cfg->nloops - 1;
		} else {
			st = ec_bad(err, line, "unknown command", &t[0]);
		}
	}
	if (st == MDF_OK && loop >= 0)
		st = ec_bad(err, cfg->loops[loop].line, "for without endfor", NULL);
	if (st != MDF_OK)
		erase_config_free(cfg);
	return st;
}

void erase_config_free(struct erase_config *cfg)
{
	free(cfg->cmds);
	free(cfg->loops);
	memset(cfg, 0, sizeof(*cfg));
}
