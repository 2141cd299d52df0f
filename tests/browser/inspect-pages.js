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
// entries.  Only facts are collected here; the shell test decides.
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
				for (const t of document.querySelectorAll('table[id]')) {
					out.tables[t.id.replace(/^t-/, '')] = [...t.querySelectorAll('tbody tr')]
						.map((tr) => [...tr.children].map((td) => td.textContent.trim()));
				}
				out.table_headers = {};
				for (const t of document.querySelectorAll('table[id]')) {
					out.table_headers[t.id.replace(/^t-/, '')] = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
				}
				out.row_classes = {};
				for (const t of document.querySelectorAll('table[id]')) {
					out.row_classes[t.id.replace(/^t-/, '')] = [...t.querySelectorAll('tbody tr')].map((tr) => tr.className);
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
