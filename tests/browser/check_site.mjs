// Open every page of a static site in headless Chromium, as a reader would, and check it.
//
//   node tests/browser/check_site.mjs SITE_DIR [--expect FILE.json] [--screenshots DIR]
//
// Pages are found by following links from SITE_DIR/index.html over file://.  For each page:
// it loads; no console error, page error or dialog; no failed request and no request that is
// not a file inside SITE_DIR (any http(s) URL fails: the site must work offline); every link
// resolves (the file exists, a #fragment names an id of the page it points to); every plot
// (<img>, <object>, inline <svg>) is a non-empty SVG that renders (decoded, non-zero size, its
// pixels not all one colour); a screenshot of the whole page is not blank.  --expect gives,
// per page, the rows each table (by id) must hold in its <tbody>, texts the page must show,
// and selectors no page may match (an injected <script> from an unescaped label).  A page's
// "trend" entry checks its interactive trend plot (uPlot, analyze/site_trend.js): it draws (its
// canvas not blank) in place of the SVG plot; hovering commit "hover.commit" shows the texts
// "hover.contains"; a drag zooms in; picking stat "switch_to" plots that stat's data; the CSV
// link downloads the plotted series, row for row.  Requests that would leave the machine are
// blocked (routed away) and fail the page.  Links out of the site fail too, but those under a
// prefix of "external_links" (a commit URL template's): those are counted, not followed, and a
// page's "external_links_min" is how many it must have.
// Prints one line per page; exits 1 when anything failed, 2 when it could not run.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL, fileURLToPath } from 'node:url';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function usage(msg) {
	console.error(`check_site: ${msg}`);
	console.error('usage: node check_site.mjs SITE_DIR [--expect FILE.json] [--screenshots DIR]');
	process.exit(2);
}

const args = process.argv.slice(2);
let site, expectFile, shotDir;
for (let i = 0; i < args.length; i++) {
	if (args[i] === '--expect') expectFile = args[++i];
	else if (args[i] === '--screenshots') shotDir = args[++i];
	else if (args[i].startsWith('--')) usage(`unknown option ${args[i]}`);
	else if (!site) site = args[i];
	else usage(`unexpected argument ${args[i]}`);
}
if (!site) usage('no SITE_DIR');
site = fs.realpathSync(site);
if (!fs.existsSync(path.join(site, 'index.html'))) usage(`${site}/index.html does not exist`);
if (!fs.existsSync(CHROMIUM)) usage(`${CHROMIUM} not found: run make setup (installs Debian's chromium)`);
const expect = expectFile ? JSON.parse(fs.readFileSync(expectFile, 'utf8')) : {};
const expectPages = expect.pages || {};
const forbid = expect.forbid_selectors || [];
const externalOk = expect.external_links || [];
if (shotDir) fs.mkdirSync(shotDir, { recursive: true });

// ---- PNG: decode Chromium's screenshots (8-bit RGB or RGBA, not interlaced) ----

function pngPixels(buf) {
	let pos = 8, width, height, ctype, depth, interlace;
	const idat = [];
	while (pos < buf.length) {
		const len = buf.readUInt32BE(pos);
		const type = buf.toString('latin1', pos + 4, pos + 8);
		const data = buf.subarray(pos + 8, pos + 8 + len);
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			depth = data[8];
			ctype = data[9];
			interlace = data[12];
		} else if (type === 'IDAT') {
			idat.push(data);
		}
		pos += 12 + len;
	}
	const bpp = { 2: 3, 6: 4 }[ctype];
	if (depth !== 8 || !bpp || interlace) throw new Error(`PNG type ${ctype}/${depth}/${interlace} not handled`);
	const raw = zlib.inflateSync(Buffer.concat(idat));
	const stride = width * bpp, out = Buffer.alloc(height * stride);
	for (let y = 0; y < height; y++) {
		const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		const row = out.subarray(y * stride, (y + 1) * stride), prev = y ? out.subarray((y - 1) * stride, y * stride) : null;
		for (let x = 0; x < stride; x++) {
			const a = x >= bpp ? row[x - bpp] : 0, b = prev ? prev[x] : 0, c = prev && x >= bpp ? prev[x - bpp] : 0;
			let v = src[x];
			if (f === 1) v += a;
			else if (f === 2) v += b;
			else if (f === 3) v += (a + b) >> 1;
			else if (f === 4) {
				const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
				v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			row[x] = v & 0xff;
		}
	}
	return { width, height, bpp, data: out };
}

