/*
 * kind_redfish.c - a host whose BMC speaks DMTF Redfish: the client
 * (kind_redfish.h) and, at the end of the file, the redfish host kind
 * (`kind_redfish`, listed in lab/host_kind.c).
 *
 * What the redfish kind needs from its host row:
 *   - the BMC: https://ADDRESS:PORT from bmc_address (and its port; 443
 *     when none), handed in as redfish_target.url;
 *   - bmc_user, and bmc_password_file (its first line; the file must not
 *     be readable or writable by others, as mail.password_file);
 *   - boot_config keys: "redfish_ca_file" (the CA that signed the BMC's
 *     certificate; absent: the system's CA certificates) and, optional,
 *     "redfish_system" (the ComputerSystem's path when the BMC has
 *     several; absent: the first member of /redfish/v1/Systems);
 *   - the address checked at `host add`/`host set` (a host name or an IP
 *     address), and what the booted host is reached by over SSH.
 * How its boot goes (boot_pxe.c's boot_bmc_pxe(), as for ipmi): the BMC
 * opened (redfish_open()) and asked its power; the console first: unless
 * boot_config.console_log names a file a lab console server writes, the
 * telnet console redfish_console() finds (on the BMC's host), captured
 * into the boot's console file before any power change by lab/telnet.h
 * and kept alive by telnet_capture_check(); a BMC that offers none then
 * fails the boot (the boot is watched through its console); kexec when
 * the host is up on its known-good kernel, else the PXE script,
 * redfish_pxe_once() and redfish_power_cycle() (on when off); the rest
 * (beacon, SSH, release check) as every booting kind does.  Power off:
 * redfish_power_set(REDFISH_POWER_OFF), confirmed.  The client stays open
 * from the first call of a boot to its release.
 *
 * Requests go through https_request() (lab/curl.h): HTTPS only, the
 * certificate checked, basic auth, no redirect followed, answers capped
 * at RF_BODY_MAX and parsed with common/json.h under tight limits.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "json.h"
#include "lab/boot-int.h"
#include "lab/curl.h"
#include "lab/host_kind.h"
#include "lab/kind_redfish.h"
#include "lab/telnet.h"
#include "parse.h"
#include "store/hosts.h"
#include "time-util.h"
#include "banned.h"

/* A Redfish resource's JSON is a few KiB; a BMC that sends more is
 * refused. */
#define RF_BODY_MAX (256 * 1024)
/* Longest path taken from the BMC, and of text from it put into an error. */
#define RF_PATH_MAX 512
#define RF_TEXT_MAX 200
/* The password file's size, at most. */
#define RF_PASSWORD_MAX 4096

static const struct json_limits rf_json_limits = { 16, 4096, 20000 };

/* s (from the BMC) as printable text, at most RF_TEXT_MAX bytes. */
static void add_wire_text(struct strbuf *err, const char *s)
{
	size_t n = strlen(s);

	strbuf_add_printablen(err, s, n > RF_TEXT_MAX ? RF_TEXT_MAX : n, 0);
	if (n > RF_TEXT_MAX)
		strbuf_addstr(err, "...");
}

/*
 * 1 when path may be asked of the BMC: under /redfish/v1/, of the
 * characters of a plain path ([A-Za-z0-9._~/-]), no "..", no "//", at
 * most RF_PATH_MAX bytes.  Paths come from the host row and from the
 * BMC's answers; they are always put after rf->base, so a BMC cannot
 * send the client to another server, and this keeps them from leaving
 * the Redfish tree or carrying a query.
 */
