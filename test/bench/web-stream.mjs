// The web board under load (docs/web.md, "How it stays live"): 50 event-stream clients and 3 real
// Chromium tabs on one `controlroom web`, while ten wrapped tasks each record a progress event a
// second for a minute: 10 events a second (ten rows, because the board's progress cell holds a
// two-digit "N/60" whole, which one task's "N/600" would not). Each client's lag is when a step's number reached it minus when the ledger recorded
// that step; the server's RSS and CPU are read from /proc. Run: `npm run build && node test/bench/web-stream.mjs`.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync} from 'node:fs';
import {tmpdir, loadavg} from 'node:os';
import {join} from 'node:path';
import {URLSearchParams} from 'node:url';
import Database from 'better-sqlite3';
import {chromium} from 'playwright-core';

const BIN = new URL('../../bin/controlroom', import.meta.url).pathname;
const CLIENTS = 50;
const TABS = 3;
const SECONDS = Number(process.env.SECONDS ?? 60);
const STEPS = SECONDS;
const TASKS = 10;
const home = mkdtempSync(join(tmpdir(), 'cr-web-bench-'));
// Ten runs at once in this checkout: as many admission slots (docs/config.md, slots).
const env = {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_SLOTS: '16'};

const server = spawn(process.execPath, [BIN, 'web', '--listen', '127.0.0.1:0'], {env, stdio: ['ignore', 'pipe', 'inherit']});
const base = await new Promise(resolve => {
	let out = '';
	server.stdout.on('data', chunk => {
		out += chunk;
		const url = out.match(/the board at (\S+)/)?.[1];
		if (url) resolve(new URL(url));
	});
});
/** A sign-in link as a person at a terminal prints it (script(1) gives the command a terminal). */
function link() {
	const said = spawnSync('script', ['-qec', `${process.execPath} ${BIN} web link`, '/dev/null'], {env, encoding: 'utf8'});
	return said.stdout.match(/(http\S+\/signin\/\S+)/)[1].trim();
}
const secret = new URL(link()).pathname.split('/').pop();
const signin = await fetch(new URL('/signin', base), {
	method: 'POST',
	body: new URLSearchParams({link: secret}),
	redirect: 'manual',
});
const cookie = signin.headers.get('set-cookie').split(';')[0];

/** When each task's step first reached each client: arrivals[client]['w-tick-T STEP'] = ms. */
const arrivals = [];
let lastText = '';
const seen = (client, text) => {
	const now = Date.now();
	if (client === 0) lastText = text;
	// A row: its id, then (in the stream's HTML, after its tags; in a tab's text, after its cells) its N/STEPS.
	for (const match of text.matchAll(new RegExp(`(w-tick-\\d)[^/]*?[\\s\\S]*?(\\d+)/${STEPS}(?!\\d)`, 'g'))) {
		arrivals[client][`${match[1]} ${match[2]}`] ??= now;
	}
};
const streams = [];
for (let client = 0; client < CLIENTS; client++) {
	arrivals.push({});
	const controller = new AbortController();
	streams.push(controller);
	const response = await fetch(new URL('/events?path=%2F&cols=120', base), {headers: {cookie}, signal: controller.signal});
	const reader = response.body.getReader();
	const decoder = new TextDecoder();
	void (async () => {
		try {
			for (;;) {
				const {value, done} = await reader.read();
				if (done) return;
				seen(client, decoder.decode(value, {stream: true}));
			}
		} catch {
			// aborted at the end
		}
	})();
}
const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: ['--no-sandbox']});
const tabs = [];
for (let tab = 0; tab < TABS; tab++) {
	const context = await browser.newContext({viewport: {width: 1280, height: 800}});
	const page = await context.newPage();
	await page.goto(link());
	await page.getByRole('button', {name: 'Sign in'}).click();
	await page.waitForURL(url => url.pathname === '/');
	const client = arrivals.length;
	arrivals.push({});
	await page.exposeFunction('reportBoard', text => seen(client, text));
	// In the page (a string: it runs in the browser): each new board the stream brings is reported.
	await page.evaluate(
		"new MutationObserver(() => window.reportBoard(document.getElementById('board').innerText)).observe(document.getElementById('board'), {childList: true})",
	);
	tabs.push(page);
}
const stat = () => {
	const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return {
		cpu: (Number(fields[11]) + Number(fields[12])) * 10,
		rss: Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]),
	};
};
const before = stat();
const started = Date.now();
const load = loadavg()[0];
const ticker = `let i = 0; const t = setInterval(() => { i++; console.log('PROGRESS ' + i + '/${STEPS}'); if (i === ${STEPS}) { clearInterval(t); setTimeout(() => process.exit(0), 1500); } }, 1000);`;
// Not spawnSync: the clients read their streams in this process while the tasks run; started 100 ms apart.
const tickers = [];
for (let task = 0; task < TASKS; task++) {
	tickers.push(
		spawn(
			process.execPath,
			[
				BIN,
				'run',
				'--task-id',
				`w-tick-${task}`,
				'--title',
				'one event a second',
				'--steps',
				String(STEPS),
				'--',
				process.execPath,
				'-e',
				ticker,
			],
			{env, stdio: 'ignore'},
		),
	);
	await new Promise(resolve => setTimeout(resolve, 100));
}
const statuses = await Promise.all(tickers.map(child => new Promise(resolve => child.once('exit', code => resolve(code)))));
const run = {status: statuses.every(code => code === 0) ? 0 : statuses};
await new Promise(resolve => setTimeout(resolve, 1500));
const after = stat();
const elapsed = Date.now() - started;
const ledger = new Database(join(home, 'ledger.db'), {readonly: true});
const recorded = new Map(
	ledger
		.prepare("SELECT task_id, at, data FROM events WHERE type = 'task.progressed' AND task_id LIKE 'w-tick-%'")
		.all()
		.map(row => [`${row.task_id} ${JSON.parse(row.data).done}`, row.at]),
);
const lags = [];
let missingLast = 0;
for (const client of arrivals) {
	// A client is current when the last step reached it; every step it was shown counts its lag.
	if (Array.from({length: TASKS}, (_, task) => client[`w-tick-${task} ${STEPS}`]).includes(undefined)) missingLast++;
	for (const [step, at] of Object.entries(client)) {
		const wrote = recorded.get(step);
		if (wrote !== undefined) lags.push(at - wrote);
	}
}
lags.sort((a, b) => a - b);
const pick = q => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
console.log(
	JSON.stringify({
		clients: CLIENTS,
		tabs: TABS,
		seconds: SECONDS,
		runExit: run.status,
		events: recorded.size,
		samples: lags.length,
		lagMs: {p50: pick(0.5), p99: pick(0.99), max: lags.at(-1)},
		clientsMissingLastStep: missingLast,
		serverCpuPercent: Math.round(((after.cpu - before.cpu) / elapsed) * 100),
		serverRssMb: {before: Math.round(before.rss / 1024), after: Math.round(after.rss / 1024)},
		loadAverage1m: load,
	}),
);
if (process.env.DEBUG) console.log(lastText.slice(0, 3000));
for (const controller of streams) controller.abort();
await browser.close();
server.kill('SIGTERM');
