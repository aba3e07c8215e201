#!/usr/bin/env node
// The README's picture of the board, made from the demo: `npm run docs:picture` builds, runs
// `controlroom demo` in tmux at 160×45 on a socket of its own, waits until the board shows what the
// demo is for (spend on three rows, a helper tree, the burn rate, a budget question in Decisions,
// a lost and an untracked agent, a review and a held write), captures the pane with its colours (`capture-pane -e`) and draws
// it as SVG in docs/board.svg. Run it again whenever the board changes; a test checks the picture
// was drawn by this version of the script.
//
//   node scripts/board-picture.mjs                 capture the demo and write docs/board.svg
//   node scripts/board-picture.mjs --from FILE     draw FILE (an ANSI capture) instead, to stdout

/* eslint-disable no-control-regex -- it reads a terminal's escape codes */

import {execFileSync, spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {readFileSync, writeFileSync} from 'node:fs';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import stringWidth from 'string-width';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = fileURLToPath(import.meta.url);
const OUT = `${ROOT}docs/board.svg`;
const COLUMNS = 160;
const ROWS = 45;

// A dark terminal's colours: the 16 the board uses, then xterm's 256-colour cube and greys.
const BACKGROUND = '#14181f';
const FOREGROUND = '#d5dae3';
const PALETTE = [
	'#1d2129',
	'#e06c75',
	'#98c379',
	'#e5c07b',
	'#61afef',
	'#c678dd',
	'#56b6c2',
	'#d5dae3',
	'#5c6370',
	'#ff7b86',
	'#b5e890',
	'#ffd68a',
	'#7cc4ff',
	'#de8ef0',
	'#6fd3df',
	'#ffffff',
];
function color256(index) {
	if (index < 16) return PALETTE[index];
	if (index >= 232) {
		const level = 8 + (index - 232) * 10;
		return `rgb(${level},${level},${level})`;
	}
	const cube = index - 16;
	const step = value => (value === 0 ? 0 : 55 + value * 40);
	return `rgb(${step(Math.floor(cube / 36))},${step(Math.floor(cube / 6) % 6)},${step(cube % 6)})`;
}

/** SGR parameters applied to a style. */
function applySgr(style, codes) {
	const next = {...style};
	for (let index = 0; index < codes.length; index += 1) {
		const code = codes[index];
		if (code === 0)
			Object.assign(next, {fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false});
		else if (code === 1) next.bold = true;
		else if (code === 2) next.dim = true;
		else if (code === 3) next.italic = true;
		else if (code === 4) next.underline = true;
		else if (code === 7) next.inverse = true;
		else if (code === 22) Object.assign(next, {bold: false, dim: false});
		else if (code === 23) next.italic = false;
		else if (code === 24) next.underline = false;
		else if (code === 27) next.inverse = false;
		else if (code >= 30 && code <= 37) next.fg = PALETTE[code - 30];
		else if (code >= 90 && code <= 97) next.fg = PALETTE[code - 90 + 8];
		else if (code === 39) next.fg = null;
		else if (code >= 40 && code <= 47) next.bg = PALETTE[code - 40];
		else if (code >= 100 && code <= 107) next.bg = PALETTE[code - 100 + 8];
		else if (code === 49) next.bg = null;
		else if (code === 38 || code === 48) {
			const key = code === 38 ? 'fg' : 'bg';
			if (codes[index + 1] === 5) {
				next[key] = color256(codes[index + 2] ?? 0);
				index += 2;
			} else if (codes[index + 1] === 2) {
				next[key] = `rgb(${codes[index + 2] ?? 0},${codes[index + 3] ?? 0},${codes[index + 4] ?? 0})`;
				index += 4;
			}
		}
	}
	return next;
}

/** A captured line as runs of one style each: `{text, cells, column, style}`. */
export function runsOf(line) {
	const runs = [];
	let style = applySgr({}, [0]);
	let column = 0;
	let text = '';
	let start = 0;
	const flush = () => {
		if (text !== '') runs.push({text, cells: column - start, column: start, style});
		text = '';
		start = column;
	};
	// Escape sequences: SGR changes the style; any other is dropped.
	for (const part of line.split(/(\u001b\[[0-9;:]*[A-Za-z])/)) {
		const sgr = /^\u001b\[([0-9;:]*)m$/.exec(part);
		if (sgr) {
			flush();
			style = applySgr(style, sgr[1] === '' ? [0] : sgr[1].split(/[;:]/).map(Number));
		} else if (!part.startsWith('\u001b[')) {
			for (const char of part.replace(/[\u0000-\u001f\u007f]/g, '')) {
				text += char;
				column += stringWidth(char);
			}
		}
	}
	flush();
	return runs;
}

const escapeXml = text => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The SVG of a pane captured with its colours, `columns` wide, `rows` high. */
export function svgOf(capture, {columns = COLUMNS, rows = ROWS, scriptHash = ''} = {}) {
	const cell = {width: 8.4, height: 17};
	const pad = 16;
	const width = Math.round(columns * cell.width + pad * 2);
	const height = Math.round(rows * cell.height + pad * 2);
	const lines = capture.replace(/\n$/, '').split('\n').slice(0, rows);
	const body = [];
	lines.forEach((line, row) => {
		const y = pad + row * cell.height;
		for (const run of runsOf(line)) {
			const fg = (run.style.inverse ? run.style.bg : run.style.fg) ?? (run.style.inverse ? BACKGROUND : FOREGROUND);
			const bg = run.style.inverse ? (run.style.fg ?? FOREGROUND) : run.style.bg;
			const x = (pad + run.column * cell.width).toFixed(1);
			const length = (run.cells * cell.width).toFixed(1);
			if (bg) body.push(`<rect x="${x}" y="${y}" width="${length}" height="${cell.height}" fill="${bg}"/>`);
			if (run.text.trim() === '') continue;
			const attributes = [
				`x="${x}"`,
				`y="${(y + cell.height * 0.78).toFixed(1)}"`,
				`textLength="${length}"`,
				'lengthAdjust="spacingAndGlyphs"',
				`fill="${fg}"`,
				run.style.bold ? 'font-weight="bold"' : '',
				run.style.dim ? 'opacity="0.6"' : '',
				run.style.italic ? 'font-style="italic"' : '',
				run.style.underline ? 'text-decoration="underline"' : '',
			].filter(Boolean);
			body.push(`<text ${attributes.join(' ')}>${escapeXml(run.text)}</text>`);
		}
	});
	return [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="The controlroom board on the demo's agents, ${columns}x${rows}" data-generator="scripts/board-picture.mjs" data-script-sha256="${scriptHash}">`,
		`<rect width="${width}" height="${height}" rx="8" fill="${BACKGROUND}"/>`,
		`<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="14" xml:space="preserve">`,
		...body,
		'</g>',
		'</svg>',
		'',
	].join('\n');
}

/** This script's own hash: the picture says which version of it drew it. */
export function scriptHash() {
	return createHash('sha256').update(readFileSync(SCRIPT)).digest('hex');
}

/** What the picture waits for: everything the demo is for, on one screen. */
function isReady(pane) {
	const spendRows = pane.split('\n').filter(line => /\d+(\.\d+)?k(\/\S+)?\+? +\$\d+\.\d{3}\*? +\d+$/.test(line));
	return (
		spendRows.length >= 3 &&
		/claude \(budget\) +budget: /.test(pane) &&
		/▸ 2 helpers: 2 ended/.test(pane) &&
		/ burn \d/.test(pane) &&
		/^LOST \(1\)/m.test(pane) &&
		/^UNTRACKED \(1\)/m.test(pane) &&
		/REVIEWS \([1-9]\)/.test(pane) &&
		/HELD EFFECTS \(1\)/.test(pane)
	);
}

async function capture() {
	const socket = `controlroom-picture-${process.pid}`;
	const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], {encoding: 'utf8'});
	execFileSync('npm', ['run', '-s', 'build'], {cwd: ROOT, stdio: 'inherit'});
	tmux(
		'new-session',
		'-d',
		'-s',
		'demo',
		'-x',
		String(COLUMNS),
		'-y',
		String(ROWS),
		'-e',
		'TERM=xterm-256color',
		`cd '${ROOT}' && node bin/controlroom demo`,
	);
	try {
		const deadline = Date.now() + 90_000;
		for (;;) {
			const pane = tmux('capture-pane', '-p', '-t', 'demo');
			if (isReady(pane)) break;
			if (Date.now() > deadline) throw new Error(`the demo never showed everything it is for; last seen:\n${pane}`);
			await sleep(200);
		}
		return tmux('capture-pane', '-p', '-e', '-t', 'demo');
	} finally {
		spawnSync('tmux', ['-L', socket, 'send-keys', '-t', 'demo', 'q']);
		await sleep(3000);
		spawnSync('tmux', ['-L', socket, 'kill-server']);
	}
}

if (process.argv[1] === SCRIPT) {
	const fromIndex = process.argv.indexOf('--from');
	if (fromIndex > 0) {
		process.stdout.write(svgOf(readFileSync(process.argv[fromIndex + 1] ?? '', 'utf8'), {scriptHash: scriptHash()}));
	} else {
		writeFileSync(OUT, svgOf(await capture(), {scriptHash: scriptHash()}));
		process.stdout.write(`wrote ${OUT}\n`);
	}
}