static int path_ok(const char *path)
{
	size_t n = strlen(path);

	if (!starts_with(path, "/redfish/v1/") || n > RF_PATH_MAX ||
	    strstr(path, "..") || strstr(path, "//"))
		return 0;
	for (const char *p = path; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._~/-", *p)))
			return 0;
	return 1;
}

/*
 * The host part of an https:// URL without a path, user or query
 * ("https://bmc1:8443" -> "bmc1", "https://[::1]:443" -> "::1") into
 * host when given; 0, or -1 when url is not of that form.
 */
static int url_host(const char *url, struct strbuf *host)
{
	const char *h, *end;
	size_t hl;

	if (!starts_with(url, "https://"))
		return -1;
	h = url + 8;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end)
			return -1;
		h++;
		hl = (size_t)(end - h);
		end++;
	} else {
		hl = strcspn(h, ":/");
		end = h + hl;
	}
	if (!hl || strspn(h, "0123456789abcdefABCDEF:.-_"
			     "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ") < hl)
		return -1;
	if (*end == ':') {
		int64_t port;
		const char *why;
		struct strbuf p = STRBUF_INIT;
		int r;

		end++;
		strbuf_add(&p, end, strcspn(end, "/"));
		r = parse_i64(p.buf, 1, 65535, &port, &why);
		end += p.len;
		strbuf_release(&p);
		if (r < 0)
			return -1;
	}
	if (*end && strcmp(end, "/"))
		return -1;
	if (host)
		strbuf_add(host, h, hl);
	return 0;
}

/*
 * The error of an answer that is not 2xx: the status, and the Redfish
 * error's message when the body holds one ({"error": {"message": ...}}).
 */
static void answer_error(struct redfish *rf, const char *method,
			 const char *path, long status,
			 const struct strbuf *body, struct strbuf *err)
{
	struct json_value *doc = NULL;
	struct strbuf ignored = STRBUF_INIT;
	const char *msg = NULL;

	strbuf_addf(err, "BMC %s: %s %s answered %ld", rf->base.buf, method,
		    path, status);
	if (status == 401 || status == 403)
		strbuf_addstr(err, ": the BMC refused the login (check "
				   "bmc_user and bmc_password_file)");
	if (body->len &&
	    !json_parse(body->buf, body->len, &rf_json_limits, &doc, &ignored))
		msg = json_member_string(json_get(doc, "error"), "message");
	if (msg) {
		strbuf_addstr(err, ": ");
		add_wire_text(err, msg);
	}
	json_free(doc);
	strbuf_release(&ignored);
}

/*
 * One request: method on rf->base + path, with body (JSON text, or NULL).
 * A 2xx answer is 0, its JSON object in *ret_doc when ret_doc is given
 * (the caller frees it); anything else -1 with err naming the BMC, the
 * request and what went wrong.
 */
static int rf_call(struct redfish *rf, const char *method, const char *path,
		   const char *body, struct json_value **ret_doc,
		   struct strbuf *err)
{
	struct https_request rq = { 0 };
	struct strbuf url = STRBUF_INIT, ans = STRBUF_INIT, jerr = STRBUF_INIT;
	long status;
	int r = -1;

	if (ret_doc)
		*ret_doc = NULL;
	strbuf_addf(&url, "%s%s", rf->base.buf, path);
	rq.method = method;
	rq.url = url.buf;
	rq.user = rf->t->user;
	rq.password = rf->password.buf;
	rq.json_body = body;
	rq.ca_file = rf->t->ca_file;
	rq.timeout_ms =
		rf->t->call_timeout_ms > 0 ? rf->t->call_timeout_ms : 10000;
	rq.max_body = RF_BODY_MAX;
	if (https_request(&rq, &status, &ans, err) < 0)
		goto out;
	if (status < 100 || status > 599) {
		strbuf_addf(err, "BMC %s: %s %s: no HTTP status (%ld)",
			    rf->base.buf, method, path, status);
		goto out;
	}
	if (status < 200 || status > 299) {
		answer_error(rf, method, path, status, &ans, err);
		goto out;
	}
	if (ret_doc && (json_parse(ans.buf, ans.len, &rf_json_limits, ret_doc,
				   &jerr) < 0 ||
			json_type_of(*ret_doc) != JSON_OBJECT)) {
		strbuf_addf(err,
			    "BMC %s: %s %s: the answer is not a JSON "
			    "object",
			    rf->base.buf, method, path);
		if (jerr.len)
			strbuf_addf(err, " (%s)", jerr.buf);
		json_free(*ret_doc);
		*ret_doc = NULL;
		goto out;
	}
	r = 0;
out:
	strbuf_release(&url);
	strbuf_release(&ans);
	strbuf_release(&jerr);
	return r;
}

