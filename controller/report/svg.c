/*
 * svg.c - inline SVG plots: axes with nice ticks, bands, markers, legend.
 *
 * The output is plain markup meant to be read by a person first: axis
 * labels carry units, colours come from the Okabe-Ito palette (readable by
 * the colour-blind) and each series also has its own marker shape, so a
 * printed page in grey still tells base from patch.  Classes on the groups
 * ("axis x-axis", "axis-label", "legend", "series") let the browser tests
 * check that every plot has what a reader needs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "report/svg.h"
#include "banned.h"

static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7",
	"#e69f00", "#56b4e9", "#6b6b6b", "#000000",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* Plot geometry, in px of the SVG's own coordinates. */
#define M_LEFT 78
#define M_RIGHT 18
#define M_TOP 30
#define M_BOTTOM 46
#define LEGEND_ROW 18
#define CHAR_W 6.6

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

void svg_plot_init(struct svg_plot *p, const char *title, const char *x_label,
		   const char *x_unit, const char *y_label, const char *y_unit)
{
	memset(p, 0, sizeof(*p));
	p->title = dup_or_empty(title);
	p->x_label = dup_or_empty(x_label);
	p->x_unit = dup_or_empty(x_unit);
	p->y_label = dup_or_empty(y_label);
	p->y_unit = dup_or_empty(y_unit);
	p->width = 640;
	p->height = 320;
}

void svg_plot_release(struct svg_plot *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nvlines; i++)
		free(p->vlines[i].label);
	free(p->vlines);
	free(p->vline_note);
	for (size_t i = 0; i < p->nseries; i++) {
		struct svg_series *s = &p->series[i];

		free(s->name);
		free(s->x);
		free(s->y);
		free(s->lo);
		free(s->hi);
	}
	free(p->series);
	free(p->title);
	free(p->x_label);
	free(p->x_unit);
	free(p->y_label);
	free(p->y_unit);
	free(p->band_note);
	memset(p, 0, sizeof(*p));
}

size_t svg_plot_add_series(struct svg_plot *p, const char *name,
			   enum svg_kind kind)
{
	struct svg_series *s;

	ALLOC_GROW(p->series, p->nseries + 1, p->alloc);
	s = &p->series[p->nseries];
	memset(s, 0, sizeof(*s));
	s->name = dup_or_empty(name);
	s->kind = kind;
	return p->nseries++;
}