// distinctColours(PIXELS[, RECT]): how many colours (up to 1000) the image has, or its
// rectangle {x, y, w, h} (page pixels) has.
function distinctColours(px, rect) {
	const { data, bpp, width, height } = px, seen = new Set();
	const x0 = rect ? Math.max(0, Math.floor(rect.x)) : 0, y0 = rect ? Math.max(0, Math.floor(rect.y)) : 0;
	const x1 = rect ? Math.min(width, Math.ceil(rect.x + rect.w)) : width;
	const y1 = rect ? Math.min(height, Math.ceil(rect.y + rect.h)) : height;
	for (let y = y0; y < y1 && seen.size < 1000; y++)
		for (let i = (y * width + x0) * bpp, end = (y * width + x1) * bpp; i < end; i += bpp)
			seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
	return seen.size;
}

// ---- the crawl ----

const siteUrl = pathToFileURL(site + '/').href;
const rel = (url) => path.relative(site, fileURLToPath(url.split('#')[0]));
const inSite = (file) => file === site || file.startsWith(site + path.sep);

const browser = await chromium.launch({
	executablePath: CHROMIUM,
	headless: true,
	// As root (CI) Chromium refuses to start with its sandbox on.
	args: ['--no-sandbox', '--disable-gpu'],
});
const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, offline: true, acceptDownloads: true });
// Nothing but the site's own files: any other request is aborted and reported.
await context.route((u) => !['file:', 'data:', 'blob:'].includes(u.protocol), (route) => {
	problems.push(`network request blocked: ${route.request().url()}`);
	route.abort().catch(() => {});
});

const queue = ['index.html'], seen = new Set(queue), idsOf = new Map(), fragmentRefs = [];
let failures = 0;