/* The path in member "@odata.id" of obj (what: for the error) into out,
 * checked with path_ok(). */
static int odata_id(struct redfish *rf, const struct json_value *obj,
		    const char *what, struct strbuf *out, struct strbuf *err)
{
	const char *id = json_member_string(obj, "@odata.id");

	if (!id || !path_ok(id)) {
		strbuf_addf(err, "BMC %s: %s has no usable @odata.id",
			    rf->base.buf, what);
		if (id) {
			strbuf_addstr(err, " (");
			add_wire_text(err, id);
			strbuf_addch(err, ')');
		}
		return -1;
	}
	strbuf_addstr(out, id);
	return 0;
}

/* rf->system from t->system, or the first member of the collection. */
static int find_system(struct redfish *rf, struct strbuf *err)
{
	struct json_value *doc = NULL;
	const struct json_value *members;
	int r = -1;

	if (rf->t->system) {
		if (!path_ok(rf->t->system)) {
			strbuf_addstr(err, "the Redfish system path is not "
					   "a path under /redfish/v1/");
			return -1;
		}
		strbuf_addstr(&rf->system, rf->t->system);
		return 0;
	}
	if (rf_call(rf, "GET", "/redfish/v1/Systems", NULL, &doc, err) < 0)
		return -1;
	members = json_get(doc, "Members");
	if (json_type_of(members) != JSON_ARRAY || !json_len(members)) {
		strbuf_addf(err, "BMC %s: /redfish/v1/Systems lists no system",
			    rf->base.buf);
		goto out;
	}
	r = odata_id(rf, json_at(members, 0), "the first system", &rf->system,
		     err);
out:
	json_free(doc);
	return r;
}

/* rf->reset and rf->reset_types from the system resource sys. */
static int read_reset_action(struct redfish *rf, const struct json_value *sys,
			     struct strbuf *err)
{
	const struct json_value *act, *allowed;
	const char *target;

	act = json_get(json_get(sys, "Actions"), "#ComputerSystem.Reset");
	target = json_member_string(act, "target");
	if (!target || !path_ok(target)) {
		strbuf_addf(err,
			    "BMC %s: %s has no usable "
			    "#ComputerSystem.Reset action",
			    rf->base.buf, rf->system.buf);
		return -1;
	}
	strbuf_addstr(&rf->reset, target);
	allowed = json_get(act, "ResetType@Redfish.AllowableValues");
	for (size_t i = 0; i < json_len(allowed) && i < 32; i++) {
		const char *v = json_string(json_at(allowed, i));

		if (v && strlen(v) < 64)
			strvec_push(&rf->reset_types, v);
	}
	return 0;
}

/* The password: the first line of t->password_file, a private file. */
static int read_password(struct redfish *rf, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *nl;
	int r;

	if (!rf->t->user || !rf->t->password_file) {
		strbuf_addstr(err, "a Redfish BMC needs bmc_user and "
				   "bmc_password_file");
		return -1;
	}
	r = farm_config_read_trusted(rf->t->password_file, "bmc_password_file",
				     RF_PASSWORD_MAX, 1, &text, err);
	if (r == 0) {
		nl = memchr(text.buf, '\n', text.len);
		strbuf_add(&rf->password, text.buf,
			   nl ? (size_t)(nl - text.buf) : text.len);
		if (rf->password.len &&
		    rf->password.buf[rf->password.len - 1] == '\r')
			strbuf_setlen(&rf->password, rf->password.len - 1);
	}
	explicit_bzero(text.buf, text.len);
	strbuf_release(&text);
	return r < 0 ? -1 : 0;
}

