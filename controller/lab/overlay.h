/*
 * overlay.h - a copy-on-write layer over a folder (overlayfs), so that a
 * build of a submitted series can write "into" the base's incremental
 * tree while every byte it writes lands in a folder of its own.
 *
 * A layer is a folder LAYER holding upper/ (what the build wrote),
 * work/ (overlayfs's scratch) and merged/ (the mount: the lower folder
 * with upper/ over it).  Only a root controller can mount one (mount(2)
 * with the "overlay" type; no mount(8) command line).  Nothing here
 * prints.
 */
#ifndef SCHEDFARM_OVERLAY_H
#define SCHEDFARM_OVERLAY_H

#include "strbuf.h"

/*
 * Make layer/{upper,work,merged} (layer must not exist yet, or be empty)
 * and mount an overlay of lower with layer/upper over it on layer/merged.
 * upper/ gets lower's owner, group and mode, so the merged folder's top
 * looks as lower's does to whoever may write it.  The merged path is
 * appended to ret_merged.  Paths holding ',' ':' or '\\' are refused
 * (overlay's option syntax).  0, or -1 with err.
 */
int overlay_mount(const char *lower, const char *layer,
		  struct strbuf *ret_merged, struct strbuf *err);

/*
 * Unmount every mount at or below dir (the mounts of this process's
 * namespace, from /proc/self/mountinfo), deepest first; a busy one is
 * detached (MNT_DETACH).  A dir that does not exist is nothing to do.
 * 0, or -1 with err.
 */
int overlay_sweep(const char *dir, struct strbuf *err);

/*
 * Throw a layer (or a folder of layers) away: overlay_sweep(), then its
 * files removed.  Refuses to remove anything while a mount is still
 * found below dir.  0, or -1 with err.
 */
int overlay_discard(const char *dir, struct strbuf *err);

#endif
