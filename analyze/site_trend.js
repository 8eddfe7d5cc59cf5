/* scalebench html: a job page's interactive trend plot, drawn by uPlot (copied into the site
 * beside this file).  The page names its series in #stat-picker (one option per stat, its
 * value the stat's file name in data/); each data file is a JSON document handed to
 * scalebenchSeries(), data/commits.js one handed to scalebenchCommits(), loaded as scripts
 * because a page opened from file:// may not fetch() its neighbours.  Everything from the
 * results tree reaches the page as textContent, never as markup.  Without this script or
 * without uPlot, the page keeps its SVG plot. */
(function () {
	'use strict';
	var root = document.getElementById('trend-interactive');
	if (!root || typeof uPlot === 'undefined') return;
	var picker = document.getElementById('stat-picker');
	var csv = document.getElementById('trend-csv');
	var hover = document.getElementById('trend-hover');
	var chart = document.getElementById('trend-chart');
	var svg = document.getElementById('trend');
	var dir = root.getAttribute('data-dir');
	var commits = null, series = {}, waiting = {}, plot = null, shown = null;

	function fmt(v) {
		if (v === null || v === undefined || !isFinite(v)) return '\u2013';
		var a = Math.abs(v);
		return a >= 1e6 || (a !== 0 && a < 1e-3) ? v.toPrecision(4) : String(+v.toPrecision(6));
	}

	function load(src) {
		var s = document.createElement('script');
		s.src = src;
		s.onerror = function () { say('cannot load ' + src); };
		document.head.appendChild(s);
	}

	function say(text) {
		hover.textContent = text;
	}

	window.scalebenchCommits = function (d) {
		commits = d;
		draw();
	};
	window.scalebenchSeries = function (d) {
		series[d.file] = d;
		if (waiting[d.file]) {
			delete waiting[d.file];
			draw();
		}
	};

	/* The mean of each commit's segment (between change points), for the step line. */
	function segments(d) {
		var out = new Array(d.mean.length).fill(null);
		d.segments.forEach(function (s) {
			for (var i = s.from; i <= s.to; i++) if (d.mean[i] !== null) out[i] = s.mean;
		});
		return out;
	}

	function tell(d, i) {
		if (i === null || i === undefined || d.mean[i] === null) return;
		var lines = [commits.labels[i]];
		if (commits.subject) lines[0] += ' ' + commits.subject[i];
		if (commits.author) lines.push(commits.author[i] + ', ' + commits.date[i]);
		lines.push(d.stat + ': mean ' + fmt(d.mean[i]) + ', ' + d.runs[i] + ' run' +
			   (d.runs[i] === 1 ? '' : 's') + ', stddev ' + fmt(d.stddev[i]) +
			   (d.mean[i] ? ' (' + fmt(100 * d.stddev[i] / Math.abs(d.mean[i])) + '%)' : '') +
			   ', min ' + fmt(d.min[i]) + ', max ' + fmt(d.max[i]));
		say(lines.join('\n'));
	}

	function draw() {
		var file = picker.value, d = series[file];
		if (!commits) return;
		if (!d) {
			if (!waiting[file]) {
				waiting[file] = true;
				load(dir + 's-' + file + '.js');
			}
			return;
		}
		csv.href = dir + 's-' + file + '.csv';
		csv.setAttribute('download', 's-' + file + '.csv');
		var xs = d.mean.map(function (_, i) { return i; });
		var data = [xs, d.mean, segments(d)];
		if (plot) plot.destroy();
		var labels = commits.labels;
		plot = new uPlot({
			width: Math.max(320, Math.min(chart.clientWidth || 900, 1200)),
			height: 420,
			scales: { x: { time: false } },
			cursor: { drag: { x: true, y: false }, points: { size: 9 } },
			legend: { show: true },
			axes: [
				{
					values: function (u, splits) {
						return splits.map(function (v) {
							return Number.isInteger(v) && labels[v] !== undefined
							       ? labels[v].slice(0, 12) : '';
						});
					},
				},
				{ size: 70, values: function (u, splits) { return splits.map(fmt); } },
			],
			series: [
				{ label: 'commit', value: function (u, v) { return v === null ? '--' : labels[v]; } },
				{ label: d.stat, stroke: '#0b57d0', width: 1.5, points: { show: true, size: 5 },
				  value: function (u, v) { return fmt(v); } },
				{ label: 'segment mean', stroke: '#b3261e', width: 2, dash: [6, 4],
				  paths: uPlot.paths.stepped({ align: 1 }), points: { show: false },
				  value: function (u, v) { return fmt(v); } },
			],
			hooks: {
				setCursor: [function (u) { tell(d, u.cursor.idx); }],
				/* each change point: a vertical line between its commit and the one before */
				draw: [function (u) {
					var c = u.ctx;
					c.save();
					c.strokeStyle = '#8a5a00';
					c.setLineDash([3, 3]);
					c.lineWidth = 1.5 * uPlot.pxRatio;
					d.change_points.forEach(function (p) {
						var x = u.valToPos(p.index - 0.5, 'x', true);
						c.beginPath();
						c.moveTo(x, u.bbox.top);
						c.lineTo(x, u.bbox.top + u.bbox.height);
						c.stroke();
					});
					c.restore();
				}],
			},
		}, data, chart);
		shown = d;
		root.setAttribute('data-stat', d.stat);
		root.setAttribute('data-state', 'ready');
		say(d.change_points.length ? d.change_points.length + ' change point(s); hover a point, drag to zoom, double-click to zoom out'
				       : (d.followed ? 'no change point; ' : 'change points are found for the followed stat only; ') +
					 'hover a point, drag to zoom, double-click to zoom out');
		window.scalebenchTrend = { plot: plot, series: shown, commits: commits };
	}

	picker.addEventListener('change', draw);
	root.hidden = false;
	if (svg) svg.hidden = true;
	load(dir + 'commits.js');
}());
