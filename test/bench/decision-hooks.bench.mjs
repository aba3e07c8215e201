// Benchmarks the two hooks of the decision queue as Claude Code waits for them (docs/decisions.md,
// "What the hooks cost"), every figure against baselines measured in the same run (the machine is
// shared, so only ratios in one run mean anything), the variants alternated so drift in load hits
// all alike:
// - the hold hook (PreToolUse of a held `claude -p`, docs/headless-holds.md), for a call its policy
//   lets through (every ordinary tool call pays this), as bin/controlroom runs it (bundled) and
//   through the whole CLI (how it ran before);
// - the permission hook, from its start to its end on a question whose agent is gone (it loads,
//   opens the ledger, asks, sees the agent gone, withdraws, ends), both ways too;
// - both again through their shell path (src/cli/decision-hook.sh), as the wrapper and `hooks
//   install` run them: the hold hook for the same ordinary call, the permission hook with no ledger
//   to ask in (the calls answered with no Node start);
// - `node -e 0`, `sh -c :` and the record hook (`controlroom hook`, bundled) as the floors;
// - with BENCH_BASELINE_BIN=PATH (bin/controlroom of another build, say the commit before this
//   bench, built in a copy of the tree), both hooks of that build too.
// Never fails on timing.
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {timed} from './timed.mjs';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const MAIN = new URL('../../dist/cli/main.js', import.meta.url).href;
const PRE_TOOL_USE = readFileSync(new URL('../fixtures/claude/PreToolUse.json', import.meta.url));
const PERMISSION = readFileSync(new URL('../fixtures/decisions/PermissionRequest.interactive.json', import.meta.url));
const ROUNDS = Number(process.env.BENCH_DECISION_HOOK_ROUNDS ?? 15);
const BASELINE_BIN = process.env.BENCH_BASELINE_BIN;
/** The built-in policy holds `rm -rf`, not the fixture's `echo hi`: the ordinary call. */
const POLICY = Buffer.from('{}', 'utf8').toString('base64url');
const SCRIPT = fileURLToPath(new URL('../../dist/cli/decision-hook.sh', import.meta.url));
/** What src/core/decisions/hold-quick-args.ts tells the shell path of the built-in policy (test/cli/decision-hook-sh.test.ts checks the words). */
const QUICK_ARGS = [
	...['rm', 'push', '--hard', 'clean', 'branch', 'checkout', 'sudo', 'mkfs', 'dd', 'shred', 'chmod', 'chown', 'curl', 'wget']
		.concat(['publish', 'kubectl', 'terraform'])
		.flatMap(word => ['--bash', word]),
	'--writes',
	'held',
];

/** `node -e` running the whole CLI's main with these words: the path every verb but `hook` took before. */
function viaWholeCli(words) {
	return [
		'--input-type=module',
		'-e',
		`const {main} = await import(${JSON.stringify(MAIN)}); process.exitCode = await main(${JSON.stringify(words)});`,
	];
}

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

