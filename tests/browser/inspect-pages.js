#!/usr/bin/env node
// inspect-pages.js - open report pages in Debian's chromium and say what a
// reader would find there, as JSON, for the integration tests to check.
//
//   node inspect-pages.js OUT.json SHOTDIR PROFILEDIR FILE.html...
//
// For each page: a full-page screenshot SHOTDIR/<name>.png; every dialog
// (alert, confirm, prompt) that opened, every console message (a blocked
// inline script shows up as a Content-Security-Policy error), uncaught page
// errors; how many <script> elements and on* attributes the DOM holds; the
// CSP meta tag; the text of every table (by id) cell by cell; and for every
// <svg class="plot">: its title, axis labels, tick counts and legend
// entries; the page's scrollWidth and clientWidth at the 1 280-px window
// and the outermost elements reaching past it; each table's width and the
// width of its box.  Only facts are collected here; the shell test decides.
//
// Chromium runs headless with a fresh profile (PROFILEDIR), no sandbox (we
// are root in a container), no GPU, no network services.  playwright-core
// is pinned in package-lock.json and drives /usr/bin/chromium over the
// DevTools protocol; it never downloads a browser.
'use strict';

const path = require('path');
const fs = require('fs');
const { chromium } = require('playwright-core');

async function main() {
	const [outJson, shotDir, profileDir, ...files] = process.argv.slice(2);
	if (!outJson || !shotDir || !profileDir || files.length === 0) {
		console.error('usage: inspect-pages.js OUT.json SHOTDIR PROFILEDIR FILE.html...');
		process.exit(2);
	}
	fs.mkdirSync(shotDir, { recursive: true });
	const ctx = await chromium.launchPersistentContext(profileDir, {
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		viewport: { width: 1280, height: 900 },
		args: [
			'--no-sandbox', '--disable-gpu', '--disable-quic',
			'--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync',
		],
	});
	const result = {};
	try {
		for (const file of files) {
			const name = path.basename(file, '.html');
			const page = await ctx.newPage();
			const facts = { dialogs: [], console: [], pageerrors: [], requests: [] };
			page.on('dialog', (d) => { facts.dialogs.push(d.type() + ': ' + d.message()); d.dismiss().catch(() => {}); });
			page.on('console', (m) => facts.console.push(m.type() + ': ' + m.text()));
			page.on('pageerror', (e) => facts.pageerrors.push(String(e)));
			page.on('request', (r) => facts.requests.push(r.url()));
			await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
			await page.screenshot({ path: path.join(shotDir, name + '.png'), fullPage: true });
			// Runs through the DevTools protocol, outside the page's CSP.
			Object.assign(facts, await page.evaluate(() => {
				const text = (el) => (el ? el.textContent.trim() : null);
				const out = {};
				out.title = document.title;
				out.csp = (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || null;
				out.scripts = document.querySelectorAll('script').length;
				out.handlers = [...document.querySelectorAll('*')]
					.reduce((n, el) => n + [...el.attributes].filter((a) => /^on/i.test(a.name)).length, 0);
				out.images = document.querySelectorAll('img').length;
				out.h1 = text(document.querySelector('h1'));
				out.stylesheet_applied = getComputedStyle(document.querySelector('nav') || document.body).backgroundColor;
				out.tables = {};
				// A row under a group heading (tr.group) gets the heading's
				// values back at their columns (span[data-col]), so a row
				// reads as the CSV does.
				for (const t of document.querySelectorAll('table[id]')) {
					const rows = [];
					let group = [];
					for (const tr of t.querySelectorAll('tbody tr')) {
						if (tr.classList.contains('group')) {
							group = [...tr.querySelectorAll('span[data-col]')]
								.map((s) => [Number(s.dataset.col), s.textContent.trim()])
								.sort((a, b) => a[0] - b[0]);
							continue;
						}
						const cells = [...tr.children].map((td) => td.textContent.trim());
						for (const [col, text] of group)
							cells.splice(col, 0, text);
						rows.push(cells);
					}
					out.tables[t.id.replace(/^t-/, '')] = rows;
				}
				out.table_headers = {};
				for (const t of document.querySelectorAll('table[id]')) {
					out.table_headers[t.id.replace(/^t-/, '')] = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
				}
				out.row_classes = {};
				for (const t of document.querySelectorAll('table[id]')) {
					out.row_classes[t.id.replace(/^t-/, '')] = [...t.querySelectorAll('tbody tr:not(.group)')].map((tr) => tr.className);
				}
				out.plots = [...document.querySelectorAll('svg.plot')].map((svg) => ({
					title: text(svg.querySelector('title')),
					x_label: text(svg.querySelector('.x-axis .axis-label')),
					y_label: text(svg.querySelector('.y-axis .axis-label')),
					x_ticks: svg.querySelectorAll('.x-axis .tick').length,
					y_ticks: svg.querySelectorAll('.y-axis .tick').length,
					legend: [...svg.querySelectorAll('.legend .legend-entry')].map((e) => e.textContent.trim()),
					markers: svg.querySelectorAll('.series circle, .series rect, .series path:not(.band):not(.line)').length,
					bands: svg.querySelectorAll('.series path.band, .series line.errbar').length,
					width: svg.getBoundingClientRect().width,
				}));
				out.links = [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
				out.body_text = document.body.innerText;
				// Horizontal page scroll at this window: the page is wider
				// than the window.  wide_elements names the outermost
				// elements that reach past it (at most 10), to say why.
				out.scroll_width = document.documentElement.scrollWidth;
				out.client_width = document.documentElement.clientWidth;
				out.wide_elements = [];
				const walk = (el) => {
					if (out.wide_elements.length >= 10)
						return;
					const r = el.getBoundingClientRect();
					if (r.right > out.client_width + 0.5) {
						out.wide_elements.push(el.tagName.toLowerCase() +
							(el.id ? '#' + el.id : '') +
							(el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
							' right=' + Math.round(r.right));
						return;
					}
					// What scrolls inside its own box cannot widen the page.
					if (/auto|scroll|hidden/.test(getComputedStyle(el).overflowX))
						return;
					for (const c of el.children)
						walk(c);
				};
				if (out.scroll_width > out.client_width)
					walk(document.body);
				// Each table's own width and the width of the box it
				// sits in: a table that fits needs no scroll bar.
				// Words of the cells that keep them whole (td.words, and
				// the verdict column of every comparison table) laid on
				// more than one line: a word cut where it may not be
				// (a break at a space or a hyphen is allowed).
				out.words_split = [];
				const wcells = new Set([
					...document.querySelectorAll('td.words'),
					...document.querySelectorAll('table[id$="compare"] tbody tr:not(.group) td:first-child'),
				]);
				out.words_cells = wcells.size;
				for (const td of wcells) {
					const tn = td.firstChild;
					if (!tn || tn.nodeType !== Node.TEXT_NODE)
						continue;
					const re = /[^\s-]+/g;
					let m;
					while ((m = re.exec(tn.data))) {
						const r = document.createRange();
						r.setStart(tn, m.index);
						r.setEnd(tn, m.index + m[0].length);
						const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
						if (tops.size > 1)
							out.words_split.push(m[0]);
					}
				}
				out.table_fit = {};
				for (const t of document.querySelectorAll('table[id]')) {
					const box = t.parentElement;
					out.table_fit[t.id.replace(/^t-/, '')] = {
						width: Math.ceil(Math.max(t.scrollWidth, t.getBoundingClientRect().width)),
						box: box.clientWidth,
					};
				}
				return out;
			}));
			result[name] = facts;
			await page.close();
		}
	} finally {
		await ctx.close();
	}
	fs.writeFileSync(outJson, JSON.stringify(result, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
