/*
 * svg.h - inline SVG plots for the report pages.
 *
 * The report draws three kinds of picture, all through this one module:
 * a metric over a swept parameter (threads, users, jobs) for the base and
 * the patched kernel with shaded bands, per-observation dot plots in run
 * order, and time series such as the CPU share of each task or group.
 * Every plot gets both axes with ticks, an axis label with its unit, and a
 * legend; all text is HTML-escaped here, so callers may pass strings that
 * came from a user, a plan or an agent.  Pages carry no script: the SVG is
 * static markup with presentation attributes only (no style attributes,
 * which a strict Content-Security-Policy would refuse).
 */
#ifndef SCHEDFARM_SVG_H
#define SCHEDFARM_SVG_H

#include <stddef.h>

#include "strbuf.h"

enum svg_kind {
	SVG_LINE, /* points joined by a line, with markers */
	SVG_DOTS, /* markers only */
};

struct svg_series {
	char *name; /* legend text (owned) */
	enum svg_kind kind;
	size_t n, alloc;
	double *x, *y;
	double *lo, *hi; /* band around y; NaN where a point has none */
	int has_band;
};

/* A vertical marker at x (a change point), with what it marks. */
struct svg_vline {
	double x;
	char *label; /* owned; the marker's <title> */
};

struct svg_plot {
	char *title; /* owned; shown above the plot */
	char *x_label, *x_unit; /* owned; unit may be "" */
	char *y_label, *y_unit;
	char *band_note; /* legend text for the bands, or NULL */
	int x_log2; /* powers-of-two axis (thread sweeps) */
	int width, height; /* the plot area's outer size in px */
	struct svg_series *series;
	size_t nseries, alloc;
	struct svg_vline *vlines; /* dashed, across the plot area */
	size_t nvlines, vlines_alloc;
	char *vline_note; /* legend text for the markers, or NULL */
};

/*
 * Start a plot.  All strings are copied; any may be NULL (treated as "").
 * The default size is 640x320; callers may change width and height.
 */
void svg_plot_init(struct svg_plot *p, const char *title, const char *x_label,
		   const char *x_unit, const char *y_label, const char *y_unit);
void svg_plot_release(struct svg_plot *p);
/* Add a series and return its index (its colour is the index's). */
size_t svg_plot_add_series(struct svg_plot *p, const char *name,
			   enum svg_kind kind);
/*
 * Add a point to series idx.  lo/hi give its band; pass NAN for both when
 * the point has none.  Non-finite x or y are skipped, so a missing number
 * leaves a gap in the picture instead of a line to zero.
 */
void svg_series_add(struct svg_plot *p, size_t idx, double x, double y,
		    double lo, double hi);
/* Set what the shaded bands mean, for the legend ("95% CI"). */
void svg_plot_set_band_note(struct svg_plot *p, const char *note);
/*
 * Mark x with a dashed vertical line across the plot (class
 * "change-point"), label as its tooltip; note names the markers in the
 * legend (the last call's note is kept).  A non-finite x is skipped.
 */
void svg_plot_add_vline(struct svg_plot *p, double x, const char *label,
			const char *note);

/*
 * Append the plot as an inline <svg> element to out.  Returns the number
 * of points drawn (0 when there was nothing finite to draw; the SVG then
 * says so in place of the data, still with its axes), or -1 with err
 * filled when the plot is unusable (no series).  With x_log2 and a
 * non-positive x the axis falls back to linear.
 */
int svg_plot_write(const struct svg_plot *p, struct strbuf *out,
		   struct strbuf *err);

/*
 * Tick positions for a linear axis over [lo, hi]: "nice" values (1, 2 or
 * 5 times a power of ten) with about target ticks.  Writes at most max
 * values to ticks and returns how many; the step is stored in *ret_step.
 * Exposed for the unit tests.
 */
size_t svg_nice_ticks(double lo, double hi, int target, double *ticks,
		      size_t max, double *ret_step);
/* Format a tick value with as many decimals as step needs. */
void svg_format_tick(struct strbuf *out, double v, double step);

#endif