// One tab for every page (a new tab costs ~0.4 s): its listeners report to the page being
// checked.  A page's requests all happen while it loads, before the next goto.
const page = await context.newPage();
let problems = [];
page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('dialog', (d) => { problems.push(`dialog opened: ${d.message()}`); d.dismiss().catch(() => {}); });
// (a download, the CSV link's, ends its request as aborted: not a failure)
let downloading = null;
page.on('requestfailed', (r) => {
	if (r.url() === downloading && r.failure()?.errorText === 'net::ERR_ABORTED') return;
	problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`);
});
page.on('request', (r) => {
	const u = r.url();
	if (u.startsWith('data:')) return;
	if (!u.startsWith('file:')) return problems.push(`external request: ${u}`);
	const f = fileURLToPath(u.split('#')[0]);
	if (!inSite(f)) problems.push(`request outside the site: ${u}`);
	else if (!fs.existsSync(f)) problems.push(`missing resource: ${rel(u)}`);
});

// ---- the interactive trend plot ----

const CSV_COLUMNS = 'commit,runs,mean,stddev,min,max';

// RFC 4180 rows: fields split on commas outside double quotes, "" a quote.
function csvRows(text) {
	const rows = [];
	for (const line of text.split('\n').filter((l) => l !== '')) {
		const f = [];
		let cur = '', q = false;
		for (let i = 0; i < line.length; i++) {
			const c = line[i];
			if (q && c === '"' && line[i + 1] === '"') { cur += '"'; i++; }
			else if (c === '"') q = !q;
			else if (c === ',' && !q) { f.push(cur); cur = ''; }
			else cur += c;
		}
		f.push(cur);
		rows.push(f);
	}
	return rows;
}

const same = (a, b) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

async function checkTrend(want) {
	try {
		await page.waitForSelector('#trend-interactive[data-state="ready"]', { timeout: 10000 });
	} catch {
		problems.push(`the interactive trend plot did not draw: ${await page.locator('#trend-hover').textContent().catch(() => 'no #trend-hover')}`);
		return;
	}
	if (await page.locator('#trend').isVisible().catch(() => false)) problems.push('the SVG trend plot is still shown beside the interactive one');
	const canvas = pngPixels(await page.locator('#trend-chart canvas').first().screenshot());
	if (distinctColours(canvas) < 3) problems.push('the interactive trend plot renders blank');
	const state = () => page.evaluate(() => {
		const t = window.scalebenchTrend;
		return { stat: t.series.stat, mean: t.plot.data[1], labels: t.commits.labels, min: t.plot.scales.x.min, max: t.plot.scales.x.max };
	});
	if (want.hover) {
		// The point's place on the plot, then the mouse over it, as a reader hovers it.
		const at = await page.evaluate((commit) => {
			const t = window.scalebenchTrend, u = t.plot, i = t.commits.labels.indexOf(commit);
			if (i < 0 || u.data[1][i] === null) return null;
			// (a point on the plot's edge, the last commit's, is hovered from just inside)
			const r = u.over.getBoundingClientRect(), inside = (v, len) => Math.min(Math.max(v, 1), len - 1);
			return { x: r.left + inside(u.valToPos(i, 'x'), r.width), y: r.top + inside(u.valToPos(u.data[1][i], 'y'), r.height) };
		}, want.hover.commit);
		if (!at) problems.push(`hover: no point for commit ${want.hover.commit}`);
		else {
			await page.mouse.move(at.x, at.y);
			await page.waitForTimeout(100);
			const text = await page.locator('#trend-hover').textContent();
			for (const t of want.hover.contains || [])
				if (!text.includes(t)) problems.push(`hover over ${want.hover.commit}: does not show ${JSON.stringify(t)} (shows ${JSON.stringify(text)})`);
		}
	}
	if (want.zoom) {
		const before = await state(), box = await page.locator('#trend-chart .u-over').boundingBox();
		await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
		await page.mouse.down();
		await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
		await page.mouse.up();
		const after = await state();
		if (!(after.max - after.min < before.max - before.min)) problems.push(`zoom: dragging did not narrow the x range (${before.min}..${before.max} then ${after.min}..${after.max})`);
		await page.locator('#trend-chart .u-over').dblclick();
	}
	if (want.switch_to) {
		const before = await state();
		const labels = await page.locator('#stat-picker option').allTextContents();
		if (!labels.includes(want.switch_to)) problems.push(`stat picker: no option ${JSON.stringify(want.switch_to)} (has ${labels.length})`);
		else {
			await page.selectOption('#stat-picker', { label: want.switch_to });
			try {
				await page.waitForFunction((s) => window.scalebenchTrend && window.scalebenchTrend.series.stat === s, want.switch_to, { timeout: 10000 });
				const after = await state();
				if (JSON.stringify(after.mean) === JSON.stringify(before.mean)) problems.push(`stat picker: ${want.switch_to} plots the same data as ${before.stat}`);
			} catch {
				problems.push(`stat picker: picking ${JSON.stringify(want.switch_to)} did not plot it`);
			}
		}
	}
	if (want.csv) {
		const now = await page.evaluate(() => {
			const t = window.scalebenchTrend;
			return { stat: t.series.stat, labels: t.commits.labels, runs: t.series.runs, mean: t.series.mean, plotted: t.plot.data[1] };
		});
		try {
			downloading = await page.locator('#trend-csv').evaluate((a) => a.href);
			const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.locator('#trend-csv').click()]);
			const rows = csvRows(fs.readFileSync(await dl.path(), 'utf8'));
			const want = now.labels.map((l, i) => [l, now.runs[i], now.mean[i]]).filter((r) => r[2] !== null);
			if (!rows.length || rows[0].join(',') !== CSV_COLUMNS) problems.push(`csv: header ${JSON.stringify(rows[0])}, expected ${CSV_COLUMNS}`);
			else if (rows.length - 1 !== want.length) problems.push(`csv: ${rows.length - 1} rows, the plotted series has ${want.length} points`);
			else
				for (let i = 0; i < want.length; i++) {
					const r = rows[i + 1], w = want[i];
					if (r[0] !== w[0] || +r[1] !== w[1] || !same(+r[2], w[2])) { problems.push(`csv row ${i + 1}: ${JSON.stringify(r)}, the plot has ${JSON.stringify(w)}`); break; }
				}
			if (JSON.stringify(now.mean) !== JSON.stringify(now.plotted)) problems.push('csv: the series differs from what is plotted');
		} catch (e) {
			problems.push(`csv: no download (${e.message.split('\n')[0]})`);
		}
	}
}

async function checkPage(name) {
	problems = [];
	const url = new URL(name, siteUrl).href;
	let info = { tables: {}, plots: 0, links: 0 };
	try {
		const resp = await page.goto(url, { waitUntil: 'load', timeout: 30000 });
		if (resp && !resp.ok()) problems.push(`load status ${resp.status()}`);
		info = await page.evaluate(async () => {
			const abs = (el, attr) => new URL(el.getAttribute(attr), document.baseURI).href;
			const out = { tables: {}, plots: [], links: [], ids: [], resources: [], text: document.body.innerText, title: document.title };
			for (const t of document.querySelectorAll('table[id]'))
				out.tables[t.id] = [...t.tBodies].reduce((n, b) => n + b.rows.length, 0);
			for (const el of document.querySelectorAll('[id]')) out.ids.push(el.id);
			for (const a of document.querySelectorAll('a[href]')) out.links.push(abs(a, 'href'));
			for (const el of document.querySelectorAll('link[href]')) out.resources.push(abs(el, 'href'));
			for (const el of document.querySelectorAll('script[src], iframe[src], source[src]')) out.resources.push(abs(el, 'src'));
			// An element's box in page pixels (the full-page screenshot's coordinates).
			const at = (r) => ({ x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height });
			let i = 0;
			for (const img of document.querySelectorAll('img')) {
				if (!img.complete) await new Promise((r) => { img.onload = img.onerror = r; });
				const r = img.getBoundingClientRect();
				// (a plot hidden on purpose, the SVG the interactive plot replaces, need not show)
				out.plots.push({ kind: 'img', i: i++, src: abs(img, 'src'), natural: img.naturalWidth, hidden: !!img.closest('[hidden]'), ...at(r) });
			}
			for (const o of document.querySelectorAll('object')) {
				const r = o.getBoundingClientRect();
				out.plots.push({ kind: 'object', i: i++, src: abs(o, 'data'), natural: r.width, ...at(r) });
			}
			for (const s of document.querySelectorAll('svg')) {
				if (s.parentElement.closest('svg')) continue;
				const r = s.getBoundingClientRect();
				out.plots.push({ kind: 'svg', i: i++, src: null, natural: s.childElementCount, ...at(r) });
			}
			return out;
		});
		for (const sel of forbid) {
			const n = await page.locator(sel).count();
			if (n) problems.push(`${n} element(s) match the forbidden selector ${sel}`);
		}
		idsOf.set(name, new Set(info.ids));
		for (const r of info.resources) {
			if (!r.startsWith('file:')) { problems.push(`external resource: ${r}`); continue; }
			const f = fileURLToPath(r.split('#')[0]);
			if (!inSite(f) || !fs.existsSync(f)) problems.push(`missing resource: ${r}`);
		}
		let external = 0;
		for (const l of info.links) {
			if (externalOk.some((p) => l.startsWith(p))) { external++; continue; }
			if (!l.startsWith('file:')) { problems.push(`link leaves the site: ${l}`); continue; }
			const [base, frag] = l.split('#');
			const f = fileURLToPath(base);
			if (!inSite(f) || !fs.existsSync(f)) { problems.push(`broken link: ${l}`); continue; }
			const target = rel(base);
			if (frag !== undefined && frag !== '') fragmentRefs.push({ from: name, target, frag: decodeURIComponent(frag) });
			if (target.endsWith('.html') && !seen.has(target)) { seen.add(target); queue.push(target); }
		}
		const shown = [];
		for (const p of info.plots) {
			const label = `${p.kind} ${p.src ? (p.src.startsWith('file:') ? rel(p.src) : p.src) : '#' + p.i}`;
			if (p.src) {
				if (!p.src.startsWith('file:')) { problems.push(`plot from outside: ${p.src}`); continue; }
				const f = fileURLToPath(p.src);
				const body = fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
				if (!/<svg[\s>]/.test(body) || !/<\/svg>\s*$/.test(body)) { problems.push(`${label}: not a whole SVG file`); continue; }
			}
			if (p.hidden) continue;
			if (!(p.natural > 0) || !(p.w > 0) || !(p.h > 0)) { problems.push(`${label}: does not render (natural ${p.natural}, ${p.w}x${p.h})`); continue; }
			shown.push({ ...p, label });
		}
		// One screenshot of the whole page, rendered once: the page and each plot in its box.
		const shot = await page.screenshot({ fullPage: true }), px = pngPixels(shot);
		const colours = distinctColours(px);
		if (colours < 3) problems.push(`the page renders blank (${colours} colour(s))`);
		for (const p of shown) {
			const c = distinctColours(px, p);
			if (c < 3) problems.push(`${p.label}: renders blank (${c} colour(s))`);
		}
		if (shotDir) fs.writeFileSync(path.join(shotDir, name.replace(/[/\\]/g, '_') + '.png'), shot);
		const want = expectPages[name];
		if (want) {
			for (const [id, rows] of Object.entries(want.tables || {})) {
				if (!(id in info.tables)) problems.push(`no table with id ${id}`);
				else if (info.tables[id] !== rows) problems.push(`table ${id}: ${info.tables[id]} rows, expected ${rows}`);
			}
			for (const t of want.contains || [])
				if (!info.text.includes(t)) problems.push(`does not show the text ${JSON.stringify(t)}`);
			if (want.external_links_min !== undefined && external < want.external_links_min)
				problems.push(`${external} links to ${externalOk.join(' or ')}, expected at least ${want.external_links_min}`);
			if (want.min_plots !== undefined && info.plots.length < want.min_plots)
				problems.push(`${info.plots.length} plots, expected at least ${want.min_plots}`);
			if (want.trend) await checkTrend(want.trend);
		}
	} catch (e) {
		problems.push(`could not load: ${e.message.split('\n')[0]}`);
	}
	await page.goto('about:blank').catch(() => {});
	const tables = Object.entries(info.tables || {}).map(([k, v]) => `${k}:${v}`).join(' ');
	if (problems.length) {
		failures++;
		console.log(`FAIL ${name}`);
		for (const p of problems) console.log(`     ${p}`);
	} else {
		console.log(`ok   ${name} (${info.plots.length} plots, ${info.links.length} links${tables ? ', rows ' + tables : ''})`);
	}
}

try {
	while (queue.length) await checkPage(queue.shift());
} finally {
	await browser.close();
}
for (const r of fragmentRefs) {
	const ids = idsOf.get(r.target);
	if (ids && !ids.has(r.frag)) {
		failures++;
		console.log(`FAIL ${r.from}\n     link to ${r.target}#${r.frag}: no such id there`);
	}
}
for (const name of Object.keys(expectPages)) {
	if (!seen.has(name)) {
		failures++;
		console.log(`FAIL ${name}\n     expected page not reachable from index.html`);
	}
}
if (expect.pages_min !== undefined && seen.size < expect.pages_min) {
	failures++;
	console.log(`FAIL site: ${seen.size} pages, expected at least ${expect.pages_min}`);
}
console.log(`${seen.size} pages checked, ${failures} failed`);
process.exit(failures ? 1 : 0);