int redfish_open(struct redfish *rf, const struct redfish_target *t,
		 struct strbuf *err)
{
	struct json_value *sys = NULL;
	int r;

	memset(rf, 0, sizeof(*rf));
	rf->t = t;
	strbuf_init(&rf->base, 0);
	strbuf_init(&rf->password, 0);
	strbuf_init(&rf->system, 0);
	strbuf_init(&rf->reset, 0);
	strvec_init(&rf->reset_types);
	if (!t->url || url_host(t->url, NULL) < 0) {
		strbuf_addstr(err, "the Redfish BMC's URL is not "
				   "https://HOST[:PORT]");
		return -1;
	}
	strbuf_addstr(&rf->base, t->url);
	if (rf->base.len && rf->base.buf[rf->base.len - 1] == '/')
		strbuf_setlen(&rf->base, rf->base.len - 1);
	if (read_password(rf, err) < 0 || find_system(rf, err) < 0)
		return -1;
	if (rf_call(rf, "GET", rf->system.buf, NULL, &sys, err) < 0)
		return -1;
	r = read_reset_action(rf, sys, err);
	json_free(sys);
	return r;
}

void redfish_close(struct redfish *rf)
{
	if (rf->password.buf && rf->password.len)
		explicit_bzero(rf->password.buf, rf->password.len);
	strbuf_release(&rf->base);
	strbuf_release(&rf->password);
	strbuf_release(&rf->system);
	strbuf_release(&rf->reset);
	strvec_clear(&rf->reset_types);
}

int redfish_power_status(struct redfish *rf, enum redfish_power *ret,
			 struct strbuf *err)
{
	static const struct {
		const char *name;
		enum redfish_power p;
	} states[] = {
		{ "On", REDFISH_POWER_ON },
		{ "Off", REDFISH_POWER_OFF },
		{ "PoweringOn", REDFISH_POWER_CHANGING },
		{ "PoweringOff", REDFISH_POWER_CHANGING },
		{ "Paused", REDFISH_POWER_ON },
	};
	struct json_value *sys = NULL;
	const char *s;

	if (rf_call(rf, "GET", rf->system.buf, NULL, &sys, err) < 0)
		return -1;
	s = json_member_string(sys, "PowerState");
	for (size_t i = 0; s && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(s, states[i].name)) {
			*ret = states[i].p;
			json_free(sys);
			return 0;
		}
	strbuf_addf(err, "BMC %s: %s has no PowerState the farm knows",
		    rf->base.buf, rf->system.buf);
	if (s) {
		strbuf_addstr(err, " (");
		add_wire_text(err, s);
		strbuf_addch(err, ')');
	}
	json_free(sys);
	return -1;
}

/* Does the BMC allow ResetType type (1 when it did not list any)? */
static int reset_allowed(const struct redfish *rf, const char *type)
{
	if (!rf->reset_types.nr)
		return 1;
	for (size_t i = 0; i < rf->reset_types.nr; i++)
		if (!strcmp(rf->reset_types.v[i], type))
			return 1;
	return 0;
}

/* POST the Reset action with type ("On", "ForceOff", "ForceRestart"). */
static int reset(struct redfish *rf, const char *type, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	int r;

	if (!reset_allowed(rf, type)) {
		strbuf_addf(err, "BMC %s: %s does not allow ResetType %s",
			    rf->base.buf, rf->system.buf, type);
		return -1;
	}
	strbuf_addstr(&body, "{\"ResetType\": ");
	strbuf_add_json_str(&body, type);
	strbuf_addch(&body, '}');
	r = rf_call(rf, "POST", rf->reset.buf, body.buf, NULL, err);
	strbuf_release(&body);
	return r;
}

/*
 * Poll PowerState until it is want, for at most the confirm timeout.  A
 * read that fails is tried again until then (a BMC may be busy while
 * the power changes); its error is the one given at the deadline.
 */
