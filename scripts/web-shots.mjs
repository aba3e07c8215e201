#!/usr/bin/env node
// Pictures of the web board with the demo's agents (docs/web.md): runs `controlroom demo` in tmux
// on a socket of its own, adds a wrapped task whose title is markup (`<script>…`), serves the demo's
// ledger with `controlroom web`, signs in through `web link` (printed at a pty, as a person does)
// and screenshots the page in Debian's Chromium at a laptop's and a phone's size. It says whether the
// title showed as text and whether any script of the title ran. Needs `npm run build` first.
//
//   node scripts/web-shots.mjs OUT_DIR

import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, readdirSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {chromium} from 'playwright-core';

const BIN = fileURLToPath(new URL('../bin/controlroom', import.meta.url));
const out = process.argv[2];
if (!out) {
	process.stderr.write('usage: node scripts/web-shots.mjs OUT_DIR\n');
	process.exit(64);
}
mkdirSync(out, {recursive: true});
const SOCKET = `web-shots-${process.pid}`;
const TITLE = '<script>window.pwned=1</script> deploy <b>docs</b>';
const tmux = (...args) => spawnSync('tmux', ['-L', SOCKET, ...args], {encoding: 'utf8'});

const before = new Set(readdirSync(tmpdir()).filter(name => name.startsWith('controlroom-demo-')));
tmux('new-session', '-d', '-x', '160', '-y', '45', `${process.execPath} ${BIN} demo`);
let home;
for (let tries = 0; home === undefined && tries < 100; tries++) {
	home = readdirSync(tmpdir()).find(name => name.startsWith('controlroom-demo-') && !before.has(name));
	if (home === undefined) await sleep(100);
}
if (home === undefined) throw new Error('the demo made no scratch home');
home = join(tmpdir(), home);
const env = {...process.env, CONTROLROOM_HOME: home};
const marked = spawn(
	process.execPath,
	[BIN, 'run', '--task-id', 'w-markup', '--title', TITLE, '--', process.execPath, '-e', 'setTimeout(() => {}, 120000)'],
	{env, stdio: 'ignore'},
);
const web = spawn(process.execPath, [BIN, 'web', '--listen', '127.0.0.1:0'], {env, stdio: ['ignore', 'pipe', 'inherit']});
const base = await new Promise(resolve => {
	let said = '';
	web.stdout.on('data', chunk => {
		said += chunk;
		const url = said.match(/the board at (\S+)/)?.[1];
		if (url) resolve(url);
	});
});
const link = () => {
	const said = spawnSync('script', ['-qec', `${process.execPath} ${BIN} web link`, '/dev/null'], {env, encoding: 'utf8'});
	return said.stdout.match(/(http\S+\/signin\/\S+)/)[1].trim();
};
// The demo's agents take a few seconds to report spend, ask for budget and hold a write.
await sleep(25_000);
const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: ['--no-sandbox']});
try {
	for (const [name, viewport] of [
		['web-1280x800.png', {width: 1280, height: 800}],
		['web-390x844.png', {width: 390, height: 844}],
	]) {
		const page = await (await browser.newContext({viewport, deviceScaleFactor: 1})).newPage();
		await page.goto(link());
		await page.getByRole('button', {name: 'Sign in'}).click();
		await page.waitForURL(url => new URL(url).pathname === '/');
		await page.waitForFunction('document.body.dataset.updated !== undefined');
		await page.waitForSelector('a.row[data-task="w-markup"]');
		const shown = await page.locator('a.row[data-task="w-markup"]').innerText();
		const ran = await page.evaluate('window.pwned');
		await page.screenshot({path: join(out, name)});
		console.log(
			`${name}: ${viewport.width}x${viewport.height}; the markup row reads ${JSON.stringify(shown.replace(/\s+/g, ' ').slice(0, 80))}; its script ran: ${ran !== undefined}; ${statSync(join(out, name)).size} bytes`,
		);
	}
} finally {
	await browser.close();
	web.kill('SIGTERM');
	marked.kill('SIGTERM');
	tmux('send-keys', 'q');
	await sleep(1000);
	tmux('kill-server');
	console.log(`board at ${base}; demo home ${home}`);
}
