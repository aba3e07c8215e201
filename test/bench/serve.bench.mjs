// `controlroom serve` under load: 20 clients at once, each with the SDK's own HTTP client, each
// writing 50 contracts with write_task. Every call must be answered and every contract stored
// once; the figures are the p95 of one call and the server's peak RSS, beside a baseline measured
// in the same run (GET /health, which touches no ledger). Load average printed with them.
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const RSS = fileURLToPath(new URL('./rss.mjs', import.meta.url));
const CLIENTS = 20;
const CALLS = 50;

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

function contract(head, client, call) {
	return [
		'---',
		'kind: task',
		`title: Bench contract ${client}-${call}`,
		`context: {repository: shop, base_revision: "${head}"}`,
		'execution: {operator: worker-1, test_command: npm test, permissions: existing development access only}',
		'delivery: {patch_revision: required, commands_and_results: required, untested_cases: required}',
		'---',
		'',
		'## Goal',
		'',
		`Contract ${call} of client ${client} is stored exactly once.`,
		'',
		'## In scope',
		'',
		'- the export query',
		'',
		'## Out of scope',
		'',
		'- authentication',
		'',
		'## Acceptance',
		'',
		'- `npm test` passes',
		'',
		'## Acceptors',
		'',
		'- engineer: lee',
		'',
		'## Stop when',
		'',
		'- the docs say otherwise',
		'',
	].join('\n');
}

/** A person's token: `serve tokens new` on a pty of its own (script(1)), as a person at a terminal runs it. */
function mintToken(env, dir) {
	const out = join(dir, 'token.out');
	const command = `'${process.execPath}' '${BIN}' serve tokens new --scope work:write --scope work:read --name bench > '${out}' 2>&1`;
	spawnSync('script', ['-qec', command, '/dev/null'], {env, stdio: 'ignore'});
	const token = readFileSync(out, 'utf8').trim().split(/\s+/).at(-1);
	if (!token?.startsWith('crp_')) throw new Error(`no token: ${readFileSync(out, 'utf8')}`);
	return token;
}

async function startServe(env, repo) {
	const child = spawn(process.execPath, ['--import', RSS, BIN, 'serve', '--listen', '127.0.0.1:0', '--repo', `shop=${repo}`], {
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	const url = await new Promise((resolve, reject) => {
		child.stdout.on('data', chunk => {
			stdout += chunk;
			const match = stdout.match(/connector URL (\S+)/);
			if (match) resolve(new URL(match[1]));
		});
		child.once('exit', code => reject(new Error(`serve exited ${code}`)));
	});
	return {child, url};
}

export default async function bench() {
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-serve-'));
	const home = join(dir, 'home');
	const repo = join(dir, 'shop');
	const env = {...process.env, CONTROLROOM_HOME: home, BENCH_RSS_FILE: join(dir, 'rss')};
	try {
		execFileSync('mkdir', ['-p', home, repo]);
		const git = (...args) => execFileSync('git', ['-C', repo, ...args], {encoding: 'utf8'}).trim();
		git('init', '-q');
		writeFileSync(join(repo, 'package.json'), JSON.stringify({scripts: {test: 'node -e 0'}}));
		git('add', '.');
		git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'bench');
		const head = git('rev-parse', 'HEAD');
		const token = mintToken(env, dir);
		const {child, url} = await startServe(env, repo);
		const health = new URL('/health', url);
		const baseline = [];
		for (let index = 0; index < 200; index += 1) {
			const started = performance.now();
			await (await fetch(health)).json();
			baseline.push(performance.now() - started);
		}
		const timings = [];
		let failed = 0;
		const ids = new Set();
		const started = performance.now();
		await Promise.all(
			Array.from({length: CLIENTS}, async (_, client) => {
				const mcp = new Client({name: `bench-${client}`, version: '1'});
				await mcp.connect(new StreamableHTTPClientTransport(url, {requestInit: {headers: {Authorization: `Bearer ${token}`}}}));
				for (let call = 0; call < CALLS; call += 1) {
					const at = performance.now();
					try {
						const result = await mcp.callTool({name: 'write_task', arguments: {contract: contract(head, client, call)}});
						if (result.isError) failed += 1;
						else ids.add(result.structuredContent.id);
					} catch {
						failed += 1;
					}
					timings.push(performance.now() - at);
				}
				await mcp.close();
			}),
		);
		const wall = performance.now() - started;
		child.kill('SIGTERM');
		await new Promise(resolve => child.once('exit', resolve));
		const snapshot = JSON.parse(
			execFileSync(process.execPath, [BIN, 'snapshot', '--json'], {env, encoding: 'utf8', maxBuffer: 1 << 28}),
		);
		const stored = snapshot.contracts.length;
		const distinct = new Set(snapshot.contracts.map(item => item.id)).size;
		const rssMiB = Number(readFileSync(join(dir, 'rss'), 'utf8')) / 1024;
		const base95 = percentile(baseline, 0.95);
		const call95 = percentile(timings, 0.95);
		console.log(
			`load average ${loadavg()
				.map(value => value.toFixed(2))
				.join(' ')}`,
		);
		console.log(`baseline GET /health: p95 ${base95.toFixed(1)} ms over ${baseline.length}`);
		console.log(
			`${CLIENTS} clients x ${CALLS} write_task: ${timings.length} answered (${failed} refused or failed), ${ids.size} ids; stored ${stored}, distinct ${distinct}`,
		);
		console.log(
			`per call: p50 ${percentile(timings, 0.5).toFixed(1)} ms, p95 ${call95.toFixed(1)} ms (${(call95 / base95).toFixed(1)}x baseline), ${((timings.length / wall) * 1000).toFixed(0)} calls/s; serve peak RSS ${rssMiB.toFixed(0)} MiB`,
		);
		if (failed > 0 || stored !== CLIENTS * CALLS || distinct !== stored)
			throw new Error('not every call answered and stored once');
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}