static int confirm(struct redfish *rf, enum redfish_power want,
		   struct strbuf *err)
{
	int64_t limit = rf->t->confirm_timeout_ms > 0
				? rf->t->confirm_timeout_ms
				: 60000;
	int64_t dl = deadline_in(limit);
	struct strbuf last = STRBUF_INIT;
	enum redfish_power p = REDFISH_POWER_CHANGING;
	int r = -1;

	for (;;) {
		strbuf_reset(&last);
		if (redfish_power_status(rf, &p, &last) == 0 && p == want) {
			r = 0;
			break;
		}
		if (deadline_left(dl) <= 0)
			break;
		sleep_ms(rf->t->poll_ms > 0 ? rf->t->poll_ms : 500);
	}
	if (r < 0) {
		strbuf_addf(err, "BMC %s: %s is not %s after %lld ms",
			    rf->base.buf, rf->system.buf,
			    want == REDFISH_POWER_ON ? "On" : "Off",
			    (long long)limit);
		if (last.len)
			strbuf_addf(err, " (%s)", last.buf);
	}
	strbuf_release(&last);
	return r;
}

int redfish_power_set(struct redfish *rf, enum redfish_power want,
		      int *ret_changed, struct strbuf *err)
{
	enum redfish_power p;

	if (ret_changed)
		*ret_changed = 0;
	if (want != REDFISH_POWER_ON && want != REDFISH_POWER_OFF) {
		strbuf_addstr(err, "redfish_power_set: want On or Off");
		return -1;
	}
	if (redfish_power_status(rf, &p, err) < 0)
		return -1;
	if (p == want)
		return 0;
	/* Half way: let the change the BMC is making end first; when it
	 * ends elsewhere, act as from there. */
	if (p == REDFISH_POWER_CHANGING) {
		struct strbuf ignored = STRBUF_INIT;
		int r = confirm(rf, want, &ignored);

		strbuf_release(&ignored);
		if (r == 0)
			return 0;
	}
	if (reset(rf, want == REDFISH_POWER_ON ? "On" : "ForceOff", err) < 0)
		return -1;
	if (ret_changed)
		*ret_changed = 1;
	return confirm(rf, want, err);
}

int redfish_power_cycle(struct redfish *rf, struct strbuf *err)
{
	enum redfish_power p;

	if (redfish_power_status(rf, &p, err) < 0)
		return -1;
	if (p == REDFISH_POWER_OFF)
		return redfish_power_set(rf, REDFISH_POWER_ON, NULL, err);
	if (!reset_allowed(rf, "ForceRestart")) {
		if (redfish_power_set(rf, REDFISH_POWER_OFF, NULL, err) < 0)
			return -1;
		return redfish_power_set(rf, REDFISH_POWER_ON, NULL, err);
	}
	if (reset(rf, "ForceRestart", err) < 0)
		return -1;
	return confirm(rf, REDFISH_POWER_ON, err);
}

int redfish_pxe_once(struct redfish *rf, struct strbuf *err)
{
	static const char body[] = "{\"Boot\": {\"BootSourceOverrideTarget\": "
				   "\"Pxe\", \"BootSourceOverrideEnabled\": "
				   "\"Once\"}}";

	return rf_call(rf, "PATCH", rf->system.buf, body, NULL, err);
}

int redfish_console(struct redfish *rf, struct strbuf *ret_host, int *ret_port,
		    struct strbuf *why_none, struct strbuf *err)
{
	struct json_value *sys = NULL;
	const struct json_value *sc, *tn;
	struct strbuf e = STRBUF_INIT;
	int64_t port = 0;
	int on = 0;