void svg_series_add(struct svg_plot *p, size_t idx, double x, double y,
		    double lo, double hi)
{
	struct svg_series *s;
	size_t old;

	if (idx >= p->nseries || !isfinite(x) || !isfinite(y))
		return;
	s = &p->series[idx];
	old = s->alloc;
	ALLOC_GROW(s->x, s->n + 1, s->alloc);
	/* The four arrays grow together: same count, same capacity. */
	if (s->alloc != old) {
		s->y = xrealloc(s->y, sizeof(double) * s->alloc);
		s->lo = xrealloc(s->lo, sizeof(double) * s->alloc);
		s->hi = xrealloc(s->hi, sizeof(double) * s->alloc);
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->lo[s->n] = isfinite(lo) && isfinite(hi) ? lo : NAN;
	s->hi[s->n] = isfinite(lo) && isfinite(hi) ? hi : NAN;
	if (isfinite(lo) && isfinite(hi))
		s->has_band = 1;
	s->n++;
}

void svg_plot_add_vline(struct svg_plot *p, double x, const char *label,
			const char *note)
{
	if (!isfinite(x))
		return;
	ALLOC_GROW(p->vlines, p->nvlines + 1, p->vlines_alloc);
	p->vlines[p->nvlines].x = x;
	p->vlines[p->nvlines].label = dup_or_empty(label);
	p->nvlines++;
	free(p->vline_note);
	p->vline_note = dup_or_empty(note);
}

void svg_plot_set_band_note(struct svg_plot *p, const char *note)
{
	free(p->band_note);
	p->band_note = note ? xstrdup(note) : NULL;
}

size_t svg_nice_ticks(double lo, double hi, int target, double *ticks,
		      size_t max, double *ret_step)
{
	double span, raw, mag, norm, step, t;
	size_t n = 0;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo || target < 1) {
		*ret_step = 1;
		return 0;
	}
	span = hi - lo;
	if (span <= 0)
		span = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
	raw = span / target;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		step = 1 * mag;
	else if (norm < 3.5)
		step = 2 * mag;
	else if (norm < 7.5)
		step = 5 * mag;
	else
		step = 10 * mag;
	*ret_step = step;
	for (t = ceil(lo / step - 1e-9) * step;
	     t <= hi + step * 1e-9 && n < max; t += step) {
		/* Snap -0 and rounding dust to the grid. */
		double v = round(t / step) * step;

		ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

void svg_format_tick(struct strbuf *out, double v, double step)
{
	int dec = 0;

	if (step > 0 && step < 1)
		dec = (int)ceil(-log10(step) - 1e-9);
	if (dec > 9)
		dec = 9;
	if (fabs(v) >= 1e7 && dec == 0) {
		strbuf_addf(out, "%.3g", v);
		return;
	}
	strbuf_addf(out, "%.*f", dec, v);
}

/* Append at most max bytes of s, escaped, cut on a UTF-8 boundary. */
static void add_text_cut(struct strbuf *out, const char *s, size_t max)
{
	size_t len = strlen(s);
	char *cut;

	if (len <= max) {
		strbuf_add_html(out, s);
		return;
	}
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	cut = xstrndup(s, max);
	strbuf_add_html(out, cut);
	strbuf_addstr(out, "\xe2\x80\xa6"); /* an ellipsis */
	free(cut);
}

static size_t utf8_chars(const char *s, size_t max_bytes)
{
	size_t n = 0;

	for (size_t i = 0; i < max_bytes && s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/* The axis label: "threads", or "throughput (records/s)" with a unit. */
static void add_axis_label(struct strbuf *out, const char *label,
			   const char *unit)
{
	strbuf_add_html(out, label);
	if (unit && *unit) {
		strbuf_addstr(out, " (");
		strbuf_add_html(out, unit);
		strbuf_addch(out, ')');
	}
}

/* Draw marker shape (by series index) at (cx, cy). */
static void add_marker(struct strbuf *out, size_t idx, double cx, double cy,
		       const char *colour)
{
	switch (idx % 4) {
	case 0:
		strbuf_addf(out,
			    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" "
			    "fill=\"%s\"/>",
			    cx, cy, colour);
		break;
	case 1:
		strbuf_addf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" "
			    "height=\"6\" fill=\"%s\"/>",
			    cx - 3, cy - 3, colour);
		break;
	case 2:
		strbuf_addf(out,
			    "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
			    "fill=\"%s\"/>",
			    cx, cy - 4, cx + 3.6, cy + 2.6, cx - 3.6, cy + 2.6,
			    colour);
		break;
	default:
		strbuf_addf(out,
			    "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f "
			    "%.1fZ\" fill=\"%s\"/>",
			    cx, cy - 4, cx + 4, cy, cx, cy + 4, cx - 4, cy,
			    colour);
	}
}

struct axis {
	double lo, hi; /* in axis units (log2 of x when log) */
	int log2;
	double ticks[64];
	size_t nticks;
	double step;
};

static double axis_value(const struct axis *a, double v)
{
	return a->log2 ? log2(v) : v;
}

/*
 * Fit an axis to [lo, hi] (data units).  Integer data (run order) gets
 * integer ticks; a log2 axis gets one tick per power of two, thinned to
 * at most 10.
 */
static void axis_fit(struct axis *a, double lo, double hi, int log2_axis,
		     int integers, int target)
{
	memset(a, 0, sizeof(*a));
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	a->log2 = log2_axis;
	if (log2_axis) {
		int e0 = (int)floor(log2(lo) + 1e-9),
		    e1 = (int)ceil(log2(hi) - 1e-9);
		int every;

		if (e1 <= e0)
			e1 = e0 + 1;
		every = (e1 - e0 + 9) / 10;
		if (every < 1)
			every = 1;
		a->lo = e0;
		a->hi = e1;
		for (int e = e0; e <= e1 && a->nticks < ARRAY_SIZE(a->ticks);
		     e += every)
			a->ticks[a->nticks++] = e;
		a->step = 1;
		return;
	}
	if (hi <= lo) {
		double d = fabs(lo) > 0 ? fabs(lo) * 0.05 : 1;

		lo -= d;
		hi += d;
	}
	svg_nice_ticks(lo, hi, target, a->ticks, ARRAY_SIZE(a->ticks),
		       &a->step);
	if (integers && a->step < 1) {
		a->step = 1;
	}
	a->lo = floor(lo / a->step + 1e-9) * a->step;
	a->hi = ceil(hi / a->step - 1e-9) * a->step;
	if (a->hi <= a->lo)
		a->hi = a->lo + a->step;
	a->nticks = 0;
	for (double t = a->lo;
	     t <= a->hi + a->step * 1e-6 && a->nticks < ARRAY_SIZE(a->ticks);
	     t += a->step)
		a->ticks[a->nticks++] = fabs(t) < a->step * 1e-9 ? 0 : t;
}

static void format_axis_tick(struct strbuf *out, const struct axis *a, double t)
{
	if (a->log2)
		svg_format_tick(out, exp2(t), 1);
	else
		svg_format_tick(out, t, a->step);
}

/* Legend entry i: the series, then the bands' note, then the markers'. */
static const char *legend_name(const struct svg_plot *p, size_t i)
{
	if (i < p->nseries)
		return p->series[i].name;
	if (i == p->nseries && p->band_note)
		return p->band_note;
	return p->vline_note;
}

static int all_dots(const struct svg_plot *p)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (p->series[i].kind != SVG_DOTS)
			return 0;
	return 1;
}

/*
 * Where svg_plot_write() draws: the two axes fitted to the data, the
 * plot area (pw x ph, its bottom left corner at x0, y0), the height with
 * the legend, and how many points there are.
 */
struct frame {
	struct axis ax, ay;
	double pw, ph, x0, y0;
	int total_h, npoints;
};

/* A data x, y as an SVG coordinate in fr's plot area. */
static double px(const struct frame *fr, double v)
{
	return fr->x0 + (axis_value(&fr->ax, v) - fr->ax.lo) /
				(fr->ax.hi - fr->ax.lo) * fr->pw;
}

static double py(const struct frame *fr, double v)
{
	return fr->y0 - (v - fr->ay.lo) / (fr->ay.hi - fr->ay.lo) * fr->ph;
}

/*
 * Fit fr's axes to every point of p (bars and change points included):
 * a log2 x axis when p asks for it and every x is positive, integer ticks
 * when every x is whole, dot plots kept off the axes.  Sets fr->npoints.
 */
static void frame_fit_axes(const struct svg_plot *p, struct frame *fr)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY,
	       ymax = -INFINITY;
	int log2_axis = p->x_log2, integers = 1, npoints = 0;

	for (size_t i = 0; i < p->nseries; i++) {
		const struct svg_series *s = &p->series[i];

		for (size_t j = 0; j < s->n; j++) {
			if (s->x[j] <= 0)
				log2_axis = 0;
			if (s->x[j] != floor(s->x[j]))
				integers = 0;
			xmin = fmin(xmin, s->x[j]);
			xmax = fmax(xmax, s->x[j]);
			ymin = fmin(ymin, s->y[j]);
			ymax = fmax(ymax, s->y[j]);
			if (isfinite(s->lo[j])) {
				ymin = fmin(ymin, fmin(s->lo[j], s->hi[j]));
				ymax = fmax(ymax, fmax(s->lo[j], s->hi[j]));
			}
			npoints++;
		}
	}
	for (size_t i = 0; i < p->nvlines && npoints; i++) {
		xmin = fmin(xmin, p->vlines[i].x);
		xmax = fmax(xmax, p->vlines[i].x);
		if (p->vlines[i].x != floor(p->vlines[i].x))
			integers = 0;
	}
	if (!npoints)
		log2_axis = 0;
	/* Dots only (run order): keep the first and last off the axes. */
	if (npoints && !log2_axis && all_dots(p)) {
		double pad = integers ? 0.5 : (xmax - xmin) * 0.03;

		xmin -= pad;
		xmax += pad;
	}
	axis_fit(&fr->ax, xmin, xmax, log2_axis, integers, 8);
	axis_fit(&fr->ay, ymin, ymax, 0, 0, 6);
	fr->npoints = npoints;
}

/* How many entries the legend has: the series, then the notes. */
static size_t legend_entries(const struct svg_plot *p)
{
	return p->nseries + (p->band_note ? 1 : 0) +
	       (p->nvlines && p->vline_note ? 1 : 0);
}

/*
 * Lay the legend out first, since it decides the height (fr->total_h),
 * and place the plot area in what is left.
 */
static void frame_layout(const struct svg_plot *p, struct frame *fr)
{
	double legend_x = M_LEFT;
	size_t nlegend = legend_entries(p);
	int legend_rows = 1, legend_h;

	for (size_t i = 0; i < nlegend; i++) {
		const char *name = legend_name(p, i);
		double w = 34 + CHAR_W * (double)utf8_chars(name, 48);

		if (legend_x + w > p->width - M_RIGHT && legend_x > M_LEFT) {
			legend_rows++;
			legend_x = M_LEFT;
		}
		legend_x += w;
	}
	legend_h = legend_rows * LEGEND_ROW + 6;
	fr->total_h = p->height + legend_h;
	fr->pw = p->width - M_LEFT - M_RIGHT;
	fr->ph = p->height - M_TOP - M_BOTTOM;
	fr->x0 = M_LEFT;
	fr->y0 = M_TOP + fr->ph;
}

/* The <svg> opening: its size, <title>, background and visible title. */
static void write_opening(const struct svg_plot *p, const struct frame *fr,
			  struct strbuf *out)
{
	strbuf_addf(out,
		    "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
		    "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		    "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">",
		    p->width, fr->total_h, p->width, fr->total_h);
	strbuf_addstr(out, "<title>");
	strbuf_add_html(out, p->title);
	strbuf_addstr(out, "</title>");
	strbuf_addf(out,
		    "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		    "fill=\"#ffffff\"/>",
		    p->width, fr->total_h);
	strbuf_addf(out,
		    "<text class=\"plot-title\" x=\"%d\" y=\"18\" "
		    "font-size=\"13\" font-weight=\"bold\" fill=\"#222\">",
		    M_LEFT);
	/* About 8 px a bold character at this size: cut what would not fit
	 * (the whole title is the SVG's <title> and the figure's caption). */
	add_text_cut(out, p->title, (size_t)(p->width - M_LEFT - 8) / 8);
	strbuf_addstr(out, "</text>");
}

/* The y axis: grid lines, ticks, their labels and the axis label. */
static void write_y_axis(const struct svg_plot *p, const struct frame *fr,
			 struct strbuf *out)
{
	double x0 = fr->x0, y0 = fr->y0, pw = fr->pw, ph = fr->ph;

	strbuf_addstr(out, "<g class=\"axis y-axis\">");
	for (size_t i = 0; i < fr->ay.nticks; i++) {
		double y = py(fr, fr->ay.ticks[i]);

		strbuf_addf(out,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#e4e4e4\"/>",
			    x0, y, x0 + pw, y);
		strbuf_addf(out,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#444\"/>",
			    x0 - 4, y, x0, y);
		strbuf_addf(out,
			    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"end\" fill=\"#333\">",
			    x0 - 7, y + 4);
		format_axis_tick(out, &fr->ay, fr->ay.ticks[i]);
		strbuf_addstr(out, "</text>");
	}
	strbuf_addf(out,
		    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#444\"/>",
		    x0, M_TOP, x0, y0);
	strbuf_addf(out,
		    "<text class=\"axis-label\" x=\"14\" y=\"%.1f\" "
		    "transform=\"rotate(-90 14 %.1f)\" "
		    "text-anchor=\"middle\" fill=\"#222\">",
		    M_TOP + ph / 2, M_TOP + ph / 2);
	add_axis_label(out, p->y_label, p->y_unit);
	strbuf_addstr(out, "</text></g>");
}

/* The x axis: ticks, their labels and the axis label ("log2 scale"). */
static void write_x_axis(const struct svg_plot *p, const struct frame *fr,
			 struct strbuf *out)
{
	const struct axis *ax = &fr->ax;
	double x0 = fr->x0, y0 = fr->y0, pw = fr->pw;

	strbuf_addstr(out, "<g class=\"axis x-axis\">");
	for (size_t i = 0; i < ax->nticks; i++) {
		double x =
			x0 + (ax->ticks[i] - ax->lo) / (ax->hi - ax->lo) * pw;

		strbuf_addf(out,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#444\"/>",
			    x, y0, x, y0 + 4);
		strbuf_addf(out,
			    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\" fill=\"#333\">",
			    x, y0 + 17);
		format_axis_tick(out, ax, ax->ticks[i]);
		strbuf_addstr(out, "</text>");
	}
	strbuf_addf(out,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#444\"/>",
		    x0, y0, x0 + pw, y0);
	strbuf_addf(out,
		    "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"middle\" fill=\"#222\">",
		    x0 + pw / 2, y0 + 36);
	add_axis_label(out, p->x_label, p->x_unit);
	if (ax->log2)
		strbuf_addstr(out, ", log\xe2\x82\x82 scale");
	strbuf_addstr(out, "</text></g>");
}

/* The bands of line series s (colour col): one polygon per run of points
 * that have a band. */
static void write_bands(const struct svg_series *s, const struct frame *fr,
			const char *col, struct strbuf *out)
{
	size_t j = 0;

	while (j < s->n) {
		size_t a = j, b;

		if (!isfinite(s->lo[j])) {
			j++;
			continue;
		}
		while (j < s->n && isfinite(s->lo[j]))
			j++;
		b = j;
		if (b - a < 2)
			continue;
		strbuf_addstr(out, "<path class=\"band\" d=\"");
		for (size_t k = a; k < b; k++)
			strbuf_addf(out, "%s%.1f %.1f", k == a ? "M" : "L",
				    px(fr, s->x[k]), py(fr, s->hi[k]));
		for (size_t k = b; k-- > a;)
			strbuf_addf(out, "L%.1f %.1f", px(fr, s->x[k]),
				    py(fr, s->lo[k]));
		strbuf_addf(out,
			    "Z\" fill=\"%s\" "
			    "fill-opacity=\"0.16\" "
			    "stroke=\"none\"/>",
			    col);
	}
}

/*
 * Series i of p as a group: its bands under everything, error bars on
 * points without a neighbouring band, its line, then its markers.
 */
static void write_series(const struct svg_plot *p, size_t i,
			 const struct frame *fr, struct strbuf *out)
{
	const struct svg_series *s = &p->series[i];
	const char *col = palette[i % NPALETTE];

	strbuf_addf(out, "<g class=\"series\" data-series=\"%zu\">", i);
	if (s->has_band && s->kind == SVG_LINE && s->n > 1)
		write_bands(s, fr, col, out);
	/* Points without a neighbouring band get error bars. */
	for (size_t j = 0; j < s->n; j++) {
		int alone = s->kind == SVG_DOTS || s->n == 1 ||
			    ((j == 0 || !isfinite(s->lo[j - 1])) &&
			     (j + 1 == s->n || !isfinite(s->lo[j + 1])));

		if (!isfinite(s->lo[j]) || !alone)
			continue;
		strbuf_addf(out,
			    "<line class=\"errbar\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-opacity=\"0.6\" "
			    "stroke-width=\"2\"/>",
			    px(fr, s->x[j]), py(fr, s->lo[j]), px(fr, s->x[j]),
			    py(fr, s->hi[j]), col);
	}
	if (s->kind == SVG_LINE && s->n > 1) {
		strbuf_addstr(out, "<path class=\"line\" d=\"");
		for (size_t j = 0; j < s->n; j++)
			strbuf_addf(out, "%s%.1f %.1f", j ? "L" : "M",
				    px(fr, s->x[j]), py(fr, s->y[j]));
		strbuf_addf(out,
			    "\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"1.8\"%s/>",
			    col,
			    (i / NPALETTE) % 2 ? " stroke-dasharray=\"5 3\""
					       : "");
	}
	if (s->kind == SVG_DOTS || s->n <= 64)
		for (size_t j = 0; j < s->n; j++)
			add_marker(out, i, px(fr, s->x[j]), py(fr, s->y[j]),
				   col);
	strbuf_addstr(out, "</g>");
}

/* Change points over the data, across the whole plot area. */
static void write_change_points(const struct svg_plot *p,
				const struct frame *fr, struct strbuf *out)
{
	strbuf_addstr(out, "<g class=\"change-points\">");
	for (size_t i = 0; i < p->nvlines; i++) {
		double x = px(fr, p->vlines[i].x);

		strbuf_addf(out,
			    "<line class=\"change-point\" "
			    "x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#b00020\" "
			    "stroke-width=\"2.5\" "
			    "stroke-dasharray=\"6 3\"><title>",
			    x, M_TOP, x, fr->y0);
		strbuf_add_html(out, p->vlines[i].label);
		strbuf_addstr(out, "</title></line>");
	}
	strbuf_addstr(out, "</g>");
}

/* The legend: one entry per series, then what the bands and the dashed
 * red lines mean, wrapped as frame_layout() counted the rows. */
static void write_legend(const struct svg_plot *p, struct strbuf *out)
{
	double legend_x = M_LEFT, ly = p->height + 10;
	size_t nlegend = legend_entries(p);

	strbuf_addstr(out, "<g class=\"legend\">");
	for (size_t i = 0; i < nlegend; i++) {
		const char *name = legend_name(p, i);
		double w = 34 + CHAR_W * (double)utf8_chars(name, 48);
		const char *col = palette[i % NPALETTE];

		if (legend_x + w > p->width - M_RIGHT && legend_x > M_LEFT) {
			ly += LEGEND_ROW;
			legend_x = M_LEFT;
		}
		if (i < p->nseries) {
			strbuf_addf(out,
				    "<line x1=\"%.1f\" y1=\"%.1f\" "
				    "x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"%s\" "
				    "stroke-width=\"2\"/>",
				    legend_x, ly, legend_x + 20, ly, col);
			add_marker(out, i, legend_x + 10, ly, col);
		} else if (name == p->band_note) {
			strbuf_addf(out,
				    "<rect x=\"%.1f\" y=\"%.1f\" "
				    "width=\"20\" height=\"10\" "
				    "fill=\"#888\" "
				    "fill-opacity=\"0.3\"/>",
				    legend_x, ly - 5);
		} else {
			strbuf_addf(out,
				    "<line x1=\"%.1f\" y1=\"%.1f\" "
				    "x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#b00020\" "
				    "stroke-width=\"2.5\" "
				    "stroke-dasharray=\"6 3\"/>",
				    legend_x, ly, legend_x + 20, ly);
		}
		strbuf_addf(out,
			    "<text class=\"legend-entry\" "
			    "x=\"%.1f\" y=\"%.1f\" fill=\"#222\">",
			    legend_x + 26, ly + 4);
		add_text_cut(out, name, 48);
		strbuf_addstr(out, "</text>");
		legend_x += w;
	}
	strbuf_addstr(out, "</g></svg>");
}

int svg_plot_write(const struct svg_plot *p, struct strbuf *out,
		   struct strbuf *err)
{
	struct frame fr;

	if (!p->nseries) {
		strbuf_addstr(err, "a plot needs at least one series");
		return -1;
	}
	memset(&fr, 0, sizeof(fr));
	frame_fit_axes(p, &fr);
	frame_layout(p, &fr);
	write_opening(p, &fr, out);
	write_y_axis(p, &fr, out);
	write_x_axis(p, &fr, out);
	if (!fr.npoints)
		strbuf_addf(out,
			    "<text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\" fill=\"#777\">no data"
			    "</text>",
			    fr.x0 + fr.pw / 2, M_TOP + fr.ph / 2);
	/* Bands under everything, then lines, then markers. */
	for (size_t i = 0; i < p->nseries; i++)
		write_series(p, i, &fr, out);
	if (fr.npoints && p->nvlines)
		write_change_points(p, &fr, out);
	write_legend(p, out);
	return fr.npoints;
}