const ms = value => `${value.toFixed(0)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

export default async function bench() {
	const home = mkdtempSync(join(tmpdir(), 'cr-bench-decision-hooks-'));
	const base = {...process.env, CONTROLROOM_HOME: home};
	try {
		spawnSync(
			process.execPath,
			[BIN, 'ingest', fileURLToPath(new URL('../fixtures/claude/SessionStart.json', import.meta.url))],
			{
				env: base,
			},
		);
		const holdWords = ['hold-hook', '--cwd', home, '--policy', POLICY, '--on-budget', 'stop'];
		const holdEnv = {...base, CONTROLROOM_TASK_ID: 'w-bench0000', CLAUDE_CODE_ENTRYPOINT: 'sdk-cli'};
		// A CLAUDE_PID that is no process: the permission hook asks, sees its agent gone, withdraws and ends.
		const permissionEnv = {...base, CLAUDE_PID: '999999999'};
		const permissionWords = ['permission-hook', '--window', '5'];
		const noLedgerEnv = {...permissionEnv, CONTROLROOM_HOME: join(home, 'none')};
		const shellWords = (verb, quick, words) => [SCRIPT, process.execPath, BIN, verb, ...quick, '--', ...words.slice(1)];
		const runs = {
			'node -e 0': () => timed(process.execPath, ['-e', '0'], '', base),
			'sh -c :': () => timed('/bin/sh', ['-c', ':'], '', base),
			'hold hook, shell path': () => timed('/bin/sh', shellWords('hold-hook', QUICK_ARGS, holdWords), PRE_TOOL_USE, holdEnv),
			'permission hook, no ledger': () => timed(process.execPath, [BIN, ...permissionWords], PERMISSION, noLedgerEnv),
			'permission hook, no ledger, shell path': () =>
				timed('/bin/sh', shellWords('permission-hook', [], permissionWords), PERMISSION, noLedgerEnv),
			'record hook': () => timed(process.execPath, [BIN, 'hook'], PRE_TOOL_USE, base),
			'hold hook': () => timed(process.execPath, [BIN, ...holdWords], PRE_TOOL_USE, holdEnv),
			'hold hook, whole CLI': () => timed(process.execPath, viaWholeCli(holdWords), PRE_TOOL_USE, holdEnv),
			'permission hook': () => timed(process.execPath, [BIN, ...permissionWords], PERMISSION, permissionEnv),
			'permission hook, whole CLI': () => timed(process.execPath, viaWholeCli(permissionWords), PERMISSION, permissionEnv),
			...(BASELINE_BIN
				? {
						'hold hook, baseline build': () => timed(process.execPath, [BASELINE_BIN, ...holdWords], PRE_TOOL_USE, holdEnv),
						'permission hook, baseline build': () =>
							timed(process.execPath, [BASELINE_BIN, ...permissionWords], PERMISSION, permissionEnv),
					}
				: {}),
		};
		const times = Object.fromEntries(Object.keys(runs).map(name => [name, []]));
		for (const run of Object.values(runs)) await run(); // warm the file cache
		for (let round = 0; round < ROUNDS; round += 1) {
			for (const [name, run] of Object.entries(runs)) times[name].push(await run());
		}
		const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
		console.log(
			`sequential, ${ROUNDS} rounds, medians: ${Object.entries(m)
				.map(([name, value]) => `${name} ${ms(value)}`)
				.join('; ')}`,
		);
		console.log(
			`hold hook / node -e 0: ${ratio(m['hold hook'], m['node -e 0'])} (whole CLI ${ratio(m['hold hook, whole CLI'], m['node -e 0'])}); ` +
				`hold hook / whole CLI: ${ratio(m['hold hook'], m['hold hook, whole CLI'])}; ` +
				`permission hook / whole CLI: ${ratio(m['permission hook'], m['permission hook, whole CLI'])}; ` +
				`record hook / node -e 0: ${ratio(m['record hook'], m['node -e 0'])}`,
		);
		console.log(
			`shell path / node -e 0: hold hook ${ratio(m['hold hook, shell path'], m['node -e 0'])} ` +
				`(Node hold hook ${ratio(m['hold hook'], m['node -e 0'])}), ` +
				`permission hook with no ledger ${ratio(m['permission hook, no ledger, shell path'], m['node -e 0'])} ` +
				`(Node ${ratio(m['permission hook, no ledger'], m['node -e 0'])}); sh -c : ${ratio(m['sh -c :'], m['node -e 0'])}`,
		);
		if (BASELINE_BIN) {
			console.log(
				`against the baseline build: hold hook ${ratio(m['hold hook'], m['hold hook, baseline build'])}, ` +
					`permission hook ${ratio(m['permission hook'], m['permission hook, baseline build'])}`,
			);
		}
	} finally {
		rmSync(home, {recursive: true, force: true});
	}
}