	*ret_port = 0;
	if (rf_call(rf, "GET", rf->system.buf, NULL, &sys, err) < 0)
		return -1;
	sc = json_get(sys, "SerialConsole");
	tn = json_get(sc, "Telnet");
	if (!sc)
		strbuf_addstr(why_none, "the BMC offers no serial console "
					"(no SerialConsole)");
	else if (!tn || json_get_bool(tn, "ServiceEnabled", &on, &e) < 0 || !on)
		strbuf_addstr(why_none, "the BMC offers no telnet serial "
					"console (SerialConsole.Telnet not "
					"enabled)");
	else if (json_get_i64(tn, "Port", 1, 65535, &port, &e) < 0) {
		strbuf_addf(err, "BMC %s: SerialConsole.Telnet: %s",
			    rf->base.buf, e.len ? e.buf : "\"Port\": missing");
		json_free(sys);
		strbuf_release(&e);
		return -1;
	} else {
		url_host(rf->base.buf, ret_host);
		*ret_port = (int)port;
	}
	json_free(sys);
	strbuf_release(&e);
	return 0;
}

/* ---- the redfish host kind (lab/host_kind.h) ---- */

/*
 * What a redfish host keeps in res->kind_data from boot_prepare to
 * release: its BMC as a target (the strings owned here: boot_config is
 * gone by the power-off), the client once opened (kept open for the
 * boot, so a power-off needs no new lookup of the system), and the
 * telnet console's capture while it runs.
 */
struct rf_host {
	struct redfish_target t;
	char *url, *ca_file, *system;
	struct redfish rf;
	int rf_open;
	int use_telnet;
	struct telnet_capture *cap;
};

/* The client of h's BMC, opened on first use; NULL with err when the BMC
 * could not be opened (tried again on the next call). */
static struct redfish *rf_get(struct rf_host *h, struct strbuf *err)
{
	if (h->rf_open)
		return &h->rf;
	if (redfish_open(&h->rf, &h->t, err) < 0) {
		redfish_close(&h->rf);
		return NULL;
	}
	h->rf_open = 1;
	return &h->rf;
}

/* The client as a boot calls it: the plan's power limit bounds each
 * request (a third of it) and each confirm (all of it), as for ipmi. */
static struct redfish *boot_rf(struct boot_ctx *c, struct strbuf *err)
{
	struct rf_host *h = c->res->kind_data;

	h->t.call_timeout_ms = 0;
	h->t.confirm_timeout_ms = 0;
	if (c->req->power_ms > 0) {
		int64_t lim =
			c->req->power_ms > 3600000 ? 3600000 : c->req->power_ms;

		h->t.confirm_timeout_ms = (int)lim;
		if (lim / 3 < 10000)
			h->t.call_timeout_ms =
				(int)(lim / 3 > 1000 ? lim / 3 : 1000);
	}
	return rf_get(h, err);
}

/*
 * The BMC's URL (https://ADDRESS:PORT, an IPv6 address in brackets), the
 * CA file and the system from boot_config, the console (a telnet one the
 * BMC offers, unless boot_config.console_log names a file a lab console
 * server writes), kexec as ipmi reads it.  Nothing is asked of the BMC
 * here: the sweep runs this too, and must reach the power-off.
 */
static int prepare(struct boot_ctx *c, struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct strbuf e = STRBUF_INIT;
	struct rf_host *h;
	int v = 1;

	if (!res->bmc_address || !res->bmc_user || !res->bmc_password_file) {
		strbuf_addf(err,
			    "host %s needs bmc_address, bmc_user and "
			    "bmc_password_file (a Redfish BMC)",
			    res->host_name);
		return -1;
	}
	h = xcalloc(1, sizeof(*h));
	h->url = strchr(res->bmc_address, ':')
			 ? xstrfmt("https://[%s]:%d", res->bmc_address,
				   res->bmc_port)
			 : xstrfmt("https://%s:%d", res->bmc_address,
				   res->bmc_port);
	h->ca_file = xstrdup_or_null(boot_cfg_str(c, "redfish_ca_file", NULL));
	h->system = xstrdup_or_null(boot_cfg_str(c, "redfish_system", NULL));
	h->t.url = h->url;
	h->t.system = h->system;
	h->t.user = res->bmc_user;
	h->t.password_file = res->bmc_password_file;
	h->t.ca_file = h->ca_file;
	h->use_telnet = !boot_cfg_str(c, "console_log", NULL);
	res->kind_data = h;
	if (json_get_bool(c->cfg, "kexec", &v, &e) < 0)
		v = 1;
	c->kexec = v;
	strbuf_release(&e);
	c->capture_console = h->use_telnet;
	c->needs_locks = 0;
	return 0;
}

