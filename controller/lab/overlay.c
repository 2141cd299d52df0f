/*
 * overlay.c - copy-on-write layers over a folder; see overlay.h.
 *
 * The build of a submitted series (build_layer.c) sees the base's tree
 * through one of these: whatever it writes, objects with future dates
 * included, is copied up into the layer's upper/ and thrown away with
 * the layer, never written into the tree the next build starts from.
 * A layer left mounted by a killed build or controller is found again
 * in /proc/self/mountinfo by overlay_sweep().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/overlay.h"
#include "cleanup.h"
#include "fs.h"
#include "strvec.h"
#include "banned.h"

/* overlay's mount options split on ',' and lowerdir on ':'; '\\'
 * escapes both.  A path with any of them is refused, not escaped. */
static int plain_path(const char *path, struct strbuf *err)
{
	if (strpbrk(path, ",:\\")) {
		strbuf_addf(err,
			    "cannot make a layer over %s: the path holds ',' "
			    "':' or '\\'",
			    path);
		return -1;
	}
	return 0;
}

/* mkdir path (mode), then give it owner, group and mode of like. */
static int make_like(const char *path, const struct stat *like,
		     struct strbuf *err)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	if (!like)
		return 0;
	if (chown(path, like->st_uid, like->st_gid) < 0 ||
	    chmod(path, like->st_mode & 07777) < 0) {
		strbuf_addf(err, "cannot set the owner of %s: %s", path,
			    strerror(errno));
		return -1;
	}
	return 0;
}

int overlay_mount(const char *lower, const char *layer,
		  struct strbuf *ret_merged, struct strbuf *err)
{
	struct strbuf up = STRBUF_INIT, work = STRBUF_INIT,
		      merged = STRBUF_INIT, opts = STRBUF_INIT;
	_cleanup_free_ char *low = realpath(lower, NULL);
	_cleanup_free_ char *lay = NULL;
	struct stat st;
	int r = -1;

	if (!low || stat(low, &st) < 0 || !S_ISDIR(st.st_mode)) {
		strbuf_addf(err, "cannot make a layer over %s: %s", lower,
			    low ? "not a folder" : strerror(errno));
		return -1;
	}
	if (mkdir_p(layer, 0700, err) < 0)
		return -1;
	lay = realpath(layer, NULL);
	if (!lay) {
		strbuf_addf(err, "cannot resolve %s: %s", layer,
			    strerror(errno));
		return -1;
	}
	if (plain_path(low, err) < 0 || plain_path(lay, err) < 0)
		return -1;
	strbuf_addf(&up, "%s/upper", lay);
	strbuf_addf(&work, "%s/work", lay);
	strbuf_addf(&merged, "%s/merged", lay);
	if (make_like(up.buf, &st, err) < 0 ||
	    make_like(work.buf, NULL, err) < 0 ||
	    make_like(merged.buf, NULL, err) < 0)
		goto out;
	strbuf_addf(&opts, "lowerdir=%s,upperdir=%s,workdir=%s", low, up.buf,
		    work.buf);
	if (mount("overlay", merged.buf, "overlay", MS_NODEV | MS_NOSUID,
		  opts.buf) < 0) {
		strbuf_addf(err, "cannot mount a layer over %s on %s: %s", low,
			    merged.buf, strerror(errno));
		goto out;
	}
	strbuf_addbuf(ret_merged, &merged);
	r = 0;
out:
	strbuf_release(&up);
	strbuf_release(&work);
	strbuf_release(&merged);
	strbuf_release(&opts);
	return r;
}

/* mountinfo's octal escapes (\040 for a space) undone, in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* The mount points at or below dir, in mountinfo's order, into ret. */
static int mounts_below(const char *dir, struct strvec *ret, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	size_t n = strlen(dir);
	int r = strbuf_read_file(&body, "/proc/self/mountinfo", 16u << 20);

	if (r < 0) {
		strbuf_addf(err, "cannot read /proc/self/mountinfo: %s",
			    strerror(-r));
		strbuf_release(&body);
		return -1;
	}
	strvec_split(&lines, body.buf, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		char *f = lines.v[i], *end;

		for (int k = 0; k < 4 && f; k++) {
			f = strchr(f, ' ');
			if (f)
				f++;
		}
		if (!f)
			continue;
		end = strchr(f, ' ');
		if (end)
			*end = '\0';
		unescape(f);
		if (!strncmp(f, dir, n) && (f[n] == '\0' || f[n] == '/'))
			strvec_push(ret, f);
	}
	strvec_clear(&lines);
	strbuf_release(&body);
	return 0;
}

int overlay_sweep(const char *dir, struct strbuf *err)
{
	_cleanup_free_ char *real = realpath(dir, NULL);
	struct strvec points = STRVEC_INIT;
	int r = 0;

	if (!real) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "cannot resolve %s: %s", dir, strerror(errno));
		return -1;
	}
	if (mounts_below(real, &points, err) < 0)
		return -1;
	/* Later mounts may sit on earlier ones: the last first. */
	for (size_t i = points.nr; i-- > 0;) {
		const char *p = points.v[i];

		if (umount2(p, 0) == 0 || errno == EINVAL || errno == ENOENT)
			continue;
		if (errno == EBUSY && umount2(p, MNT_DETACH) == 0)
			continue;
		strbuf_addf(err, "cannot unmount the layer %s: %s", p,
			    strerror(errno));
		r = -1;
	}
	strvec_clear(&points);
	return r;
}

int overlay_discard(const char *dir, struct strbuf *err)
{
	_cleanup_free_ char *real = NULL;
	struct strvec left = STRVEC_INIT;
	int r;

	if (overlay_sweep(dir, err) < 0)
		return -1;
	real = realpath(dir, NULL);
	if (!real)
		return errno == ENOENT ? 0 : remove_tree(dir, err);
	/* Never remove through a mount still there: that would reach
	 * into the folder below it. */
	r = mounts_below(real, &left, err);
	if (!r && left.nr) {
		strbuf_addf(err, "the layer %s is still mounted: not removed",
			    left.v[0]);
		r = -1;
	}
	strvec_clear(&left);
	return r < 0 ? -1 : remove_tree(dir, err);
}
