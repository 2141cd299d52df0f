/*
 * boot_step.c - the steps every boot shares, whatever its host kind: the
 * progress log, boot_config values, power operations recorded under the
 * boot's controller, SSH to the booted host, the console file read.  The
 * boot driver (boot.c) and the kinds' power phases (kind_*.c) call these;
 * nothing here calls either of them.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "lab/boot-int.h"
#include "lab/ssh.h"
#include "store/controllers.h"
#include "time-util.h"
#include "banned.h"

void boot_event(struct boot_ctx *c, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&msg, "+%.1fs ", (double)(mono_ms() - c->t0) / 1000.0);
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	strbuf_addbuf(&c->res->log, &msg);
	strbuf_addch(&c->res->log, '\n');
	if (c->req->on_event)
		c->req->on_event(c->req->ctx, msg.buf);
	strbuf_release(&msg);
}

/* A string from boot_config (pointing into c->cfg), or def when absent. */
const char *boot_cfg_str(struct boot_ctx *c, const char *key, const char *def)
{
	const char *s;
	struct strbuf e = STRBUF_INIT;

	if (json_get_string(c->cfg, key, 4096, &s, &e) < 0)
		s = def;
	strbuf_release(&e);
	return s;
}

int64_t boot_cfg_i64(struct boot_ctx *c, const char *key, int64_t min,
		     int64_t max, int64_t def)
{
	int64_t v;
	struct strbuf e = STRBUF_INIT;

	if (json_get_i64(c->cfg, key, min, max, &v, &e) < 0)
		v = def;
	strbuf_release(&e);
	return v;
}

/* See boot-int.h. */
int64_t boot_power_op_begin(struct db *db, const struct boot_result *res,
			    const char *op)
{
	struct strbuf e = STRBUF_INIT;
	int64_t id = 0;

	if (db && res->host_id)
		controllers_power_begin(db, res->host_id, op,
					res->controller_id, res->job_id,
					res->boot_id, &id, &e);
	strbuf_release(&e);
	return id;
}

void boot_power_op_end(struct db *db, int64_t id, int r,
		       const struct strbuf *why)
{
	struct strbuf e = STRBUF_INIT;

	if (db && id)
		controllers_power_end(
			db, id, r < 0 ? (why->len ? why->buf : "failed") : NULL,
			&e);
	strbuf_release(&e);
}

int boot_ssh_run(const struct boot_result *res, const char *cmd, int timeout_ms,
		 struct strbuf *out, struct strbuf *err)
{
	/* The host row's SSH fields, as the job path's runner uses them
	 * (boot_job.c copies them into jc->target): the known_hosts file
	 * written for the guest before its boot, the controller's key. */
	const struct ssh_target t = {
		.address = res->ssh_addr,
		.port = res->ssh_port,
		.user = res->ssh_user,
		.key_file = res->key_file,
		.known_hosts = res->known_hosts,
	};

	return ssh_run_once(&t, cmd, timeout_ms, out, NULL, err);
}

/* Feed what was appended to the console since *off. */
void boot_pump_console(int fd, uint64_t *off, struct console_scanner *cs,
		       int64_t now)
{
	char buf[8192];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), (off_t)*off)) > 0) {
		console_scanner_feed(cs, buf, (size_t)n, now);
		*off += (uint64_t)n;
	}
}

/* The console text of this boot (from offset), for the boots row. */
void boot_read_console(const char *path, uint64_t off, struct strbuf *out)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), (off_t)off)) > 0) {
		/* Keep roughly the last CONSOLE_DB_MAX bytes. */
		if (out->len > 2 * CONSOLE_DB_MAX) {
			memmove(out->buf, out->buf + out->len - CONSOLE_DB_MAX,
				CONSOLE_DB_MAX);
			strbuf_setlen(out, CONSOLE_DB_MAX);
		}
		strbuf_add(out, buf, (size_t)n);
		off += (uint64_t)n;
	}
}