static int power_status(struct boot_ctx *c, int *ret_on, struct strbuf *err)
{
	struct redfish *rf = boot_rf(c, err);
	enum redfish_power p;

	if (!rf || redfish_power_status(rf, &p, err) < 0)
		return -1;
	*ret_on = p == REDFISH_POWER_ON;
	return 0;
}

/*
 * The console of a Redfish boot: the BMC's telnet serial console
 * captured into res->console_path (boot.c named it in the state folder's
 * console/) before any power change.  A BMC that offers none fails the
 * boot: the boot is watched through its console, so such a host needs
 * boot_config.console_log.
 */
static int console_start(struct boot_ctx *c, struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct rf_host *h = res->kind_data;
	struct strbuf host = STRBUF_INIT, none = STRBUF_INIT;
	struct redfish *rf;
	int port = 0, r = -1;

	if (!h->use_telnet)
		return 0;
	rf = boot_rf(c, err);
	if (!rf || redfish_console(rf, &host, &port, &none, err) < 0)
		goto out;
	if (!port) {
		strbuf_addf(err,
			    "BMC %s: %s, and host %s has no "
			    "boot_config.console_log",
			    h->url, none.buf, res->host_name);
		goto out;
	}
	if (telnet_capture_start(host.buf, port, res->console_path,
				 h->t.call_timeout_ms, &h->cap, err) < 0) {
		strbuf_addstr(err, " (the BMC's telnet serial console)");
		goto out;
	}
	boot_event(c, "console: telnet %s:%d from BMC %s into %s", host.buf,
		   port, h->url, res->console_path);
	r = 0;
out:
	strbuf_release(&host);
	strbuf_release(&none);
	return r;
}

/*
 * The next boot, once, from the network (BootSourceOverrideTarget Pxe,
 * Enabled Once); boot_config.bootdev "none" sends nothing, and a host row
 * whose BMC does not support it (hosts.bmc_bootdev unsupported) makes a
 * refusal a warning, as for ipmi.
 */
static int pxe_next(struct boot_ctx *c, struct strbuf *err)
{
	struct rf_host *h = c->res->kind_data;
	struct redfish *rf;

	if (!strcmp(boot_cfg_str(c, "bootdev", "pxe"), "none")) {
		boot_event(c,
			   "BMC %s: no boot override sent "
			   "(boot_config.bootdev is none)",
			   h->url);
		return 0;
	}
	rf = boot_rf(c, err);
	if (!rf)
		return -1;
	if (redfish_pxe_once(rf, err) < 0) {
		if (strcmp(c->bmc_bootdev, "unsupported"))
			return -1;
		boot_event(c,
			   "warning: %s (the host row says this BMC does not "
			   "support the PXE override); relying on the host's "
			   "boot order",
			   err->buf);
		strbuf_reset(err);
		return 0;
	}
	boot_event(c, "BMC %s: next boot from Pxe (override Once)", h->url);
	return 0;
}

static int bmc_power_on(struct boot_ctx *c, struct strbuf *err)
{
	struct redfish *rf = boot_rf(c, err);

	return rf ? redfish_power_set(rf, REDFISH_POWER_ON, NULL, err) : -1;
}

static int bmc_power_cycle(struct boot_ctx *c, struct strbuf *err)
{
	struct redfish *rf = boot_rf(c, err);

	return rf ? redfish_power_cycle(rf, err) : -1;
}

static const struct boot_bmc_ops redfish_bmc = {
	.power_status = power_status,
	.console_start = console_start,
	.pxe_next = pxe_next,
	.power_on = bmc_power_on,
	.power_cycle = bmc_power_cycle,
};

static int power_on(struct db *db, struct boot_ctx *c, const char *cmdline,
		    uint64_t *ret_offset, struct strbuf *err)
{
	return boot_bmc_pxe(db, c, cmdline, &redfish_bmc, ret_offset, err);
}

/* Keep the telnet capture alive; see host_kind.h. */
static void console_keep(struct boot_result *res, struct strbuf *note)
{
	struct rf_host *h = res->kind_data;
	struct strbuf e = STRBUF_INIT;
	int reopened = 0;

	if (!h || !h->cap)
		return;
	if (telnet_capture_check(h->cap, &reopened, &e) < 0)
		strbuf_addf(note, "console: %s", e.buf);
	else if (reopened)
		strbuf_addstr(note, "console: the telnet console was reopened");
	strbuf_release(&e);
}

/* Free the capture, the client (its password wiped) and h. */
static void release(struct boot_result *res)
{
	struct rf_host *h = res->kind_data;

	if (!h)
		return;
	telnet_capture_stop(h->cap);
	if (h->rf_open)
		redfish_close(&h->rf);
	free(h->url);
	free(h->ca_file);
	free(h->system);
	free(h);
	res->kind_data = NULL;
}

/*
 * Power off through the BMC (Reset ForceOff, confirmed Off), recorded as
 * a power operation; after a failed boot each request gets less time.
 * The console capture ends here (from power-on to power-off); the client
 * stays for release.
 */
static int power_off(struct db *db, struct boot_result *res,
		     enum host_kind_off why, struct strbuf *err)
{
	struct rf_host *h = res->kind_data;
	int64_t op;
	struct redfish *rf;
	int r = -1;

	if (!h) {
		strbuf_addf(err, "host %s: no Redfish BMC read",
			    res->host_name);
		return -1;
	}
	op = boot_power_op_begin(db, res, "off");
	h->t.call_timeout_ms = why == HOST_KIND_OFF_FAILED ? 5000 : 0;
	h->t.confirm_timeout_ms = 0;
	rf = rf_get(h, err);
	if (rf)
		r = redfish_power_set(rf, REDFISH_POWER_OFF, NULL, err);
	boot_power_op_end(db, op, r, err);
	telnet_capture_stop(h->cap);
	h->cap = NULL;
	return r;
}

/* 1 when s is a host name or an IP address (no brackets, no port). */
static int bmc_address_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 253 && s[0] != '-' && s[0] != '.' &&
	       strspn(s, "0123456789abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ.:-_") == n;
}

/*
 * `host add --kind redfish` needs the BMC (--bmc-address, --bmc-user,
 * --bmc-password-file) and what the booted host is reached by over SSH
 * (--address, --known-hosts: host keys are never accepted unverified);
 * a BMC address, added or set, is a host name or an IP address.
 */
static int check_fields(const struct host_fields *f, int adding,
			struct strbuf *err)
{
	if (adding &&
	    (!f->bmc_address || !f->bmc_user || !f->bmc_password_file ||
	     !f->address || !f->known_hosts)) {
		strbuf_addstr(err, "a redfish host needs --bmc-address, "
				   "--bmc-user, --bmc-password-file, "
				   "--address and --known-hosts");
		return -1;
	}
	if (f->bmc_address && !bmc_address_ok(f->bmc_address)) {
		strbuf_addstr(err, "a redfish host's --bmc-address is a host "
				   "name or an IP address (no brackets, no "
				   "port: --bmc-port)");
		return -1;
	}
	return 0;
}

const struct host_kind kind_redfish = {
	.name = "redfish",
	.boots = 1,
	.boot_method = "redfish-pxe",
	.bmc_port = 443,
	.check_fields = check_fields,
	.boot_prepare = prepare,
	.power_on = power_on,
	.console_keep = console_keep,
	.power_off = power_off,
	.release = release,
};
